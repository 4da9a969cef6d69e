package home

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A reader works on a read-only filesystem: the home is bind-mounted
// read-only (root only; skipped elsewhere).
func TestReaderOnReadOnlyFilesystem(t *testing.T) {
	ctx := context.Background()
	src := t.TempDir()
	w, err := Open(ctx, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	id := addNote(t, w, "on a read-only disk\n")
	w.Close()
	ro := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(ro, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(src, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind-mount here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(ro, 0) })
	if err := syscall.Mount("", ro, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only here: %v", err)
	}
	if err := os.WriteFile(filepath.Join(ro, "probe"), nil, 0o600); err == nil {
		t.Fatal("the mount is writable")
	}
	r, err := Open(ctx, ro, Options{Shared: true})
	if err != nil {
		t.Fatalf("reader on a read-only filesystem: %v", err)
	}
	defer r.Close()
	if b, err := r.Store.ReadAll(ctx, id); err != nil || string(b) != "on a read-only disk\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}
