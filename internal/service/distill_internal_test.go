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
