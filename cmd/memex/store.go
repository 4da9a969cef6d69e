package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/spf13/cobra"
)

// One process owns the store. A CLI command takes $MEMEX_HOME/lock
// (waiting up to lockTimeout for another memex process to finish), opens
// the store, does its work and releases both.
//
// The routing seam: commands reach the store through the app's store()
// method only. When a `memex serve` is running its address is in
// $MEMEX_HOME/serve.addr, and open() hands the command being run to that
// server instead (route, in serve.go): add, show, search, deref, context,
// sessions, stats, replay and ingest run there and the local command stops with their
// outcome; other commands fail at once with memex.ErrBusy rather than wait
// for a lock the server holds for good.

type storeHandle struct {
	lock  *flock.Flock
	store *archive.Store
	// cmd is a command of the tree being run, from which open finds the
	// one executing (cobra gives only it a context).
	cmd *cobra.Command
}

// remember records c's command tree for the routing seam.
func (a *app) remember(c *cobra.Command) {
	if a.st == nil {
		a.st = &storeHandle{}
	}
	a.st.cmd = c
}

// executing returns the command being run, or nil.
func (a *app) executing() *cobra.Command {
	if a.st == nil || a.st.cmd == nil {
		return nil
	}
	var find func(*cobra.Command) *cobra.Command
	find = func(c *cobra.Command) *cobra.Command {
		for _, sub := range c.Commands() {
			if sub.Context() != nil {
				return sub
			}
			if got := find(sub); got != nil {
				return got
			}
		}
		return nil
	}
	return find(a.st.cmd.Root())
}

func (h *storeHandle) close() error {
	var err error
	if h.store != nil {
		err = h.store.Close()
	}
	if h.lock != nil {
		if uerr := h.lock.Unlock(); err == nil {
			err = uerr
		}
	}
	return err
}

// store opens the archive under the home directory for writing, once per
// process, holding the lock exclusively.
func (a *app) store(ctx context.Context) (*archive.Store, error) {
	return a.open(ctx, false)
}

// readStore opens the archive for reading: a shared lock (readers do not
// wait for each other) and a read-only Pebble open, which writes nothing
// and so costs well under a millisecond where a writable open costs
// several fsyncs. A home without a store yet gets an empty one.
func (a *app) readStore(ctx context.Context) (*archive.Store, error) {
	if _, err := os.Stat(filepath.Join(a.home, "store", "CURRENT")); err != nil {
		return a.open(ctx, false)
	}
	return a.open(ctx, true)
}

func (a *app) open(ctx context.Context, readOnly bool) (*archive.Store, error) {
	if a.st != nil && a.st.store != nil {
		return a.st.store, nil
	}
	if routed, err := a.route(ctx); routed {
		return nil, err
	}
	if err := os.MkdirAll(a.home, 0o700); err != nil {
		return nil, fmt.Errorf("create home %s: %w", a.home, err)
	}
	lk := flock.New(filepath.Join(a.home, "lock"))
	if err := waitLock(ctx, lk, readOnly, lockTimeout()); err != nil {
		return nil, err
	}
	s, err := archive.Open(filepath.Join(a.home, "store"), &archive.Options{Logger: a.log, ReadOnly: readOnly, NoSync: a.bulk})
	if err != nil {
		lk.Unlock()
		return nil, err
	}
	if a.st == nil {
		a.st = &storeHandle{}
	}
	a.st.lock, a.st.store = lk, s
	return s, nil
}

// waitLock takes lk (shared when shared is set), blocking in the kernel so
// that a waiter wakes the moment the holder exits, for at most d.
func waitLock(ctx context.Context, lk *flock.Flock, shared bool, d time.Duration) error {
	try, lock := lk.TryLock, lk.Lock
	if shared {
		try, lock = lk.TryRLock, lk.RLock
	}
	if ok, err := try(); err != nil {
		return fmt.Errorf("lock %s: %w", lk.Path(), err)
	} else if ok {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- lock() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("lock %s: %w", lk.Path(), err)
		}
		return nil
	case <-ctx.Done():
		releaseLate(lk, done)
		return ctx.Err()
	case <-t.C:
		releaseLate(lk, done)
		return fmt.Errorf("another memex process has held %s for %s; wait for it, stop it, or raise MEMEX_LOCK_TIMEOUT: %w",
			lk.Path(), d, memex.ErrBusy)
	}
}

// releaseLate gives back a lock that a waiter given up on acquires later:
// a long-lived process (memex mcp, hooks run in process) must not end up
// holding the store's lock for good.
func releaseLate(lk *flock.Flock, done <-chan error) {
	go func() {
		if err := <-done; err == nil {
			lk.Unlock()
		}
	}()
}
