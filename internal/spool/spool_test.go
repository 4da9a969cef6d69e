package spool

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/memex-archive/memex"
)

func TestSpoolListsInOrderAndSkipsLiveRuns(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []string{"a", "b"} {
		if _, err := Write(dir, Item{Entry: &memex.Entry{ID: memex.NewID(time.Now()), Session: c}, Content: []byte(c)}); err != nil {
			t.Fatal(err)
		}
	}
	out, err := NewRunOutput(dir)
	if err != nil {
		t.Fatal(err)
	}
	out.WriteString("running\n")
	out.Close()
	if err := WriteRun(out.Name(), Item{Entry: &memex.Entry{ID: memex.NewID(time.Now()), Tool: "run"}, PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	items, err := List(dir)
	if err != nil || len(items) != 3 {
		t.Fatalf("List = %v, %v", items, err)
	}
	if items[0].Item.Entry.Session != "a" || items[1].Item.Entry.Session != "b" || items[2].Output != out.Name() {
		t.Fatalf("order: %+v", items)
	}
	left, _ := Leftover(dir)
	if len(left) != 2 {
		t.Errorf("Leftover = %v (a run in progress is not left over)", left)
	}
	if !items[2].Running() {
		t.Error("this process's own run is not running")
	}
	ReleaseRun(out.Name())
	if items[2].Running() {
		t.Error("a released run of this process's is still running")
	}
	for _, it := range items {
		it.Done()
	}
	if left, _ := Leftover(dir); len(left) != 0 {
		t.Errorf("after Done: %v", left)
	}
	if fi, err := os.Stat(filepath.Join(dir, Dir)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("spool dir mode: %v", err)
	}
}

// Of the hooks in flight at once, the one that leaves last is told so;
// one that leaves while another is still in flight is not.
func TestLastFlightIsTold(t *testing.T) {
	dir := t.TempDir()
	a, err := Enter(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Enter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if a.Leave() {
		t.Fatal("a left while b was in flight, and was told it was the last")
	}
	if !b.Leave() {
		t.Fatal("b left last and was not told")
	}
	c, err := Enter(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Leave() {
		t.Fatal("a hook alone in flight was not told it was the last")
	}
	if left, _ := Leftover(dir); len(left) != 0 {
		t.Errorf("the flight lock shows as spooled work: %v", left)
	}
}

// Taken tells a lock held by another holder from a free or missing one.
func TestTaken(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	if Taken(p) {
		t.Fatal("a missing lock file is taken")
	}
	if _, err := os.Stat(p); err == nil {
		t.Fatal("Taken created the lock file")
	}
	os.WriteFile(p, nil, 0o600)
	if Taken(p) {
		t.Fatal("a free lock is taken")
	}
	lk := flock.New(p)
	if err := lk.RLock(); err != nil {
		t.Fatal(err)
	}
	if !Taken(p) {
		t.Error("a lock held shared is not taken")
	}
	lk.Unlock()
	if Taken(p) {
		t.Error("a released lock is taken")
	}
}

// Pending is work a drain would do now: a spooled item, or a run that
// ended; a run in progress is none.
func TestPendingLeavesRunsInProgress(t *testing.T) {
	dir := t.TempDir()
	if Pending(dir) {
		t.Fatal("a home without a spool has work pending")
	}
	r, err := StartRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Save(&memex.Entry{ID: memex.NewID(time.Now()), Tool: "run"}); err != nil {
		t.Fatal(err)
	}
	if Pending(dir) {
		t.Fatal("a run in progress is pending")
	}
	r.Close()
	if !Pending(dir) {
		t.Fatal("a run that ended is not pending")
	}
	r.Done()
	if Pending(dir) {
		t.Fatal("pending after the run's spool went")
	}
	if _, err := Write(dir, Item{Entry: &memex.Entry{ID: memex.NewID(time.Now())}, Content: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if !Pending(dir) {
		t.Fatal("a spooled entry is not pending")
	}
}
