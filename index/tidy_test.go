package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/memex-archive/memex"
	bolt "go.etcd.io/bbolt"
)

// noPurge is a scorch event callback that keeps scorch from removing old
// snapshots and segment files itself: its persister asks it before each
// cleanup, which it does whenever it is idle. It stands for an index
// closed before such a moment came, on every run.
const noPurge = "memex.test.no-purge"

func init() {
	scorch.RegistryEventCallbacks[noPurge] = func(e scorch.Event) bool { return e.Kind != scorch.EventKindPurgerCheck }
}

// withoutPurge makes the indexes that the test opens use noPurge.
func withoutPurge(t *testing.T) {
	scorchEvents = noPurge
	t.Cleanup(func() { scorchEvents = "" })
}

// openWithoutPurge opens a new index (noPurge) in a temporary directory,
// closed at the end of the test.
func openWithoutPurge(t *testing.T) (string, *Index) {
	t.Helper()
	withoutPurge(t)
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return dir, ix
}

// boltSnapshots reads the root.bolt of the closed index in dir as scorch
// wrote it: the segment files that each snapshot names, oldest first.
func boltSnapshots(t *testing.T, dir string) [][]string {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, "store", "root.bolt"), 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var snaps [][]string
	err = db.View(func(tx *bolt.Tx) error {
		s := tx.Bucket([]byte{'s'}) // scorch's snapshots
		if s == nil {
			return nil
		}
		return s.ForEachBucket(func(k []byte) error {
			snap := s.Bucket(k)
			files := []string{}
			err := snap.ForEachBucket(func(sk []byte) error {
				if p := snap.Bucket(sk).Get([]byte{'p'}); p != nil { // a segment's path
					files = append(files, string(p))
				}
				return nil
			})
			snaps = append(snaps, files)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return snaps
}

// zapFiles returns the names of the segment files in the index in dir.
func zapFiles(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	slices.Sort(names)
	return names
}

// onlyLastSnapshot fails unless root.bolt of the closed index in dir holds
// one snapshot and the directory exactly the segment files it names.
func onlyLastSnapshot(t *testing.T, dir string) {
	t.Helper()
	snaps := boltSnapshots(t, dir)
	files := zapFiles(t, dir)
	if len(snaps) != 1 {
		t.Fatalf("root.bolt holds %d snapshots, want 1; segment files on disk: %v", len(snaps), files)
	}
	named := slices.Sorted(slices.Values(snaps[0]))
	if !slices.Equal(files, named) {
		t.Fatalf("segment files on disk %v, the snapshot names %v", files, named)
	}
}

// addInBatches adds n notes, ten per call (a segment each), and returns
// them.
func addInBatches(t *testing.T, ix *Index, n int) []Doc {
	t.Helper()
	var all []Doc
	for i := 0; i < n; i += 10 {
		var docs []Doc
		for j := i; j < min(i+10, n); j++ {
			docs = append(docs, Doc{Entry: memex.Entry{ID: memex.NewID(t0.Add(time.Duration(j) * time.Second)), Kind: "note"},
				Content: fmt.Appendf(nil, "ordinary words w%d in batch b%d", j, i/10)})
		}
		if err := ix.Add(context.Background(), docs...); err != nil {
			t.Fatal(err)
		}
		all = append(all, docs...)
	}
	return all
}

// reopenHolds reopens the index in dir and checks that it holds n
// documents and finds one of them.
func reopenHolds(t *testing.T, dir string, n int) {
	t.Helper()
	ix, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if c, err := ix.Count(); err != nil || c != uint64(n) {
		t.Fatalf("reopened: %d documents (%v), want %d", c, err, n)
	}
	res, err := ix.Search(context.Background(), Query{Text: "w7"})
	if err != nil || res.Total < 1 {
		t.Fatalf("reopened: search w7: %d hits, %v", res.Total, err)
	}
}

// TestCloseLeavesOnlyTheLastSnapshot: an import merges segments (in the
// background, then Compact into one), and scorch removes the files of the
// segments merged away only when its persister is next idle, which a
// process that closes the index soon after does not wait for. After Close
// the index directory holds the files of its last snapshot and no other,
// and root.bolt that snapshot alone; the index opens and holds everything.
func TestCloseLeavesOnlyTheLastSnapshot(t *testing.T) {
	dir, ix := openWithoutPurge(t)
	docs := addInBatches(t, ix, 300)
	if err := ix.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if stale, err := ix.staleSegments(); err != nil || stale == 0 {
		t.Fatalf("%d segment files merged away on disk before Close (%v): the test shows nothing", stale, err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	onlyLastSnapshot(t, dir)
	if n := len(zapFiles(t, dir)); n != 1 {
		t.Errorf("%d segment files after Compact and Close, want 1", n)
	}
	reopenHolds(t, dir, len(docs))
}

// TestRebuildLeavesOnlyTheLastSnapshot: after a rebuild (Reset, Add,
// Compact, as memex reindex does) and Close, the segments of the load are
// gone from the disk.
func TestRebuildLeavesOnlyTheLastSnapshot(t *testing.T) {
	dir, ix := openWithoutPurge(t)
	if err := ix.Reset(); err != nil {
		t.Fatal(err)
	}
	docs := addInBatches(t, ix, 200)
	if n := len(zapFiles(t, dir)); n < 2 {
		t.Fatalf("%d segment files after the load: the test shows nothing", n)
	}
	if err := ix.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if files := zapFiles(t, dir); len(files) != 1 {
		t.Errorf("segment files after Compact and Close: %v, want 1", files)
	}
	onlyLastSnapshot(t, dir)
	reopenHolds(t, dir, len(docs))
}

// TestTidyLeavesAnIndexOpenElsewhere: tidy removes nothing of an index
// that is open (here read-only, as memex verify opens it): it cannot take
// root.bolt's lock. Closed, the index is tidied.
func TestTidyLeavesAnIndexOpenElsewhere(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	docs := addInBatches(t, ix, 20)
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	// A segment file that no snapshot names, as a merge that was not
	// introduced leaves one.
	files := zapFiles(t, dir)
	if len(files) == 0 {
		t.Fatal("no segment file")
	}
	extra := filepath.Join(dir, "store", "ffffffffffff.zap")
	if b, err := os.ReadFile(filepath.Join(dir, "store", files[0])); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(extra, b, 0o600); err != nil {
		t.Fatal(err)
	}

	ro, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tidy(filepath.Join(dir, "store")); err != nil || n != 0 {
		t.Errorf("tidy of an index open read-only: %d files removed, %v", n, err)
	}
	if _, err := os.Stat(extra); err != nil {
		t.Errorf("tidy of an index open read-only removed a file: %v", err)
	}
	if c, err := ro.Count(); err != nil || c != uint64(len(docs)) {
		t.Errorf("the index open read-only holds %d documents (%v), want %d", c, err, len(docs))
	}
	if err := ro.Close(); err != nil { // read-only: Close tidies nothing
		t.Fatal(err)
	}
	if _, err := os.Stat(extra); err != nil {
		t.Errorf("closing a read-only index removed a file: %v", err)
	}
	if n, err := tidy(filepath.Join(dir, "store")); err != nil || n != 1 {
		t.Errorf("tidy of the closed index: %d files removed, %v; want the one no snapshot names", n, err)
	}
	onlyLastSnapshot(t, dir)
	reopenHolds(t, dir, len(docs))
}
