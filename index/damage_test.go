package index

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// buildIndex writes an on-disk index of n entries, merged into one
// segment, and closes it.
func buildIndex(t *testing.T, dir string, n int) {
	t.Helper()
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var docs []Doc
	for i := range n {
		e := memex.Entry{ID: memex.NewID(t0.Add(time.Duration(i) * time.Second)), Kind: memex.KindTool, Tool: "bash",
			Input: "go test ./pkg" + string(rune('a'+i%26)), Summary: "go test: 1 failed", Project: "p", Session: "s"}
		docs = append(docs, Doc{Entry: e, Content: []byte(strings.Repeat("--- FAIL: TestParse nil map dereference\n", 20+i%7))})
	}
	if err := ix.Add(context.Background(), docs...); err != nil {
		t.Fatal(err)
	}
	if err := ix.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedIndexIsDroppedNotAPanic: an index file that bleve cannot
// read (an offset in a segment's footer flipped made it panic; a truncated segment or metadata made every command fail) is
// dropped with one line saying so, and Open returns an empty index to
// rebuild; read-only, it is an error wrapping memex.ErrCorrupt.
func TestDamagedIndexIsDroppedNotAPanic(t *testing.T) {
	damages := map[string]func(t *testing.T, dir string){
		"segment offset flipped": func(t *testing.T, dir string) {
			damageFooter(t, onlyFile(t, dir, "*.zap"))
		},
		"segment truncated": func(t *testing.T, dir string) {
			os.Truncate(onlyFile(t, dir, "*.zap"), 100)
		},
		"metadata garbage": func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte("{"), 0o600)
		},
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "index")
			buildIndex(t, dir, 300)
			damage(t, dir)
			// Read-only, on a copy: bleve may leave the files of an index
			// it panicked on open in this process.
			if _, err := Open(copyIndex(t, dir), &Options{ReadOnly: true}); !errors.Is(err, memex.ErrCorrupt) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("read-only open of a damaged index: %v, want one line wrapping ErrCorrupt", err)
			}
			var log bytes.Buffer
			ix, err := Open(dir, &Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatalf("open of a damaged index: %v", err)
			}
			defer ix.Close()
			if !errors.Is(ix.Recovered(), memex.ErrCorrupt) {
				t.Errorf("Recovered = %v", ix.Recovered())
			}
			if lines := strings.Count(log.String(), "\n"); lines != 1 || !strings.Contains(log.String(), "rebuilt from the archive") {
				t.Errorf("log: %q, want one line saying the index is rebuilt", log.String())
			}
			if n, err := ix.Count(); err != nil || n != 0 {
				t.Errorf("the new index holds %d entries, %v", n, err)
			}
			if _, err := ix.Search(context.Background(), Query{Text: "nil map"}); err != nil {
				t.Errorf("search of the new index: %v", err)
			}
		})
	}
}

func TestReadOnlyIndexRefusesWrites(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	buildIndex(t, dir, 10)
	ix, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, _ := ix.Count(); n != 10 {
		t.Fatalf("read-only count %d", n)
	}
	if err := ix.Reset(); !errors.Is(err, memex.ErrInvalid) {
		t.Errorf("reset of a read-only index: %v", err)
	}
	if err := ix.Add(context.Background(), Doc{Entry: memex.Entry{ID: memex.NewID(t0)}}); !errors.Is(err, memex.ErrInvalid) {
		t.Errorf("add to a read-only index: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none"), &Options{ReadOnly: true}); !errors.Is(err, memex.ErrNotFound) {
		t.Errorf("read-only open of no index: %v", err)
	}
}

// damageFooter flips the bytes of the sections index offset in the footer
// of the segment file at p (zap: crc, version and chunk mode are its last
// 12 bytes, the offset the 8 before them), as a bad sector would.
func damageFooter(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) - 20; i < len(b)-12; i++ {
		b[i] ^= 0xff
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func onlyFile(t *testing.T, dir, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "store", pattern))
	if len(m) != 1 {
		t.Fatalf("want one %s in %s, found %v", pattern, dir, m)
	}
	return m[0]
}

// copyIndex copies the index in dir to a new directory.
func copyIndex(t *testing.T, dir string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "index")
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}
