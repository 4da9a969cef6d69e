package service

import (
	"context"
	"reflect"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/testutil"
	"github.com/memex-archive/memex/memory"
)

// TestDistillFromAddedEntries: an import distils its sessions from the
// entries it added, as Add returned them, instead of reading them back.
// Every entry it keeps must be what the store reads back from its
// record, and distilling the same sessions again from the store must
// find nothing to change.
func TestDistillFromAddedEntries(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Corpora(t)
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	kept, differ := 0, 0
	var refs []memex.SessionRef
	seen := map[memex.SessionRef]bool{}
	opts := ingest.Options{Format: ingest.Auto, Paths: []string{dir}, Policy: Policy,
		Added: func(e memex.Entry, _ []byte) {
			if r := e.SessionRef(); r.Project != "" && !seen[r] {
				seen[r] = true
				refs = append(refs, r)
			}
			k, ok := archive.AsRead(e)
			if !ok {
				return
			}
			got, err := s.Get(ctx, e.ID)
			if err != nil {
				t.Fatal(err)
			}
			kept++
			if !reflect.DeepEqual(k, got) {
				if differ++; differ <= 3 {
					t.Errorf("kept %+v\nread %+v", k, got)
				}
			}
		}}
	rep, drep, err := ingestThenDistill(ctx, s, opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if kept == 0 || kept != rep.Added || drep.Lessons == 0 {
		t.Fatalf("kept %d of %d entries added; %d lessons", kept, rep.Added, drep.Lessons)
	}
	again, err := memory.Update(ctx, s, refs, memory.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || len(again.Removed) != 0 || again.Lessons != drep.Lessons || again.Runs != drep.Runs {
		t.Fatalf("distilled again from the store: %+v, after the import %+v", again, drep)
	}
	t.Logf("%d entries, %d sessions, %d lessons, %d runs", kept, len(refs), drep.Lessons, drep.Runs)
}

// TestDistillInBatches: an import whose kept entries pass
// distillBatchBytes distils the sessions so far between two files and
// lets their entries go. The store must end as one batch leaves it: the
// same lessons and runs, and distilling every session again from the
// store finds nothing to change.
func TestDistillInBatches(t *testing.T) {
	ctx := context.Background()
	dir := testutil.Corpora(t)
	lessons := func(s *archive.Store, refs []memex.SessionRef) memory.UpdateReport {
		t.Helper()
		again, err := memory.Update(ctx, s, refs, memory.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return again
	}
	var want memory.UpdateReport
	for _, batch := range []int{addedBytes / 2, 64 << 10} {
		defer func(old int) { distillBatchBytes = old }(distillBatchBytes)
		distillBatchBytes = batch
		s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		var refs []memex.SessionRef
		seen := map[memex.SessionRef]bool{}
		entries, firstLesson := 0, -1 // entries added before the first lesson
		opts := ingest.Options{Format: ingest.Auto, Paths: []string{dir}, Policy: Policy,
			Added: func(e memex.Entry, _ []byte) {
				entries++
				if r := e.SessionRef(); r.Project != "" && r.Session != "" && !seen[r] {
					seen[r] = true
					refs = append(refs, r)
				}
			}}
		rep, drep, err := ingestThenDistill(ctx, s, opts, nil, func(memex.Entry, []byte) {
			if firstLesson < 0 {
				firstLesson = entries
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if early := firstLesson < rep.Added; early != (batch < addedBytes/2) {
			t.Fatalf("batches of %d bytes: the first lesson came after %d of %d entries", batch, firstLesson, rep.Added)
		}
		got := lessons(s, refs)
		if got.Added != 0 || len(got.Removed) != 0 {
			t.Fatalf("batches of %d bytes: distilled again from the store: %+v, after the import %+v", batch, got, drep)
		}
		if batch == addedBytes/2 {
			want = got
			continue
		}
		if got.Lessons != want.Lessons || got.Runs != want.Runs || got.Sessions != want.Sessions {
			t.Fatalf("batches of %d bytes leave %+v, one batch %+v", batch, got, want)
		}
		if drep.Added < want.Lessons {
			t.Fatalf("the batches added %d lessons, the store holds %d", drep.Added, want.Lessons)
		}
	}
}
