package catchup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
)

var _ FeedStore = (*archive.Store)(nil)

// feed archives n entries as an import does and hands each to f.
func (h *home) feed(t *testing.T, f *Feeder, n int, body func(i int) []byte) []memex.ID {
	t.Helper()
	var ids []memex.ID
	base := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		b := body(i)
		e, err := h.s.Add(ctx, memex.Entry{Project: "p", Session: "s", Agent: "cli", Kind: memex.KindTool,
			Tool: "bash", Input: fmt.Sprintf("make step%d", i), Created: base.Add(time.Duration(i) * time.Millisecond)}, bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		f.Add(e, b)
		ids = append(ids, e.ID)
	}
	return ids
}

func TestFeederIndexesWhatIsArchivedAndClearsMarkers(t *testing.T) {
	h := openHome(t, t.TempDir())
	f := NewFeeder(ctx, h.s, h.ix)
	// More than one chunk, and a body longer than ExcerptHead whose end
	// (the tail the index keeps) holds the word searched for.
	n := feedEntries + 10
	ids := h.feed(t, f, n, func(i int) []byte {
		if i == 7 {
			return []byte(strings.Repeat("compiling module\n", 20000) + "fatal: zebrafish linker\n")
		}
		return []byte(fmt.Sprintf("step %d ok\nword%d\n", i, i))
	})
	st, err := f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if st.Indexed != n || h.pending(t) != 0 {
		t.Fatalf("indexed %d of %d, %d markers left", st.Indexed, n, h.pending(t))
	}
	if got := h.search(t, "zebrafish"); len(got) != 1 || got[0] != ids[7] {
		t.Fatalf("zebrafish = %v, want %v", got, ids[7])
	}
	if got := h.search(t, fmt.Sprintf("word%d", n-1)); len(got) != 1 || got[0] != ids[n-1] {
		t.Fatalf("last entry = %v, want %v", got, ids[n-1])
	}
	// Nothing left for a catch-up.
	if st, err := CatchUp(ctx, h.s, h.ix); err != nil || st.Indexed != 0 {
		t.Fatalf("catch-up after feed: %+v %v", st, err)
	}
}

// failingSync is an archive whose sync fails: the feeder must index
// nothing (the archive might lose what it would index) and keep every
// marker.
type failingSync struct{ *archive.Store }

func (failingSync) Sync() error { return errors.New("disk gone") }

func TestFeederKeepsMarkersWhenItFails(t *testing.T) {
	h := openHome(t, t.TempDir())
	f := NewFeeder(ctx, failingSync{h.s}, h.ix)
	n := 2*feedEntries + 5
	h.feed(t, f, n, func(i int) []byte { return []byte(fmt.Sprintf("line %d\n", i)) })
	if _, err := f.Close(); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Fatalf("Close = %v, want the sync error", err)
	}
	if got := h.pending(t); got != n {
		t.Fatalf("%d markers left, want %d", got, n)
	}
	if c, _ := h.ix.Count(); c != 0 {
		t.Fatalf("index holds %d entries", c)
	}
	// The next catch-up indexes them.
	if st, err := CatchUp(ctx, h.s, h.ix); err != nil || st.Indexed != n {
		t.Fatalf("catch-up: %+v %v", st, err)
	}
}

func TestFeederStopsWithItsContext(t *testing.T) {
	h := openHome(t, t.TempDir())
	cctx, cancel := context.WithCancel(ctx)
	f := NewFeeder(cctx, h.s, h.ix)
	cancel()
	h.feed(t, f, feedEntries+1, func(i int) []byte { return []byte("x\n") })
	if _, err := f.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want context.Canceled", err)
	}
}
