package home

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/homedir"
	"github.com/memex-archive/memex/internal/spool"
)

// Names of the files and directories of a home.
const (
	LockFile   = homedir.LockFile
	StoreDir   = "store"
	IndexDir   = "index"
	SpoolDir   = spool.Dir
	ServerFile = homedir.ServerFile
	KeyFile    = "serve.key"
	TokenFile  = "token"
	// BallastFile is the store's ballast: space held back on the home's
	// disk and given up when it fills, so that the store refuses writes
	// and closes cleanly (archive.Options.Ballast).
	BallastFile = "ballast"
)

// DefaultWait is how long Open waits for the lock when Options.Wait is 0.
const DefaultWait = 30 * time.Second

// WaitNotice is how long Open waits for the lock before it calls
// Options.OnWait.
const WaitNotice = time.Second

// ErrNoStore is what Open returns for a home that holds no store when it
// must not create one (a reader, or Options.MustExist). The error it
// returns names the home and matches memex.ErrNotFound too.
var ErrNoStore = errors.New("no memex store")

type noStoreError struct{ dir string }

func (e noStoreError) Error() string {
	return "no memex store in " + e.dir + " (memex creates one on its first add, run or ingest; check --home and MEMEX_HOME)"
}

func (e noStoreError) Is(target error) bool {
	return target == ErrNoStore || target == memex.ErrNotFound
}

// Options configure Open. The zero value opens for writing, waiting
// DefaultWait for the lock.
type Options struct {
	// Shared opens for reading: a shared lock and a read-only store.
	Shared bool
	// AsFound, for a reader, asks internal/service's OpenHome not to
	// archive the spool before the read (memex verify reports it as it
	// finds it); Open itself ignores it.
	AsFound bool
	// MustExist makes a writer's Open of a home without a store fail with
	// ErrNoStore instead of creating one (search, forget, reindex: work on
	// what was archived, which a new store would not hold).
	MustExist bool
	// Wait bounds the wait for the lock; 0 means DefaultWait, negative
	// means not at all.
	Wait time.Duration
	// OnWait, when set, is called once when the lock is still taken after
	// WaitNotice, with what holds it ("pid 4242, memex ingest, since
	// 10:04:05"; "another memex process" when that is not known).
	OnWait func(holder string)
	// NoSync opens the store without a sync per write (bulk imports that
	// call Sync at the end).
	NoSync bool
	// Purpose says what the process does, for those waiting for it
	// ("memex ingest").
	Purpose string
	// RepairWAL opens a store whose write-ahead log is damaged for writing,
	// cutting the log at the damage (archive.Options.RepairWAL).
	RepairWAL bool
	// Logger gets the store's and the index's log lines; nil drops them.
	Logger *slog.Logger
	// OnFull, when set, lets a writer's Open of a store whose disk is full
	// (memex.ErrDiskFull: no room to write) open it for reading instead,
	// as Shared does, and is called once it has: a search then reads the
	// index as it was last brought up to date.
	OnFull func()
}

// Home is an open $MEMEX_HOME: its lock held and its store open. A Home is
// safe for concurrent use; Close releases everything it opened.
type Home struct {
	Dir   string
	Store *archive.Store

	opts Options
	lock *flock.Flock

	mu        sync.Mutex
	ix        *index.Index
	closeOnce sync.Once
	closeErr  error
}

// Open takes dir's lock and opens its store, as opts say. A writer creates
// dir, its store and its directories (mode 0700) as needed and tightens
// their modes; a reader creates nothing.
func Open(ctx context.Context, dir string, opts Options) (*Home, error) {
	h, err := open(ctx, dir, opts)
	if opts.Shared || opts.OnFull == nil || !errors.Is(err, memex.ErrDiskFull) {
		return h, err
	}
	opts.Shared = true
	if h, err = open(ctx, dir, opts); err != nil {
		return nil, err
	}
	opts.OnFull()
	return h, nil
}

