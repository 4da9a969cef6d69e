package archive

import (
	"bytes"
	"context"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// An entry added with a Prepared body is stored as an Add of the plain body
// stores it: the same metadata, body, dedup and size on disk; an entry the
// preparation does not fit is added from the body as it is.
func TestPreparedAddStoresWhatAddStores(t *testing.T) {
	ctx := context.Background()
	exit := 1
	bodies := map[string][]byte{
		"empty":   nil,
		"inline":  []byte("ok\nFAIL pkg/x 0.2s\n"),
		"chunked": bigText(3*ChunkSize+17, 1),
		"large":   bigText(PrepareSize+1, 2),
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			plain, prep := openMem(t), openMem(t)
			at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			e := memex.Entry{Created: at, Kind: memex.KindTool, Tool: "Bash", Input: "go test ./...", Exit: &exit,
				Project: "p", Session: "s", Aliases: []string{"s#1"}}
			for i := range 2 { // the second time a duplicate body
				e.Created = at.Add(time.Duration(i) * time.Second)
				e.ID = memex.NewID(e.Created)
				want := add(t, plain, e, body)
				// Prepared on another goroutine, as ingest does.
				var p *Prepared
				var wg sync.WaitGroup
				wg.Go(func() { p = prep.Prepare(e, bytes.Clone(body)) })
				wg.Wait()
				got, err := prep.Add(ctx, e, p)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("prepared add:\n got %+v\nwant %+v", got, want)
				}
				if g, _ := prep.Get(ctx, want.ID); !reflect.DeepEqual(g, mustGet(t, plain, want.ID)) {
					t.Fatalf("stored:\n got %+v\nwant %+v", g, mustGet(t, plain, want.ID))
				}
				if !bytes.Equal(readAll(t, prep, want.ID), body) {
					t.Fatal("body differs")
				}
			}
			// Another tool: the summary is not the one prepared.
			e.ID, e.Tool = memex.NewID(at.Add(time.Hour)), "Read"
			p := prep.Prepare(memex.Entry{Kind: memex.KindTool, Tool: "Bash", Input: e.Input, Exit: &exit}, body)
			got, err := prep.Add(ctx, e, p)
			if err != nil {
				t.Fatal(err)
			}
			if want := add(t, plain, e, body); got.Summary != want.Summary || got.Hash != want.Hash {
				t.Fatalf("unfit preparation: summary %q hash %s, want %q %s", got.Summary, got.Hash, want.Summary, want.Hash)
			}
			// Prepared for an entry with a summary of its own, which
			// Prepare leaves to it: added without one, it is summarised.
			e.ID = memex.NewID(at.Add(2 * time.Hour))
			given := e
			given.Summary = "given"
			got, err = prep.Add(ctx, given, prep.Prepare(given, body))
			if err != nil || got.Summary != "given" {
				t.Fatalf("summary %q (%v), want the entry's own", got.Summary, err)
			}
			e.ID = memex.NewID(at.Add(3 * time.Hour))
			got, err = prep.Add(ctx, e, prep.Prepare(given, body))
			if err != nil {
				t.Fatal(err)
			}
			if want := add(t, plain, e, body); got.Summary != want.Summary {
				t.Fatalf("prepared with a summary, added without: summary %q, want %q", got.Summary, want.Summary)
			}
		})
	}
}

func mustGet(t *testing.T, s *Store, id memex.ID) memex.Entry {
	t.Helper()
	e, err := s.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
