package main

import (
	"context"
	"fmt"
	"os"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
)

// One process owns the store: internal/home holds the lock contract. A CLI
// command opens the home (a writer exclusively, a reader shared, waiting up
// to cli.LockTimeout for another memex process), does its work and closes it.
//
// The data commands (add, show, search, deref, context, sessions, stats,
// replay, forget, verify, reindex, ingest) call an api.Service, and the
// memory commands (handoff, stale, lessons, procedures, export, distill)
// an api.Memory, chosen together once by choose(): the Client of the
// running `memex serve` when $MEMEX_HOME/serve.addr names one that
// answers, else the Service and Memory over the home. Other commands that need the store fail at once with
// memex.ErrBusy while a server runs, rather than wait for a lock the server
// holds for good.

// service returns the Service of this process, chosen on first use: the
// running server's Client, or the Service over the home opened with o.
func (a *app) service(ctx context.Context, o home.Options) (api.Service, error) {
	if err := a.choose(ctx, o); err != nil {
		return nil, err
	}
	return a.svc, nil
}

// memory returns the Memory of this process, chosen with its Service: the
// running server's Client, or the Memory over the home opened with o.
func (a *app) memory(ctx context.Context, o home.Options) (api.Memory, error) {
	if err := a.choose(ctx, o); err != nil {
		return nil, err
	}
	return a.mem, nil
}

// choose sets the Service and Memory of this process, once: the running
// server's Client for both, else the pair over the home opened with o.
func (a *app) choose(ctx context.Context, o home.Options) error {
	if a.svc != nil {
		return nil
	}
	if addr, c, ok := service.Running(ctx, a.home); ok {
		a.log.Debug("through the server", "command", a.purpose(), "addr", addr)
		a.svc, a.mem = c, c
		return nil
	}
	h, err := a.openHome(ctx, o)
	if err != nil {
		return err
	}
	so := a.serviceOptions()
	a.svc, a.mem = service.New(h, so), service.NewMemory(h, so)
	return nil
}

// serviceOptions are the parts of the Local Service that live in cmd:
// the progress bars of a reindex and of a search's catch-up, the checkout of a directory and the logger.
func (a *app) serviceOptions() service.Options {
	wd, _ := os.Getwd()
	return service.Options{
		Progress:      a.progressFunc,
		IndexProgress: a.indexProgressFunc,
		CheckoutOf:    service.CheckoutOf,
		Dir:           wd,
		Logger:        a.log,
	}
}

// ask opens the Service or the Memory with o (open is a.service or
// a.memory) and calls method on it with req: what a data command asks
// before it prints the answer.
func ask[S, R, T any](ctx context.Context, open func(context.Context, home.Options) (S, error), o home.Options,
	method func(S, context.Context, R) (T, error), req R) (T, error) {
	s, err := open(ctx, o)
	if err != nil {
		var zero T
		return zero, err
	}
	return method(s, ctx, req)
}

// purpose names the command being run, for the lock's holder note.
func (a *app) purpose() string {
	if a.running == nil {
		return "memex"
	}
	return a.running.CommandPath()
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

// open opens the home for a command that is not served: while a server
// runs, that is memex.ErrBusy.
func (a *app) open(ctx context.Context, o home.Options) (*home.Home, error) {
	if a.h == nil {
		if addr, _, ok := service.Running(ctx, a.home); ok {
			name := a.purpose()
			return nil, fmt.Errorf("%s: the memex server at %s owns the store and does not run %s; stop the server, then run this again: %w",
				name, addr, name, memex.ErrBusy)
		}
	}
	return a.openHome(ctx, o)
}

// openHome opens the home once per process with o's mode, the lock wait
// and the waiting notice filled in.
func (a *app) openHome(ctx context.Context, o home.Options) (*home.Home, error) {
	if a.h != nil {
		return a.h, nil
	}
	o.Wait = cli.LockTimeout()
	o.Logger = a.log
	o.OnWait = a.waitNotice
	o.Purpose = a.purpose()
	// What hooks and runs spooled is archived first, so that the command
	// reads it too (but with o.AsFound: verify).
	h, err := service.OpenHome(ctx, a.home, o, a.serviceOptions())
	if err != nil {
		return nil, err
	}
	a.h = h
	return h, nil
}

// waitNotice says, once, that a command is waiting for the store's lock
// and what holds it.
func (a *app) waitNotice(holder string) {
	fmt.Fprintf(a.stderr, "memex: waiting for the store: %s holds it (up to %s; MEMEX_LOCK_TIMEOUT changes that)\n", holder, cli.LockTimeout())
}
