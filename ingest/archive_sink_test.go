package ingest_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/testutil"
)

// The real archive is a Sink.
var _ ingest.Sink = (*archive.Store)(nil)

func openStore(tb testing.TB) *archive.Store {
	tb.Helper()
	s, err := archive.Open("", &archive.Options{InMemory: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestArchiveSink ingests into the real archive: bodies read back exactly,
// aliases resolve, sessions replay in time order, and a second run adds
// nothing.
func TestArchiveSink(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	opts := ingest.Options{Format: ingest.Auto, Paths: []string{"testdata"}, SettleAfter: -1}
	rep, err := ingest.Run(ctx, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added == 0 || rep.Files < 5 {
		t.Fatalf("report %+v", rep)
	}
	id, err := store.Resolve(ctx, "toolu_A", "")
	if err != nil {
		t.Fatal(err)
	}
	body, err := store.ReadAll(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "Exit code 1\n--- FAIL: TestParse (0.00s)\n    parser_test.go:12: nil map\nFAIL" {
		t.Errorf("body %q", body)
	}
	e, err := store.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if e.Summary == "" || e.Tokens == 0 || e.Exit == nil || *e.Exit != 1 || e.Input != "go test ./..." {
		t.Errorf("entry %+v", e)
	}
	if id2, err := store.Resolve(ctx, "s1#0", ""); err != nil || id2 != id {
		t.Errorf("s1#0 -> %v %v", id2, err)
	}
	var kinds []memex.Kind
	if err := store.Session(ctx, memex.SessionRef{Session: "s1"}, func(e memex.Entry) error { kinds = append(kinds, e.Kind); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(kinds) != 8 || kinds[0] != memex.KindMessage || kinds[5] != memex.KindEvent {
		t.Errorf("session s1 kinds %v", kinds)
	}
	again, err := ingest.Run(ctx, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 {
		t.Errorf("second run added %d", again.Added)
	}
	opts.Full = true
	full, err := ingest.Run(ctx, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if full.Added != 0 || full.Present != rep.Added {
		t.Errorf("full re-read: added %d present %d, want 0 and %d", full.Added, full.Present, rep.Added)
	}
}

// discard is a Sink that stores nothing, to time parsing alone.
type discard struct{ state map[string][]byte }

func (d *discard) Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	_, err := io.Copy(io.Discard, body)
	return e, err
}
func (d *discard) Lookup(ctx context.Context, alias, project string) (memex.ID, error) {
	return memex.ID{}, memex.ErrNotFound
}
func (d *discard) GetState(ctx context.Context, key string) ([]byte, error) {
	return nil, memex.ErrNotFound
}
func (d *discard) SetState(ctx context.Context, key string, value []byte) error { return nil }

func corporaBytes(b *testing.B, root string) int64 {
	var n int64
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkParseCorpora parses (and redacts) the whole corpora tree with
// auto detection, storing nothing: the cost ingest adds over archiving.
func BenchmarkParseCorpora(b *testing.B) {
	root := testutil.Corpora(b)
	b.SetBytes(corporaBytes(b, root))
	for b.Loop() {
		rep, err := ingest.Run(context.Background(), &discard{}, ingest.Options{Format: ingest.Auto, Paths: []string{root}, SettleAfter: -1})
		if err != nil || rep.Added == 0 {
			b.Fatal(err, rep.Added)
		}
	}
}

// BenchmarkIngestCorporaArchive ingests the whole corpora tree into a fresh
// on-disk archive (summaries, token counts, compression, durable adds).
func BenchmarkIngestCorporaArchive(b *testing.B) { benchArchive(b, nil) }

// BenchmarkIngestCorporaArchiveNoSync is the same without an fsync per
// entry, as a bulk import that syncs once at the end would run.
func BenchmarkIngestCorporaArchiveNoSync(b *testing.B) {
	benchArchive(b, &archive.Options{NoSync: true})
}

func benchArchive(b *testing.B, opts *archive.Options) {
	root := testutil.Corpora(b)
	b.SetBytes(corporaBytes(b, root))
	for b.Loop() {
		b.StopTimer()
		store, err := archive.Open(b.TempDir(), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := ingest.Run(context.Background(), store, ingest.Options{Format: ingest.Auto, Paths: []string{root}, SettleAfter: -1})
		if err != nil || rep.Added == 0 {
			b.Fatal(err, rep.Added)
		}
		b.StopTimer()
		store.Close()
		b.StartTimer()
	}
}
