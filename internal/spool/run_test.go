package spool

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// A run's spool: listed as running while open, its entry rewritten by
// Finish, left for the next drain by Close, removed by Done.
func TestRunSpoolLifecycle(t *testing.T) {
	dir := t.TempDir()
	e := memex.Entry{ID: memex.NewID(time.Now()), Tool: "run", Input: "make"}
	r, err := StartRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Save(&e); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(r, "building\n"); err != nil {
		t.Fatal(err)
	}
	items, err := List(dir)
	if err != nil || len(items) != 1 || items[0].Output != r.Path() || items[0].Item.Entry.Exit != nil || !items[0].Running() {
		t.Fatalf("while the run writes: %+v, %v", items, err)
	}
	if fi, err := os.Stat(r.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("output mode: %v, %v", fi, err)
	}
	e.Exit = memex.IntPtr(2)
	out, err := r.Finish(&e)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(out); err != nil || string(b) != "building\n" {
		t.Fatalf("Finish reads %q, %v", b, err)
	}
	r.Close()
	r.Close()
	items, err = List(dir)
	if err != nil || len(items) != 1 || items[0].Running() || items[0].Item.Entry.Exit == nil || *items[0].Item.Entry.Exit != 2 {
		t.Fatalf("after Close, the next drain's: %+v, %v", items, err)
	}

	r2, err := StartRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r2.Save(&memex.Entry{ID: memex.NewID(time.Now()), Tool: "run"}); err != nil {
		t.Fatal(err)
	}
	r2.Done()
	r2.Close()
	if left, _ := filepath.Glob(filepath.Join(dir, Dir, "*")); len(left) != 2 {
		t.Fatalf("after Done, the spool holds %v; want the first run's two files only", left)
	}
}
