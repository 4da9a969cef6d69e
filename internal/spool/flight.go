package spool

import (
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// Hooks in flight. A capture hook does not open the store to add its entry
// (a writable open replays and flushes Pebble's log, tens of milliseconds of
// CPU, and a hundred hooks at once would each pay it): it spools the entry,
// which acknowledges it, and the last hook of those running at once archives
// the whole spool in one open of the store.
//
// Which hook is the last is told by a lock on spool/.inflight: every hook
// holds it shared from before it spools until after, then gives it back and
// tries to take it exclusively without waiting. Only a hook that finds no
// other between those two points gets it; of the hooks running at once at
// least one does (the one that lets go last), so a spooled entry never waits
// for a hook that will not come. What one of them misses (the store was
// taken, or an entry was spooled as it finished) waits, durable, for the next
// process that takes the store.

// InFlightFile is the lock file of the hooks in flight, in the spool.
const InFlightFile = ".inflight"

// Flight is a hook in flight (Enter until Leave).
type Flight struct{ lk *flock.Flock }

// Enter registers a hook in flight in dir, waiting only for another hook's
// Leave to let go of its brief exclusive hold.
func Enter(dir string) (*Flight, error) {
	sp, err := Path(dir)
	if err != nil {
		return nil, err
	}
	return enter(sp)
}

// enter is Enter in the spool directory sp, which exists.
func enter(sp string) (*Flight, error) {
	lk := flock.New(filepath.Join(sp, InFlightFile))
	if err := lk.RLock(); err != nil {
		return nil, err
	}
	return &Flight{lk: lk}, nil
}

// Leave ends the hook's flight and reports whether no other hook was in
// flight at that moment: then it is the one to archive the spool.
func (f *Flight) Leave() (last bool) {
	if err := f.lk.Unlock(); err != nil {
		return false
	}
	ok, err := f.lk.TryLock()
	if err != nil || !ok {
		return false
	}
	_ = f.lk.Unlock()
	return true
}

// Hook spools item as a hook in flight does (Enter, Write, Leave) and
// reports whether it was the last in flight: then it is the one to
// archive the spool, or to hand that to memex (DrainEvent). An error
// leaves nothing spooled; the item is not acknowledged.
func Hook(dir string, item Item) (last bool, err error) {
	// The spool directory is made (or its mode checked) once per hook.
	sp, err := Path(dir)
	if err != nil {
		return false, err
	}
	fl, err := enter(sp)
	if err != nil {
		return false, err
	}
	if _, err := write(dir, sp, item); err != nil {
		fl.Leave()
		return false, err
	}
	return fl.Leave(), nil
}

// DrainEvent is the hook event that archives the spool and nothing else:
// memex-hook, which cannot open the store, runs `memex hook HOST drain`
// when it was the last hook in flight.
const DrainEvent = "drain"

// Taken reports whether a process holds the lock file at path (a home's
// lock) at this moment; a missing file is held by nobody. A hook that was
// the last in flight starts no drain while the store is taken: the drain
// would find it so, and the spool waits, durable, for its holder or the
// next process that takes it, as it does when memex hook finds the store
// taken. Taken holds the lock itself for an instant when it is free.
func Taken(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	lk := flock.New(path)
	ok, err := lk.TryLock()
	if err != nil {
		return false // cannot tell: the drain finds out
	}
	if ok {
		_ = lk.Unlock()
		return false
	}
	return true
}
