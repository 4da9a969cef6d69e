package service

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
)

// interruptedForget archives one entry of project per text in a fresh
// home, indexes them, and forgets the first n of them with a forget that
// stops (as a kill would) once the archive has deleted the first deleted
// of those, before the index deleted any.
func interruptedForget(t *testing.T, project string, texts []string, n, deleted int) (*home.Home, *index.Index, []memex.ID) {
	t.Helper()
	ctx := context.Background()
	h, err := home.Open(ctx, t.TempDir(), home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	var ids []memex.ID
	for _, text := range texts {
		e, err := h.Store.Add(ctx, memex.Entry{Project: project, Session: "s", Agent: "cli", Kind: memex.KindTool, Tool: "bash"}, strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	ix, err := h.Index()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := catchup.CatchUp(ctx, h.Store, ix); err != nil {
		t.Fatal(err)
	}
	killed := errors.New("killed")
	err = forgetEntries(ctx, h.Store, ix, ids[:n], func(ctx context.Context, s *archive.Store, _ *index.Index, ids []memex.ID) error {
		for _, id := range ids[:deleted] {
			if err := s.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		return killed
	})
	if !errors.Is(err, killed) {
		t.Fatalf("interrupted forget: %v", err)
	}
	if has, _ := ix.Has(ids[0]); !has {
		t.Fatal("the interrupted forget removed the index row: the case is not tested")
	}
	return h, ix, ids
}

// TestInterruptedForgetIsFinished: a forget stopped after the archive
// deleted one of its entries and before the index did (a kill) left that
// entry's terms in the index for good, and the rest of what it named in
// the archive. The next search must finish it: neither the archive nor
// the index holds any of them after it, and it finds nothing of them.
func TestInterruptedForgetIsFinished(t *testing.T) {
	ctx := context.Background()
	h, ix, ids := interruptedForget(t, "p", []string{"zebrafishlinker failed once", "zebrafishlinker failed twice", "kept entry"}, 2, 1)
	res, err := Searcher{Store: h.Store, Index: h.Index}.Search(ctx, api.Query{Text: "zebrafishlinker", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || res.Total != 0 {
		t.Fatalf("search after an interrupted forget: %d hits, total %d", len(res.Hits), res.Total)
	}
	for i, id := range ids {
		has, err := ix.Has(id)
		if err != nil {
			t.Fatal(err)
		}
		_, gerr := h.Store.Get(ctx, id)
		if kept := i == 2; has != kept || (gerr == nil) != kept {
			t.Errorf("entry %d: in the index %v, in the archive %v; want %v", i, has, gerr == nil, kept)
		}
	}
	if _, err := h.Store.GetState(ctx, forgetState); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("the journal is still there: %v", err)
	}
}

// TestForgetAgainFinishesAnInterruptedOne: memex forget run again on what
// an interrupted forget named finishes it, even when the archive deleted
// all of it already, and says how many it forgot.
func TestForgetAgainFinishesAnInterruptedOne(t *testing.T) {
	h, ix, ids := interruptedForget(t, "gone", []string{"zebrafishlinker one", "zebrafishlinker two"}, 2, 2)
	res, err := Maintainer{Home: h}.Forget(context.Background(), api.ForgetRequest{Project: "gone"})
	if err != nil || res.Forgotten != 2 {
		t.Fatalf("forget again: %+v, %v", res, err)
	}
	for _, id := range ids {
		if has, _ := ix.Has(id); has {
			t.Errorf("%s is still in the index", id)
		}
	}
}

// TestVerifyReportsAnUnfinishedForget: until a search or a forget
// finishes it, memex verify says a forget was interrupted.
func TestVerifyReportsAnUnfinishedForget(t *testing.T) {
	h, _, _ := interruptedForget(t, "p", []string{"zebrafishlinker one", "kept"}, 1, 1)
	res, err := Maintainer{Home: h}.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range res.Files {
		found = found || strings.Contains(p.Message, "a forget of 1 entry was interrupted")
	}
	if !found {
		t.Fatalf("verify: %+v", res)
	}
	if _, err := (Searcher{Store: h.Store, Index: h.Index}).Search(context.Background(), api.Query{Text: "kept"}); err != nil {
		t.Fatal(err)
	}
	res, err = Maintainer{Home: h}.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Files {
		if strings.Contains(p.Message, "forget") {
			t.Fatalf("verify after the search finished it: %+v", p)
		}
	}
}
