package catchup

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
)

var (
	_ Store   = (*archive.Store)(nil)
	_ Deleter = (*archive.Store)(nil)
)

var ctx = context.Background()

// home is an archive and an index on disk, opened the way cmd/memex does.
type home struct {
	dir string
	s   *archive.Store
	ix  *index.Index
}

func openHome(t *testing.T, dir string) *home {
	t.Helper()
	s, err := archive.Open(filepath.Join(dir, "store"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.Open(filepath.Join(dir, "index"), &index.Options{Content: s.Body, Entry: s.Get})
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	h := &home{dir: dir, s: s, ix: ix}
	t.Cleanup(h.close)
	return h
}

func (h *home) close() {
	h.ix.Close()
	h.s.Close()
}

var docs = []struct{ tool, input, body string }{
	{"bash", "go test ./auth/...", "--- FAIL: TestLogin\npanic: assignment to entry in nil map\nFAIL\n"},
	{"Read", "internal/config/loader.go", "func parseConfigFile(path string) (*Config, error) {\n"},
	{"bash", "grep -rn load_user_settings src/", "src/settings.py:88:def load_user_settings(path):\n"},
	{"Edit", "auth/middleware.go", "--- a/auth/middleware.go\n+++ b/auth/middleware.go\n+\tif token == \"\" {\n"},
	{"bash", "python -m pytest -q", "12 passed in 0.31s\n"},
}

// add archives n entries cycling through docs, in two sessions.
func (h *home) add(t *testing.T, n int) []memex.ID {
	t.Helper()
	var ids []memex.ID
	base := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		d := docs[i%len(docs)]
		e, err := h.s.Add(ctx, memex.Entry{
			Project: "p", Session: fmt.Sprintf("s%d", i%2), Agent: "cli", Kind: memex.KindTool,
			Tool: d.tool, Input: d.input, Created: base.Add(time.Duration(i) * time.Second),
		}, strings.NewReader(fmt.Sprintf("%s(run %d)\n", d.body, i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	return ids
}

func (h *home) pending(t *testing.T) int {
	t.Helper()
	n := 0
	if err := h.s.Pending(ctx, func(memex.ID) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

func (h *home) search(t *testing.T, q string) []memex.ID {
	t.Helper()
	res, err := h.ix.Search(ctx, index.Query{Text: q, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []memex.ID
	for _, hit := range res.Hits {
		out = append(out, hit.ID)
	}
	return out
}

func TestCatchUpIndexesPendingAndClearsMarkers(t *testing.T) {
	h := openHome(t, t.TempDir())
	ids := h.add(t, 10)
	if got := h.pending(t); got != 10 {
		t.Fatalf("pending after add = %d", got)
	}
	if got := h.search(t, "nil map"); len(got) != 0 {
		t.Fatalf("found before catch-up: %v", got)
	}
	st, err := CatchUp(ctx, h.s, h.ix)
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != 10 || h.pending(t) != 0 {
		t.Fatalf("stats %+v, pending %d", st, h.pending(t))
	}
	if got := h.search(t, `"nil map"`); !reflect.DeepEqual(got, []memex.ID{ids[5], ids[0]}) {
		t.Fatalf("nil map = %v, want %v", got, []memex.ID{ids[5], ids[0]})
	}
	// Nothing pending: nothing to do.
	if st, err := CatchUp(ctx, h.s, h.ix); err != nil || st.Indexed != 0 {
		t.Fatalf("second catch-up: %+v %v", st, err)
	}
}

func TestCrashThenCatchUp(t *testing.T) {
	dir := t.TempDir()
	h := openHome(t, dir)
	ids := h.add(t, 6)
	// Crash after indexing some entries but before clearing their markers:
	// index two of them directly, leave all markers, close without more.
	for _, id := range ids[:2] {
		e, err := h.s.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := h.s.ReadAll(ctx, id)
		if err := h.ix.Add(ctx, index.Doc{Entry: e, Content: body}); err != nil {
			t.Fatal(err)
		}
	}
	h.close()

	h = openHome(t, dir)
	if got := h.pending(t); got != 6 {
		t.Fatalf("markers after reopen = %d, want 6", got)
	}
	if n, _ := h.ix.Count(); n != 2 {
		t.Fatalf("indexed after reopen = %d, want 2", n)
	}
	st, err := CatchUp(ctx, h.s, h.ix)
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != 6 || h.pending(t) != 0 {
		t.Fatalf("catch-up %+v, pending %d", st, h.pending(t))
	}
	if n, _ := h.ix.Count(); n != 6 {
		t.Fatalf("indexed = %d, want 6 (no duplicates)", n)
	}
	if got := h.search(t, "parse config"); !reflect.DeepEqual(got, []memex.ID{ids[1]}) {
		t.Fatalf("parse config = %v", got)
	}
	h.close()

	// The catch-up itself survives a reopen.
	h = openHome(t, dir)
	if n, _ := h.ix.Count(); n != 6 || h.pending(t) != 0 {
		t.Fatalf("after second reopen: indexed %d, pending %d", n, h.pending(t))
	}
}

func TestReindexEquivalence(t *testing.T) {
	h := openHome(t, t.TempDir())
	h.add(t, 40)
	if _, err := CatchUp(ctx, h.s, h.ix); err != nil {
		t.Fatal(err)
	}
	queries := []string{"nil map", `"nil map"`, "parse config", "auth/middleware.go", "load_user_settings",
		"pytest passed", "tool:bash run", "session:s1 go", "path:settings.py", "fail"}
	type hit struct {
		id    memex.ID
		score string
	}
	results := func() [][]hit {
		var all [][]hit
		for _, q := range queries {
			res, err := h.ix.Search(ctx, index.Query{Text: q, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var hs []hit
			for _, x := range res.Hits {
				hs = append(hs, hit{x.ID, fmt.Sprintf("%.6f", x.Score)})
			}
			all = append(all, hs)
		}
		return all
	}
	before := results()
	var calls [][2]int
	st, err := Reindex(ctx, h.s, h.ix, func(done, total int) { calls = append(calls, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != 40 || len(calls) < 2 || calls[len(calls)-1] != [2]int{40, 40} {
		t.Fatalf("reindex %+v, progress %v", st, calls)
	}
	after := results()
	for i := range queries {
		if !reflect.DeepEqual(before[i], after[i]) {
			t.Errorf("%q: before %v\nafter %v", queries[i], before[i], after[i])
		}
		if len(before[i]) == 0 {
			t.Errorf("%q found nothing", queries[i])
		}
	}
}

func TestReindexDropsStaleRows(t *testing.T) {
	h := openHome(t, t.TempDir())
	ids := h.add(t, 5)
	if _, err := CatchUp(ctx, h.s, h.ix); err != nil {
		t.Fatal(err)
	}
	// A stale row: an entry the archive no longer has.
	if err := h.s.Delete(ctx, ids[0]); err != nil {
		t.Fatal(err)
	}
	if _, err := Reindex(ctx, h.s, h.ix, nil); err != nil {
		t.Fatal(err)
	}
	if has, _ := h.ix.Has(ids[0]); has {
		t.Fatal("stale row survived reindex")
	}
	if n, _ := h.ix.Count(); n != 4 {
		t.Fatalf("count = %d", n)
	}
}

func TestForget(t *testing.T) {
	h := openHome(t, t.TempDir())
	ids := h.add(t, 5)
	if _, err := CatchUp(ctx, h.s, h.ix); err != nil {
		t.Fatal(err)
	}
	if err := Forget(ctx, h.s, h.ix, ids[0]); err != nil {
		t.Fatal(err)
	}
	if got := h.search(t, "nil map"); len(got) != 0 {
		t.Fatalf("forgotten entry found: %v", got)
	}
	if _, err := h.s.Get(ctx, ids[0]); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("forgotten entry still archived: %v", err)
	}
	err := Forget(ctx, h.s, h.ix, ids[1], memex.NewID(time.Now()))
	if !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("forget unknown: %v", err)
	}
	if has, _ := h.ix.Has(ids[1]); has {
		t.Fatal("known entry not forgotten beside an unknown one")
	}
}

func TestFollow(t *testing.T) {
	h := openHome(t, t.TempDir())
	fctx, cancel := context.WithCancel(ctx)
	// Follow must have returned before the store and the index close:
	// cleanups run last registered first, so this one runs before
	// openHome's. (A round still running when they closed made Pebble
	// panic with "pebble: closed".)
	followed := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-followed
	})
	rounds := make(chan Stats)
	go func() {
		defer close(followed)
		Follow(fctx, h.s, h.ix, FollowOptions{
			Interval: time.Millisecond,
			OnError:  func(err error) { t.Error(err) },
			OnRound: func(st Stats) {
				select {
				case rounds <- st:
				case <-fctx.Done():
				}
			},
		})
	}()
	<-rounds
	ids := h.add(t, 3)
	indexed := 0
	for indexed < 3 {
		indexed += (<-rounds).Indexed
	}
	if has, _ := h.ix.Has(ids[2]); !has {
		t.Fatal("Follow did not index the new entry")
	}
	if got := h.search(t, "pytest"); len(got) != 0 {
		t.Fatalf("pytest = %v", got)
	}
	if got := h.search(t, "parse config"); len(got) != 1 {
		t.Fatalf("parse config = %v", got)
	}
}

func TestChunksBoundEntriesAndBytes(t *testing.T) {
	var parts [][]memex.Entry
	var c chunker
	for i := 0; i < 3*chunkEntries; i++ {
		e := memex.Entry{Bytes: 10, Session: strconv.Itoa(i)}
		if i >= 2*chunkEntries {
			e.Bytes = 1 << 30 // counted as index.ContentLimit
		}
		if p := c.add(e); p != nil {
			parts = append(parts, p)
		}
	}
	if p := c.flush(); p != nil {
		parts = append(parts, p)
	}
	n := 0
	for _, p := range parts {
		if len(p) == 0 || len(p) > chunkEntries {
			t.Fatalf("chunk of %d entries", len(p))
		}
		if p[0].Session != strconv.Itoa(n) {
			t.Fatalf("chunk starts at entry %s, not %d", p[0].Session, n)
		}
		n += len(p)
	}
	if n != 3*chunkEntries {
		t.Fatalf("chunks cover %d of %d entries", n, 3*chunkEntries)
	}
	// Small bodies: full chunks; bodies at the content limit: chunkBytes.
	if len(parts[0]) != chunkEntries || len(parts[len(parts)-1]) > chunkBytes/index.ContentLimit+1 {
		t.Fatalf("chunk sizes %d ... %d", len(parts[0]), len(parts[len(parts)-1]))
	}
	if c.flush() != nil {
		t.Fatal("chunk of nothing")
	}
}

// TestCompactAfterBulk: a catch-up that indexed a full chunk and at least
// a quarter of the index merges the index into one segment; a smaller one
// leaves bleve's segments as they are.
func TestCompactAfterBulk(t *testing.T) {
	ix, err := index.Open(filepath.Join(t.TempDir(), "index"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	base := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	const adds, per = 17, 1000 // more than 4 chunks' worth, one segment per Add
	for a := 0; a < adds; a++ {
		var part []index.Doc
		for i := 0; i < per; i++ {
			created := base.Add(time.Duration(a*per+i) * time.Millisecond)
			part = append(part, index.Doc{Entry: memex.Entry{ID: memex.NewID(created), Kind: memex.KindNote,
				Created: created, Summary: fmt.Sprintf("note %d", a*per+i)}, Content: []byte("bulk")})
		}
		if err := ix.Add(ctx, part...); err != nil {
			t.Fatal(err)
		}
	}
	segments := func() int {
		n, err := ix.Segments()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, indexed := range []int{chunkEntries - 1, chunkEntries} { // too few; under a quarter of 17,000
		if err := compactAfterBulk(ctx, ix, indexed); err != nil {
			t.Fatal(err)
		}
		if n := segments(); n < 2 {
			t.Fatalf("after a catch-up of %d entries: %d segment(s), want the index left unmerged", indexed, n)
		}
	}
	if err := compactAfterBulk(ctx, ix, adds*per/4+1); err != nil {
		t.Fatal(err)
	}
	if n := segments(); n != 1 {
		t.Fatalf("after a catch-up of a quarter of the index: %d segments, want 1", n)
	}
	if n, _ := ix.Count(); n != adds*per {
		t.Fatalf("count = %d", n)
	}
}
