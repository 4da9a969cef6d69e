package main

import (
	"context"
	"fmt"

	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/home"
	"github.com/spf13/cobra"
)

// One process owns the store: internal/home holds the lock contract. A CLI
// command opens the home (a writer exclusively, a reader shared, waiting up
// to lockTimeout for another memex process), does its work and closes it.
//
// The routing seam: commands reach the store through the app's store()
// method only. When a `memex serve` is running its address is in
// $MEMEX_HOME/serve.addr, and open() hands the command being run to that
// server instead (route, in serve.go): add, show, search, deref, context,
// sessions, stats, replay, ingest, forget, verify and reindex run there and
// the local command stops with their outcome; other commands fail at once
// with memex.ErrBusy rather than wait for a lock the server holds for good.

type storeHandle struct {
	home *home.Home
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
	if h.home == nil {
		return nil
	}
	return h.home.Close()
}

// store opens the archive under the home directory for writing, once per
// process, holding the lock exclusively; a home without a store gets one.
func (a *app) store(ctx context.Context) (*archive.Store, error) {
	h, err := a.open(ctx, home.Options{})
	if err != nil {
		return nil, err
	}
	return h.Store, nil
}

// readStore opens the archive for reading: a shared lock (readers do not
// wait for each other) and a read-only open, which writes nothing. A home
// without a store is home.ErrNoStore: a mistyped --home or MEMEX_HOME is
// said, not answered from a new empty store.
func (a *app) readStore(ctx context.Context) (*archive.Store, error) {
	h, err := a.open(ctx, home.Options{Shared: true})
	if err != nil {
		return nil, err
	}
	return h.Store, nil
}

// open opens the home once per process with o's mode, the lock wait and
// the waiting notice filled in.
func (a *app) open(ctx context.Context, o home.Options) (*home.Home, error) {
	if a.st != nil && a.st.home != nil {
		return a.st.home, nil
	}
	if routed, err := a.route(ctx); routed {
		return nil, err
	}
	o.Wait = lockTimeout()
	o.NoSync = a.bulk
	o.Logger = a.log
	o.OnWait = a.waitNotice
	if c := a.executing(); c != nil {
		o.Purpose = c.CommandPath()
	}
	h, err := home.Open(ctx, a.home, o)
	if err != nil {
		return nil, err
	}
	if a.st == nil {
		a.st = &storeHandle{}
	}
	a.st.home = h
	if !o.Shared {
		// What hooks and runs spooled while the store was taken is
		// archived by the next process that holds it.
		if err := a.drainSpool(ctx, h.Store); err != nil {
			a.log.Warn("spool", "err", err)
		}
	}
	return h, nil
}

// waitNotice says, once, that a command is waiting for the store's lock
// and what holds it.
func (a *app) waitNotice(holder string) {
	fmt.Fprintf(a.stderr, "memex: waiting for the store: %s holds it (up to %s; MEMEX_LOCK_TIMEOUT changes that)\n", holder, lockTimeout())
}