func open(ctx context.Context, dir string, opts Options) (*Home, error) {
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	storeDir := filepath.Join(dir, StoreDir)
	if opts.Shared || opts.MustExist {
		if ok, err := archive.Exists(storeDir); err != nil {
			return nil, fmt.Errorf("home: %s: %w", dir, err)
		} else if !ok {
			return nil, noStoreError{dir}
		}
	}
	if !opts.Shared {
		if err := Prepare(dir); err != nil {
			return nil, err
		}
	}
	h := &Home{Dir: dir, opts: opts, lock: flock.New(filepath.Join(dir, LockFile))}
	if err := h.takeLock(ctx); err != nil {
		return nil, err
	}
	ao := &archive.Options{Logger: opts.Logger, ReadOnly: opts.Shared, Shared: opts.Shared, NoSync: opts.NoSync, RepairWAL: opts.RepairWAL}
	if !opts.Shared {
		ao.Ballast = filepath.Join(dir, BallastFile)
	}
	s, err := archive.Open(storeDir, ao)
	if err != nil {
		h.unlock()
		return nil, err
	}
	h.Store = s
	if !opts.Shared {
		// Pebble makes its directory with the process's umask.
		if err := spool.Tighten(storeDir, 0o700); err != nil {
			h.Close()
			return nil, err
		}
	}
	return h, nil
}

// Prepare creates dir if needed (0700) and its store, index and spool
// directories' modes tightened to 0700 where they exist; it leaves the
// home's own mode alone (the user's choice), since what is inside is
// closed anyway.
func Prepare(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create home %s: %w", dir, err)
	}
	for _, sub := range []string{StoreDir, IndexDir, SpoolDir} {
		p := filepath.Join(dir, sub)
		if err := spool.Tighten(p, 0o700); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	for _, f := range []string{TokenFile, ServerFile} {
		if err := spool.Tighten(filepath.Join(dir, f), 0o600); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Index returns the home's search index, opened on first use and closed
// with the Home. A writer's is writable (a search brings it up to date with
// the store, which writes both); a reader's is read-only (memex verify
// checks it): an index that is absent is then memex.ErrNotFound, a damaged
// one memex.ErrCorrupt, where a writer's is dropped and rebuilt.
func (h *Home) Index() (*index.Index, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ix != nil {
		return h.ix, nil
	}
	dir := filepath.Join(h.Dir, IndexDir)
	ix, err := index.Open(dir, &index.Options{Content: h.Store.Body, Entry: h.Store.Get, Logger: h.opts.Logger, ReadOnly: h.opts.Shared})
	if err != nil {
		return nil, err
	}
	if h.opts.Shared {
		h.ix = ix
		return ix, nil
	}
	if err := spool.Tighten(dir, 0o700); err != nil {
		ix.Close()
		return nil, err
	}
	h.ix = ix
	return ix, nil
}

// DropIndex closes and deletes the index when it is of another schema, or
// whatever it is when always is set, so that the next Index is empty
// (memex reindex).
func (h *Home) DropIndex(always bool) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	dir := filepath.Join(h.Dir, IndexDir)
	if h.ix != nil {
		if err := h.ix.Close(); err != nil {
			return err
		}
		h.ix = nil
	}
	if !always {
		ix, err := index.Open(dir, nil)
		if err == nil {
			return ix.Close()
		}
		if !errors.Is(err, memex.ErrSchema) {
			return err
		}
	}
	return index.Drop(dir)
}

// Shared reports whether h was opened for reading.
func (h *Home) Shared() bool { return h.opts.Shared }

// Close closes the index and the store and releases the lock. It is safe
// to call twice and returns the first error.
func (h *Home) Close() error {
	h.closeOnce.Do(func() {
		h.mu.Lock()
		if h.ix != nil {
			h.closeErr = h.ix.Close()
			h.ix = nil
		}
		h.mu.Unlock()
		if h.Store != nil {
			if err := h.Store.Close(); h.closeErr == nil {
				h.closeErr = err
			}
		}
		h.unlock()
	})
	return h.closeErr
}

func (h *Home) unlock() {
	if !h.opts.Shared {
		// The holder's note goes with the lock: a waiter reading it later
		// must not name a process that is gone.
		_ = os.Truncate(h.lock.Path(), 0)
	}
	_ = h.lock.Unlock()
}

// takeLock takes the lock (shared for a reader), blocking in the kernel
// so that a waiter wakes the moment the holder exits, for at most
// opts.Wait.
func (h *Home) takeLock(ctx context.Context) error {
	lk, shared := h.lock, h.opts.Shared
	try, lock := lk.TryLock, lk.Lock
	if shared {
		try, lock = lk.TryRLock, lk.RLock
	}
	ok, err := try()
	if err != nil {
		return fmt.Errorf("lock %s: %w", lk.Path(), err)
	}
	if !ok {
		if err := h.waitLock(ctx, lock); err != nil {
			return err
		}
	}
	if !shared {
		h.noteHolder()
	}
	return nil
}

func (h *Home) waitLock(ctx context.Context, lock func() error) error {
	lk := h.lock
	if h.opts.Wait < 0 {
		return fmt.Errorf("%s holds %s: %w", Holder(h.Dir), lk.Path(), memex.ErrBusy)
	}
	done := make(chan error, 1)
	go func() { done <- lock() }()
	deadline := time.NewTimer(h.opts.Wait)
	defer deadline.Stop()
	notice := time.NewTimer(WaitNotice)
	defer notice.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("lock %s: %w", lk.Path(), err)
			}
			return nil
		case <-notice.C:
			if h.opts.OnWait != nil {
				h.opts.OnWait(Holder(h.Dir))
			}
		case <-ctx.Done():
			releaseLate(lk, done)
			return ctx.Err()
		case <-deadline.C:
			holder := Holder(h.Dir)
			releaseLate(lk, done)
			return fmt.Errorf("%s has held %s for %s; wait for it, stop it, or raise MEMEX_LOCK_TIMEOUT: %w",
				holder, lk.Path(), h.opts.Wait, memex.ErrBusy)
		}
	}
}

