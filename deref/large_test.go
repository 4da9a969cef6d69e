package deref

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
)

// withLargeBody sets the size above which bodies are read as they are
// planned, for one test.
func withLargeBody(t *testing.T, n int64) {
	old := largeBody
	largeBody = n
	t.Cleanup(func() { largeBody = old })
}

// largeFixture archives, in memory, bodies that read the same whole or as
// planned: logs with error lines, huge lines, runes cut between pieces,
// and bodies that are not valid UTF-8 early, late and at the very end.
func largeFixture(t *testing.T) (*archive.Store, []string) {
	t.Helper()
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	var log strings.Builder
	for i := 1; i <= 3000; i++ {
		switch {
		case i%700 == 0:
			fmt.Fprintf(&log, "--- FAIL: TestCase%d (0.01s): connection timeout after %d retries\n", i, i%7)
		case i%911 == 0:
			fmt.Fprintf(&log, "panic: runtime error: index out of range [%d]\n", i)
		default:
			fmt.Fprintf(&log, "line %04d of the build log: compiling package number %d\n", i, i)
		}
	}
	bodies := []string{
		log.String(),
		strings.TrimSuffix(log.String(), "\n"),
		"short\nerror here\n",
		strings.Repeat("a long single line with an error in the middle ", 4000),
		strings.Repeat("x", 200<<10) + "\nFAIL: the end\n",
		"línea con acentos é è\n" + strings.Repeat("ünïcödé ", 3000) + "\n",
		// Not valid UTF-8, early, late and cut at the very end: the note
		// both ways; runes cut where a long line is read in pieces are
		// valid text both ways.
		"ok\n\xff\xfe binary\n" + log.String(),
		log.String() + "\x00\x01\x80\n",
		strings.Repeat("é", 40000) + "\xc3",
		strings.Repeat("é", 40000) + "\n" + strings.Repeat("x日本", 30000) + "\n",
	}
	var ids []string
	for _, b := range bodies {
		e, err := s.Add(ctx, memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "go test"}, strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID.String())
	}
	return s, ids
}

// TestLargeReadPlansAsWhole: reading a body as it is planned (the way of
// large entries) gives the same deref, byte for byte, as reading it whole.
func TestLargeReadPlansAsWhole(t *testing.T) {
	s, ids := largeFixture(t)
	ctx := context.Background()
	r := New(s)
	for _, budget := range []int{120, 2000, 9000} {
		for _, q := range []string{"", "timeout", "compiling 2999"} {
			for i := range ids {
				for _, refs := range [][]string{{ids[i]}, {ids[i], ids[(i+1)%len(ids)]}} {
					withLargeBody(t, 1<<62)
					want, werr := r.Deref(ctx, refs, Options{Budget: budget, Query: q})
					withLargeBody(t, 0)
					got, gerr := r.Deref(ctx, refs, Options{Budget: budget, Query: q})
					if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
						t.Fatalf("body %d, budget %d, query %q: errors %v and %v", i, budget, q, werr, gerr)
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("body %d, budget %d, query %q: read as planned:\n%s\nread whole:\n%s", i, budget, q, got.Text, want.Text)
					}
				}
			}
		}
	}
}

// TestLargeEntryMemory: a budgeted read of a large entry allocates a small
// fraction of the entry's size (its line index and the pages it shows), not
// the entry.
func TestLargeEntryMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("archives a 64 MiB entry")
	}
	s, err := archive.Open(t.TempDir(), &archive.Options{NoSync: true, MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	const size = 64 << 20
	var b strings.Builder
	b.Grow(size + 200)
	for i := 0; b.Len() < size; i++ {
		if i%100000 == 99999 {
			fmt.Fprintf(&b, "ERROR: needle %d not found in the haystack of this long synthetic log\n", i)
			continue
		}
		fmt.Fprintf(&b, "line %08d of a large synthetic build log, compiling package %d of many\n", i, i)
	}
	e, err := s.Add(ctx, memex.Entry{Kind: memex.KindTool}, strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	b = strings.Builder{}
	r := New(s)
	measure := func(name string, f func() error) uint64 {
		t.Helper()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := f(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		runtime.ReadMemStats(&after)
		n := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s of a %d MiB entry: %.1f MiB allocated", name, e.Bytes>>20, float64(n)/(1<<20))
		return n
	}
	var res Result
	for name, f := range map[string]func() error{
		"deref --budget 2000 --query needle": func() (err error) {
			res, err = r.Deref(ctx, []string{e.ID.String()}, Options{Budget: 2000, Query: "needle"})
			return err
		},
		"show --budget 2000": func() error {
			_, _, err := r.Show(ctx, e.ID.String(), 2000, "")
			return err
		},
	} {
		// A quarter of the entry; half under the race detector, whose
		// own bookkeeping counts as allocation (17 MiB against 13 without).
		limit := uint64(e.Bytes) / 4
		if raceEnabled {
			limit = uint64(e.Bytes) / 2
		}
		if n := measure(name, f); n > limit {
			t.Errorf("%s allocated %d bytes for an entry of %d", name, n, e.Bytes)
		}
	}
	if !strings.Contains(res.Text, "needle 99999 not found") || res.Used > 2000 {
		t.Fatalf("deref of the large entry: used %d\n%s", res.Used, res.Text)
	}
}

// TestLargeBase64AsWhole: a binary entry read as base64 gives the same
// deref whether its body is read whole or as a large one (only the head a
// budget can show is read then).
func TestLargeBase64AsWhole(t *testing.T) {
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var ids []string
	for _, b := range []string{"\xff" + strings.Repeat("\x00\x01binary", 3000), "\x80\n", strings.Repeat("text\n", 500) + "\xfe"} {
		e, err := s.Add(ctx, memex.Entry{Kind: memex.KindTool, Tool: "cat"}, strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID.String())
	}
	r := New(s)
	for _, budget := range []int{400, 2000, 30000} {
		for _, brief := range []bool{false, true} {
			opts := Options{Budget: budget, Base64: true, Brief: brief}
			withLargeBody(t, 1<<62)
			want, werr := r.Deref(ctx, ids, opts)
			withLargeBody(t, 0)
			got, gerr := r.Deref(ctx, ids, opts)
			if werr != nil || gerr != nil {
				t.Fatalf("budget %d: errors %v and %v", budget, werr, gerr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("budget %d: read as planned:\n%s\nread whole:\n%s", budget, got.Text, want.Text)
			}
			for _, it := range got.Items {
				if it.Encoding != "base64" {
					t.Fatalf("budget %d: item %+v", budget, it)
				}
			}
		}
	}
}

// TestLargeBriefAsWhole: a brief deref of a large entry, text or binary,
// has the brief header (the ID alone) and markers without the show
// command, as the same entry read whole has.
func TestLargeBriefAsWhole(t *testing.T) {
	s, ids := largeFixture(t)
	ctx := context.Background()
	r := New(s)
	for _, budget := range []int{120, 2000} {
		for i := range ids {
			opts := Options{Budget: budget, Query: "timeout", Brief: true}
			withLargeBody(t, 1<<62)
			want, werr := r.Deref(ctx, ids[i:i+1], opts)
			withLargeBody(t, 0)
			got, gerr := r.Deref(ctx, ids[i:i+1], opts)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("body %d, budget %d: errors %v and %v", i, budget, werr, gerr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("body %d, budget %d: read as planned:\n%s\nread whole:\n%s", i, budget, got.Text, want.Text)
			}
		}
	}
}
