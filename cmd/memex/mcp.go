package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/memory"
	"github.com/spf13/cobra"
)

func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memex MCP tools over stdio (for hosts that spawn MCP servers)",
		Long: `Serve memex_search, memex_read, memex_compress and memex_context over stdio (MCP,
newline-delimited JSON-RPC). The store is opened for each tool call and released after
it, so hooks and other memex commands are never locked out while an agent runs. When
memex serve is running (at start), the calls are forwarded to it.

The live session (the default of memex_compress and memex_context) comes from
$CLAUDE_CODE_SESSION_ID, $CODEX_THREAD_ID or $MEMEX_SESSION.`,
		Example: `  claude mcp add --scope user memex -- memex mcp
  codex mcp add memex -- memex mcp`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if addr, r, ok := a.runningServer(c.Context()); ok {
				a.log.Debug("forwarding MCP to the server", "addr", addr)
				return api.ProxyStdio(c.Context(), r.Base+"/mcp", r.Token, liveSession(), a.stdin, a.stdout)
			}
			srv, err := a.toolServer()
			if err != nil {
				return err
			}
			return srv.ServeStdio(c.Context(), a.stdin, a.stdout)
		},
	}
}

// toolServer is an api.Server over the store opened per call.
func (a *app) toolServer() (*api.Server, error) {
	return api.New(api.Options{Service: a.lockedService(0), Session: liveSession, Agent: liveAgent(),
		Memory: newMemoryService(lockedStore{a: a}), Checkout: checkoutAt, Version: version, Logger: a.log})
}

// lockedService is the Service that opens the home for each call, waiting
// up to wait for the lock (0: lockTimeout()).
func (a *app) lockedService(wait time.Duration) service.Locked {
	ls := lockedStore{a: a, wait: wait}
	return service.Locked{Open: ls.open, Options: a.serviceOptions()}
}

// liveSession is the agent session memex runs in, from the host's
// environment.
func liveSession() string {
	for _, v := range []string{"MEMEX_SESSION", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"} {
		if s := os.Getenv(v); s != "" {
			return s
		}
	}
	return ""
}

func liveAgent() string {
	switch {
	case os.Getenv("CLAUDE_CODE_SESSION_ID") != "":
		return "claude-code"
	case os.Getenv("CODEX_THREAD_ID") != "":
		return "codex"
	}
	return "mcp"
}

// lockedStore opens the store under the lock for each call and releases
// both before returning: a long-lived MCP server must not hold the store.
// Bodies are read whole before the release.
type lockedStore struct {
	a    *app
	wait time.Duration // for the lock; 0 means lockTimeout()
}

var _ memory.Store = lockedStore{}

// open opens the home for one call (read-only under a shared lock unless
// write); the caller closes it.
func (l lockedStore) open(ctx context.Context, write bool) (*home.Home, error) {
	a := l.a
	if addr, _, ok := a.runningServer(ctx); ok {
		return nil, fmt.Errorf("the memex server at %s owns the store: point the host at http://%s/mcp instead of memex mcp: %w",
			addr, addr, memex.ErrBusy)
	}
	wait := l.wait
	if wait <= 0 {
		wait = lockTimeout()
	}
	return home.Open(ctx, a.home, home.Options{Shared: !write, Wait: wait, Logger: a.log, Purpose: "memex mcp"})
}

// with runs fn with the store open (read-only under a shared lock unless
// write).
func (l lockedStore) with(ctx context.Context, write bool, fn func(*home.Home) error) error {
	h, err := l.open(ctx, write)
	if err != nil {
		return err
	}
	err = fn(h)
	if cerr := h.Close(); err == nil {
		err = cerr
	}
	return err
}

func (l lockedStore) Resolve(ctx context.Context, ref, project string) (id memex.ID, err error) {
	err = l.with(ctx, false, func(h *home.Home) error { s := h.Store; id, err = s.Resolve(ctx, ref, project); return err })
	return id, err
}

func (l lockedStore) Get(ctx context.Context, id memex.ID) (e memex.Entry, err error) {
	err = l.with(ctx, false, func(h *home.Home) error { s := h.Store; e, err = s.Get(ctx, id); return err })
	return e, err
}

func (l lockedStore) Body(ctx context.Context, id memex.ID) (io.ReadCloser, error) {
	return l.Lines(ctx, id, 1, 0)
}

func (l lockedStore) Lines(ctx context.Context, id memex.ID, from, to int64) (io.ReadCloser, error) {
	var b []byte
	err := l.with(ctx, false, func(h *home.Home) error {
		s := h.Store
		rc, err := s.Lines(ctx, id, from, to)
		if err != nil {
			return err
		}
		defer rc.Close()
		b, err = io.ReadAll(rc)
		return err
	})
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

func (l lockedStore) Session(ctx context.Context, ref memex.SessionRef, fn func(memex.Entry) error) error {
	return l.each(ctx, fn, func(s *archive.Store, add func(memex.Entry) error) error { return s.Session(ctx, ref, add) })
}

func (l lockedStore) ResolveSession(ctx context.Context, ref memex.SessionRef) (out memex.SessionRef, err error) {
	err = l.with(ctx, false, func(h *home.Home) error {
		out, err = h.Store.ResolveSession(ctx, ref)
		return err
	})
	return out, err
}

func (l lockedStore) Scan(ctx context.Context, from, to time.Time, fn func(memex.Entry) error) error {
	return l.each(ctx, fn, func(s *archive.Store, add func(memex.Entry) error) error { return s.Scan(ctx, from, to, add) })
}

// each collects the entries read walks while the store is held, then calls
// fn with them after releasing it, so that fn never runs under the lock.
func (l lockedStore) each(ctx context.Context, fn func(memex.Entry) error, read func(*archive.Store, func(memex.Entry) error) error) error {
	var entries []memex.Entry
	if err := l.with(ctx, false, func(h *home.Home) error {
		return read(h.Store, func(e memex.Entry) error { entries = append(entries, e); return nil })
	}); err != nil {
		return err
	}
	for _, e := range entries {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}
