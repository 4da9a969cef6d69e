package catchup

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestRaiseMemoryLimitIsSharedAndRestored(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(192 << 20))
	a := raiseMemoryLimit()
	if got := debug.SetMemoryLimit(-1); got != bulkMemoryLimit {
		t.Fatalf("limit while indexing = %d, want %d", got, bulkMemoryLimit)
	}
	b := raiseMemoryLimit()
	a()
	a() // a second call changes nothing
	if got := debug.SetMemoryLimit(-1); got != bulkMemoryLimit {
		t.Fatalf("limit with one indexer left = %d, want %d", got, bulkMemoryLimit)
	}
	b()
	if got := debug.SetMemoryLimit(-1); got != 192<<20 {
		t.Fatalf("limit after = %d, want the one before", got)
	}
}

func TestRaiseMemoryLimitNeverLowersNorOverridesTheUser(t *testing.T) {
	for _, c := range []struct {
		name, env string
		limit     int64
	}{
		{"higher limit", "", 1 << 30},
		{"GOMEMLIMIT", "100MiB", 100 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", c.env)
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(c.limit))
			restore := raiseMemoryLimit()
			if got := debug.SetMemoryLimit(-1); got != c.limit {
				t.Fatalf("limit while indexing = %d, want %d", got, c.limit)
			}
			restore()
			if got := debug.SetMemoryLimit(-1); got != c.limit {
				t.Fatalf("limit after = %d, want %d", got, c.limit)
			}
		})
	}
}

func TestFeederRaisesTheLimitUntilClosed(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(192 << 20))
	h := openHome(t, t.TempDir())
	f := NewFeeder(ctx, h.s, h.ix)
	if got := debug.SetMemoryLimit(-1); got != bulkMemoryLimit {
		t.Fatalf("limit while feeding = %d, want %d", got, bulkMemoryLimit)
	}
	if _, err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetMemoryLimit(-1); got != 192<<20 {
		t.Fatalf("limit after Close = %d, want the one before", got)
	}
}

// A catch-up indexes at most two chunks at once whatever the number of
// CPUs: its memory is bounded by a constant (GOMAXPROCS=8 took a catch-up
// of 50 MB of transcripts to 807 MB of RSS with one chunk per CPU).
func TestIndexWorkersAreBoundedWhateverTheCPUs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for procs, want := range map[int]int{1: 1, 2: 2, 8: 2, 64: 2} {
		runtime.GOMAXPROCS(procs)
		if got := indexWorkers(); got != want {
			t.Errorf("GOMAXPROCS=%d: %d workers, want %d", procs, got, want)
		}
	}
}
