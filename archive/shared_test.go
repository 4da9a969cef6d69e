package archive

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// Pebble's own directory lock is exclusive even for a read-only open: with
// Shared, readers that hold a lock of their own open the store side by
// side; without it, the second reader is refused.
func TestSharedReadOnlyOpensSideBySide(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Add(context.Background(), memex.Entry{Kind: memex.KindNote}, strings.NewReader("kept\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	locked, err := Open(dir, &Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer locked.Close()
	if _, err := Open(dir, &Options{ReadOnly: true}); err == nil {
		t.Fatal("a second read-only open took Pebble's lock too; the test no longer shows what Shared leaves out")
	}
	var readers []*Store
	for range 3 {
		r, err := Open(dir, &Options{ReadOnly: true, Shared: true})
		if err != nil {
			t.Fatalf("shared reader %d: %v", len(readers), err)
		}
		readers = append(readers, r)
	}
	for _, r := range readers {
		b, err := r.ReadAll(context.Background(), e.ID)
		if err != nil || string(b) != "kept\n" {
			t.Fatalf("read %q, %v", b, err)
		}
	}
	for _, r := range readers {
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadOnlyOpenOfNoStoreIsNotFound(t *testing.T) {
	for _, dir := range []string{filepath.Join(t.TempDir(), "missing"), t.TempDir()} {
		_, err := Open(dir, &Options{ReadOnly: true, Shared: true})
		if !errors.Is(err, memex.ErrNotFound) {
			t.Errorf("read-only open of %s: %v, want ErrNotFound", dir, err)
		}
		if ok, err := Exists(dir); ok || err != nil {
			t.Errorf("Exists(%s) = %v, %v", dir, ok, err)
		}
	}
	empty := t.TempDir()
	Open(empty, &Options{ReadOnly: true})
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("a read-only open created %v", ents)
	}
}
