package archive

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// walStore writes n entries with one long-lived Store (as memex serve
// does), closes it cleanly, and returns their IDs in order and the logs
// left, oldest first.
func walStore(t *testing.T, dir string, n int) ([]memex.ID, []string) {
	t.Helper()
	s, err := Open(dir, &Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	var ids []memex.ID
	for i := range n {
		ids = append(ids, add(t, s, memex.Entry{Session: "w"}, bigText(100+i*13, int64(i))).ID)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	slices.Sort(logs)
	return ids, logs
}

func flipByte(t *testing.T, path string, at float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[int(float64(len(b))*at)] ^= 0x01
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedLogIsNotSilent: one flipped byte in a write-ahead log after a
// clean stop used to lose what followed it without a word (150 of 300
// entries), verify clean, writes going on. Now a writable Open refuses,
// changing nothing; a read-only Open reads what precedes the damage and
// names what was lost; a repair keeps the rest and records the loss.
func TestDamagedLogIsNotSilent(t *testing.T) {
	cases := 0
	for _, which := range []string{"largest", "last"} {
		for _, at := range []float64{0.1, 0.5, 0.9} {
			dir := t.TempDir()
			ids, logs := walStore(t, dir, 300)
			log := logs[len(logs)-1]
			if which == "largest" {
				var size int64
				for _, l := range logs {
					if fi, _ := os.Stat(l); fi.Size() > size {
						log, size = l, fi.Size()
					}
				}
			}
			flipByte(t, log, at)
			name := fmt.Sprintf("%s log %s at %.0f%%", which, filepath.Base(log), at*100)
			before := snapshot(t, dir)

			_, err := Open(dir, &Options{MinFree: -1})
			var damage *WALDamage
			if !errors.As(err, &damage) || !errors.Is(err, memex.ErrCorrupt) || len(damage.Lost) == 0 {
				t.Fatalf("%s: writable open: %v, want a *WALDamage naming what was lost", name, err)
			}
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), filepath.Base(log)) || !strings.Contains(err.Error(), "memex verify") {
				t.Errorf("%s: %q: want one line naming the log and what to do", name, err)
			}
			if after := snapshot(t, dir); !mapsEqual(before, after) {
				t.Fatalf("%s: a refused open changed the store's files", name)
			}

			r, err := Open(dir, &Options{ReadOnly: true, Shared: true})
			if err != nil {
				t.Fatalf("%s: read-only open: %v", name, err)
			}
			d := r.Damage()
			if d == nil || len(d.Lost) != len(damage.Lost) {
				t.Fatalf("%s: read-only Damage %+v, want the %d lost", name, d, len(damage.Lost))
			}
			readable := 0
			for _, id := range ids {
				if _, err := r.Get(context.Background(), id); err == nil {
					readable++
				} else if !slices.Contains(d.Lost, id) {
					t.Errorf("%s: %s unreadable and not said lost", name, id)
				}
			}
			if readable+len(d.Lost) != len(ids) {
				t.Errorf("%s: %d readable + %d lost != %d written", name, readable, len(d.Lost), len(ids))
			}
			r.Close()

			s, err := Open(dir, &Options{MinFree: -1, RepairWAL: true})
			if err != nil {
				t.Fatalf("%s: repair: %v", name, err)
			}
			losses, err := s.Losses(context.Background())
			if err != nil || len(losses) != 1 || len(losses[0].Lost) != len(d.Lost) {
				t.Fatalf("%s: losses after repair: %+v %v", name, losses, err)
			}
			if _, err := s.Add(context.Background(), memex.Entry{}, strings.NewReader("after the repair")); err != nil {
				t.Fatalf("%s: add after repair: %v", name, err)
			}
			s.Close()
			if s, err = Open(dir, &Options{MinFree: -1}); err != nil {
				t.Fatalf("%s: open after the repair: %v", name, err)
			}
			s.Close()
			t.Logf("%s: %d of %d entries lost, named", name, len(d.Lost), len(ids))
			cases++
		}
	}
	if cases == 0 {
		t.Fatal("no case ran")
	}
}

func mapsEqual(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestTornTailIsNotDamage: a crash can leave the last log cut anywhere
// (the add that was being written never returned). That must open as it
// did, never be taken for damage.
func TestTornTailIsNotDamage(t *testing.T) {
	dir := t.TempDir()
	ids, logs := walStore(t, dir, 120)
	last := logs[len(logs)-1]
	b, err := os.ReadFile(last)
	if err != nil {
		t.Fatal(err)
	}
	base := copyDir(t, dir)
	for _, cut := range []int{len(b) - 1, len(b) - 11, len(b) - 12, len(b) * 3 / 4, len(b) / 2, len(b) / 3, 100, 20} {
		work := copyDir(t, base)
		if err := os.Truncate(filepath.Join(work, filepath.Base(last)), int64(cut)); err != nil {
			t.Fatal(err)
		}
		s, err := Open(work, &Options{MinFree: -1})
		if err != nil {
			t.Fatalf("a log cut at byte %d of %d (a torn tail): %v", cut, len(b), err)
		}
		// What the cut kept reads back: the entries up to a point.
		seen := true
		for _, id := range ids {
			_, err := s.Get(context.Background(), id)
			if err == nil && !seen {
				t.Errorf("cut at %d: %s readable after an entry that is not", cut, id)
			}
			seen = seen && err == nil
		}
		s.Close()
	}
}
