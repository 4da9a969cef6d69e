package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/testutil"
)

// snapshot is every file under dir with the sha256 of its content.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	out := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// storeForReaders writes entries, some flushed to tables and the last ones
// only in the write-ahead log, and closes the store.
func storeForReaders(t *testing.T, dir string) map[memex.ID][]byte {
	t.Helper()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[memex.ID][]byte{}
	for i := range 20 {
		body := bigText(100+i*500, int64(i))
		want[add(t, s, memex.Entry{Session: "r"}, body).ID] = body
		if i == 9 {
			if err := s.db.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

func readBack(t *testing.T, s *Store, want map[memex.ID][]byte) {
	t.Helper()
	for id, body := range want {
		got, err := s.ReadAll(context.Background(), id)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("read %s: %v (%d bytes, want %d)", id, err, len(got), len(body))
		}
	}
}

// TestReadOnlyOpensShareAndWriteNothing: shared readers open the store at
// once, see what only the write-ahead log holds, and leave every file as it
// was.
func TestReadOnlyOpensShareAndWriteNothing(t *testing.T) {
	dir := t.TempDir()
	want := storeForReaders(t, dir)
	before := snapshot(t, dir)
	var readers []*Store
	for range 3 {
		s, err := Open(dir, &Options{ReadOnly: true, Shared: true})
		if err != nil {
			t.Fatalf("read-only open with %d readers open: %v", len(readers), err)
		}
		readers = append(readers, s)
	}
	for _, s := range readers {
		readBack(t, s, want)
		if _, err := s.Add(context.Background(), memex.Entry{}, bytes.NewReader([]byte("no"))); !errors.Is(err, memex.ErrInvalid) {
			t.Errorf("add to a read-only store: %v", err)
		}
	}
	for _, s := range readers {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Errorf("read-only opens changed the store's files:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}

// TestReadOnlyOpenOnReadOnlyFileSystem: a store on a read-only mount (a
// backup, a snapshot, a read-only container volume) opens shared and reads
// back; Exists finds it there.
func TestReadOnlyOpenOnReadOnlyFileSystem(t *testing.T) {
	dir := t.TempDir()
	want := storeForReaders(t, dir)
	view := testutil.ReadOnlyView(t, dir)
	if ok, err := Exists(view); !ok || err != nil {
		t.Fatalf("Exists on a read-only mount: %v, %v", ok, err)
	}
	s, err := Open(view, &Options{ReadOnly: true, Shared: true})
	if err != nil {
		t.Fatalf("read-only open on a read-only file system: %v", err)
	}
	defer s.Close()
	readBack(t, s, want)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
