package home

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/testutil"
)

// TestOnFullOpensForReading fills the disk of a home: a writer's Open
// fails with memex.ErrDiskFull, unless OnFull is set, when the home opens
// for reading (OnFull called once) and what was archived reads.
func TestOnFullOpensForReading(t *testing.T) {
	disk := testutil.Tmpfs(t, 96<<20)
	dir := filepath.Join(disk, "home")
	ctx := context.Background()
	w, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := addNote(t, w, "archived before the disk filled\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	testutil.FillUp(t, disk)

	if h, err := Open(ctx, dir, Options{MustExist: true}); !errors.Is(err, memex.ErrDiskFull) {
		if err == nil {
			h.Close()
		}
		t.Fatalf("writer on a full disk: %v, want ErrDiskFull", err)
	}
	calls := 0
	h, err := Open(ctx, dir, Options{MustExist: true, OnFull: func() { calls++ }})
	if err != nil {
		t.Fatalf("writer with OnFull on a full disk: %v", err)
	}
	defer h.Close()
	if !h.Shared() || calls != 1 {
		t.Fatalf("Shared %v, OnFull called %d times: want a reader, told once", h.Shared(), calls)
	}
	if b, err := h.Store.ReadAll(ctx, id); err != nil || string(b) != "archived before the disk filled\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// TestOnFullOnlyForAFullDisk: OnFull is not called for a disk with room,
// and a missing store stays ErrNoStore.
func TestOnFullOnlyForAFullDisk(t *testing.T) {
	ctx := context.Background()
	called := func() { t.Error("OnFull called") }
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "none"), Options{MustExist: true, OnFull: called}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("missing store: %v, want ErrNoStore", err)
	}
	h, err := Open(ctx, t.TempDir(), Options{OnFull: called})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.Shared() {
		t.Error("a writer with room opened for reading")
	}
}
