package service

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
)

// TestSearchCatchUpProgress: the catch-up a search runs first tells its
// Progress the backlog before the first chunk and the entries done after
// each, ending with all of them; a search with nothing to catch up tells
// it no more than that there is nothing.
func TestSearchCatchUpProgress(t *testing.T) {
	ctx := context.Background()
	h, err := home.Open(ctx, t.TempDir(), home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	const n = 50
	for i := range n {
		if _, err := h.Store.Add(ctx, memex.Entry{Project: "p", Session: "s", Kind: memex.KindNote}, strings.NewReader(fmt.Sprintf("note %d zebrafishlinker", i))); err != nil {
			t.Fatal(err)
		}
	}
	var calls [][2]int
	x := Searcher{Store: h.Store, Index: h.Index, Progress: func() func(done, total int) {
		return func(done, total int) { calls = append(calls, [2]int{done, total}) }
	}}
	res, err := x.Search(ctx, api.Query{Text: "zebrafishlinker", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != n {
		t.Fatalf("%d hits, want %d", len(res.Hits), n)
	}
	if len(calls) < 2 || calls[0] != [2]int{0, n} || calls[len(calls)-1] != [2]int{n, n} {
		t.Fatalf("progress calls %v: want (0, %d) first and (%d, %d) last", calls, n, n, n)
	}
	calls = nil
	if _, err := x.Search(ctx, api.Query{Text: "zebrafishlinker"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c[1] != 0 {
			t.Fatalf("a search with nothing to catch up told progress %v", calls)
		}
	}
}