// releaseLate gives back a lock that a waiter given up on acquires later:
// a long-lived process (memex mcp, hooks run in process) must not end up
// holding the home's lock for good.
func releaseLate(lk *flock.Flock, done <-chan error) {
	go func() {
		if err := <-done; err == nil {
			lk.Unlock()
		}
	}()
}

// noteHolder writes the writer's pid, purpose and start into the lock
// file, for Holder.
func (h *Home) noteHolder() {
	purpose := h.opts.Purpose
	if purpose == "" {
		purpose = "memex"
	}
	note := fmt.Sprintf("%d\n%s\n%s\n", os.Getpid(), purpose, time.Now().Format(time.RFC3339))
	if f, err := os.OpenFile(h.lock.Path(), os.O_WRONLY|os.O_TRUNC, 0o600); err == nil {
		f.WriteString(note)
		f.Close()
	}
}

// Holder says which process holds dir's lock for writing, as its note in
// the lock file tells: "pid 4242 (memex ingest) since 10:04:05". A note of
// a process that is gone, or none, gives "another memex process": readers
// leave no note.
func Holder(dir string) string {
	const unknown = "another memex process"
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil {
		return unknown
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 3 {
		return unknown
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil || pid <= 0 || !spool.Alive(pid) {
		return unknown
	}
	since := lines[2]
	if t, err := time.Parse(time.RFC3339, lines[2]); err == nil {
		since = t.Format("15:04:05")
		if time.Since(t) > 24*time.Hour {
			since = t.Format("2006-01-02 15:04")
		}
	}
	return fmt.Sprintf("pid %d (%s) since %s", pid, lines[1], since)
}
