package home

import (
	"context"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
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
	ro := testutil.ReadOnlyView(t, src)
	r, err := Open(ctx, ro, Options{Shared: true})
	if err != nil {
		t.Fatalf("reader on a read-only filesystem: %v", err)
	}
	defer r.Close()
	if b, err := r.Store.ReadAll(ctx, id); err != nil || string(b) != "on a read-only disk\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}
