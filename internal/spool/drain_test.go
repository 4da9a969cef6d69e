package spool

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// recorder is a Drainer that records its calls; archived names the entries
// (by session) the archive holds already.
type recorder struct {
	added    []string // session: body
	ingested []string
	logged   []string
	archived map[string]bool
	failAdd  error
}

func (r *recorder) drainer() Drainer {
	return Drainer{
		Archived: func(_ context.Context, e memex.Entry) (bool, error) { return r.archived[e.Session], nil },
		Add: func(_ context.Context, e memex.Entry, body io.Reader) error {
			if r.failAdd != nil {
				return r.failAdd
			}
			b, _ := io.ReadAll(body)
			r.added = append(r.added, e.Session+": "+string(b))
			return nil
		},
		Ingest: func(_ context.Context, format, path string) error {
			r.ingested = append(r.ingested, format+" "+path)
			if strings.HasSuffix(path, "missing") {
				return errors.New("no such file")
			}
			return nil
		},
		Log: func(p string, err error) { r.logged = append(r.logged, filepath.Base(p)+": "+err.Error()) },
	}
}

func spoolEntry(t *testing.T, dir, session, body string) {
	t.Helper()
	if _, err := Write(dir, Item{Entry: &memex.Entry{ID: memex.NewID(time.Now()), Session: session}, Content: []byte(body)}); err != nil {
		t.Fatal(err)
	}
}

func TestDrainSpoolDoesEachItemOnceInOrder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	spoolEntry(t, dir, "a", "first")
	spoolEntry(t, dir, "done", "archived already")
	if _, err := Write(dir, Item{Ingest: "/t/missing", Format: "codex"}); err != nil {
		t.Fatal(err)
	}
	spoolEntry(t, dir, "b", "second")
	bad := filepath.Join(dir, Dir, memex.NewID(time.Now()).String()+".json")
	os.WriteFile(bad, []byte("{not json"), 0o600)
	// A run killed before it wrote its entry: its output alone.
	out, err := NewRunOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("killed run\n")
	out.Close()
	ReleaseRun(out.Name())
	// A run in progress: left alone.
	live, err := NewRunOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseRun(live.Name())
	live.WriteString("running\n")
	live.Close()

	r := &recorder{archived: map[string]bool{"done": true}}
	if err := Drain(ctx, dir, r.drainer()); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.added, "|"); got != "a: first|b: second|: killed run\n" {
		t.Errorf("added %q", got)
	}
	if len(r.ingested) != 1 || len(r.logged) != 2 || !strings.Contains(r.logged[0], "no such file") {
		t.Errorf("ingested %v, logged %v", r.ingested, r.logged)
	}
	if _, err := os.Stat(bad + ".bad"); err != nil {
		t.Errorf("the unreadable item is not kept as .bad: %v", err)
	}
	left, _ := List(dir)
	if len(left) != 1 || left[0].Output != live.Name() {
		t.Errorf("left in the spool: %+v", left)
	}
}

func TestDrainSpoolStopsAtAFailedAdd(t *testing.T) {
	dir := t.TempDir()
	spoolEntry(t, dir, "a", "first")
	spoolEntry(t, dir, "b", "second")
	r := &recorder{failAdd: memex.ErrBusy}
	if err := Drain(context.Background(), dir, r.drainer()); !errors.Is(err, memex.ErrBusy) {
		t.Fatalf("drain: %v, want busy", err)
	}
	if left, _ := List(dir); len(left) != 2 {
		t.Fatalf("items kept: %d, want 2", len(left))
	}
}

// An item the archive refuses for what it is (memex.ErrInvalid) would be
// refused at every drain: it is kept as .bad and logged, and the items
// after it are drained.
func TestDrainSpoolSetsARefusedItemAside(t *testing.T) {
	dir := t.TempDir()
	spoolEntry(t, dir, "a", "first")
	spoolEntry(t, dir, "bad", "refused")
	spoolEntry(t, dir, "b", "second")
	r := &recorder{}
	d := r.drainer()
	add := d.Add
	d.Add = func(ctx context.Context, e memex.Entry, body io.Reader) error {
		if e.Session == "bad" {
			return memex.Errorf(memex.ErrInvalid, "alias %q: the form of an ID", "01J")
		}
		return add(ctx, e, body)
	}
	if err := Drain(context.Background(), dir, d); err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.added, "|") != "a: first|b: second" || len(r.logged) != 1 || !strings.Contains(r.logged[0], "the form of an ID") {
		t.Fatalf("added %q, logged %q", r.added, r.logged)
	}
	bad, _ := filepath.Glob(filepath.Join(dir, Dir, "*.bad"))
	if left, _ := List(dir); len(left) != 0 || len(bad) != 1 {
		t.Fatalf("left %v, set aside %v", left, bad)
	}
}
