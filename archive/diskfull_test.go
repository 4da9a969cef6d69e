package archive

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/testutil"
)

// TestPebbleMeetsAFullDisk lets Pebble itself meet the full disk (no
// free-space reserve): the ballast is given up so that the write under way
// finishes, later writes fail with memex.ErrDiskFull, the store closes
// cleanly and reopens for reading; once space is freed it opens for
// writing, makes its ballast again, and holds every acknowledged entry.
func TestPebbleMeetsAFullDisk(t *testing.T) {
	disk := testutil.Tmpfs(t, 96<<20)
	dir, bal := filepath.Join(disk, "store"), filepath.Join(disk, "ballast")
	ctx := context.Background()
	s, err := Open(dir, &Options{Ballast: bal, MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(bal); err != nil || fi.Size() != BallastSize {
		t.Fatalf("ballast: %v %v", fi, err)
	}
	acked := map[memex.ID][]byte{}
	addOne := func(body []byte) error {
		e, err := s.Add(ctx, memex.Entry{}, bytes.NewReader(body))
		if err == nil {
			acked[e.ID] = body
		}
		return err
	}
	for i := range 20 {
		if err := addOne(randomBytes(64<<10, int64(i))); err != nil {
			t.Fatal(err)
		}
	}
	f := testutil.FillUp(t, disk)
	var full error
	for i := 0; i < 200 && full == nil; i++ {
		full = addOne(randomBytes(256<<10, int64(100+i)))
	}
	if !errors.Is(full, memex.ErrDiskFull) {
		t.Fatalf("adds on a full disk: %v", full)
	}
	if _, err := os.Stat(bal); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the ballast was not given up: %v", err)
	}
	if err := addOne([]byte("still full\n")); !errors.Is(err, memex.ErrDiskFull) {
		t.Fatalf("add after the ballast went: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close on a full disk: %v", err)
	}
	testutil.FillUp(t, disk) // what the ballast left
	if _, err := Open(dir, &Options{Ballast: bal}); !errors.Is(err, memex.ErrDiskFull) {
		t.Fatalf("writable open on a full disk: %v", err)
	}
	check := func(s *Store) {
		t.Helper()
		for id, want := range acked {
			if got := readAll(t, s, id); !bytes.Equal(got, want) {
				t.Fatalf("entry %s lost or changed", id)
			}
		}
	}
	r, err := Open(dir, &Options{ReadOnly: true, Shared: true})
	if err != nil {
		t.Fatalf("read-only open on a full disk: %v", err)
	}
	check(r)
	r.Close()

	os.Remove(f)
	s, err = Open(dir, &Options{Ballast: bal, MinFree: 1 << 20})
	if err != nil {
		t.Fatalf("open after freeing space: %v", err)
	}
	defer s.Close()
	if err := addOne([]byte("room again\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bal); err != nil {
		t.Fatalf("ballast not made again: %v", err)
	}
	check(s)
	t.Logf("%d entries acknowledged, all read back", len(acked))
}
