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

// TestInterruptedForgetIsFinished: a forget stopped after the archive
// deleted one of its entries and before the index did (a kill) left that
// entry's terms in the index for good, and the rest of what it named in
// the archive. The next search must finish it: neither the archive nor
// the index holds any of them after it, and it finds nothing of them; a
// forget run again on what it named then reports them forgotten.
func TestInterruptedForgetIsFinished(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h, err := home.Open(ctx, dir, home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var ids []memex.ID
	for _, text := range []string{"zebrafishlinker failed once", "zebrafishlinker failed twice", "kept entry"} {
		e, err := h.Store.Add(ctx, memex.Entry{Project: "p", Session: "s", Agent: "cli", Kind: memex.KindTool, Tool: "bash"}, strings.NewReader(text))
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
	err = forgetEntries(ctx, h.Store, ix, ids[:2], func(ctx context.Context, s *archive.Store, _ *index.Index, ids []memex.ID) error {
		if err := s.Delete(ctx, ids[0]); err != nil {
			t.Fatal(err)
		}
		return killed
	})
	if !errors.Is(err, killed) {
		t.Fatalf("interrupted forget: %v", err)
	}
	if has, _ := ix.Has(ids[0]); !has {
		t.Fatal("the interrupted forget removed the index row: the case is not tested")
	}

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
	ctx := context.Background()
	h, err := home.Open(ctx, t.TempDir(), home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var ids []memex.ID
	for _, text := range []string{"zebrafishlinker one", "zebrafishlinker two"} {
		e, err := h.Store.Add(ctx, memex.Entry{Project: "gone", Session: "s", Kind: memex.KindTool}, strings.NewReader(text))
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
	err = forgetEntries(ctx, h.Store, ix, ids, func(ctx context.Context, s *archive.Store, _ *index.Index, ids []memex.ID) error {
		for _, id := range ids {
			if err := s.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		return killed
	})
	if !errors.Is(err, killed) {
		t.Fatalf("interrupted forget: %v", err)
	}
	res, err := Maintainer{Home: h}.Forget(ctx, api.ForgetRequest{Project: "gone"})
	if err != nil || res.Forgotten != 2 {
		t.Fatalf("forget again: %+v, %v", res, err)
	}
	for _, id := range ids {
		if has, _ := ix.Has(id); has {
			t.Errorf("%s is still in the index", id)
		}
	}
}
