package service

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
)

// HealthWait bounds how long Running waits for a server's /healthz.
const HealthWait = 2 * time.Second

// Running returns the address and the Client of the memex serve named in
// dir's serve.addr when it answers /healthz; a stale file (a server that
// was killed) is ignored.
func Running(ctx context.Context, dir string) (string, *api.Client, bool) {
	addr, c, _, ok := running(ctx, dir)
	return addr, c, ok
}

// running is Running with the version the server's /healthz reports, so
// that memex doctor asks it once.
func running(ctx context.Context, dir string) (addr string, c *api.Client, version string, ok bool) {
	srv, ok := home.ReadServer(dir)
	if !ok {
		return "", nil, "", false
	}
	c = &api.Client{Base: "http://" + srv.Addr, Token: srv.Token, Key: srv.Key}
	version, ok = c.Healthy(ctx, HealthWait)
	if !ok {
		return "", nil, "", false
	}
	return srv.Addr, c, version, true
}

// CompletionWait bounds SessionNames: a shell completion must not hang.
const CompletionWait = 2 * time.Second

// SessionNames lists the session names of the home at dir, sorted, each
// once (for shell completion), from the Service: the running server's, or
// the one over the store opened for reading; nothing when neither answers
// at once (it does not wait for a lock) or within CompletionWait.
func SessionNames(ctx context.Context, dir string) []string {
	ctx, cancel := context.WithTimeout(ctx, CompletionWait)
	defer cancel()
	var svc api.Service
	if _, c, ok := Running(ctx, dir); ok {
		svc = c
	} else if h, err := home.Open(ctx, dir, home.Options{Shared: true, Wait: -1}); err == nil {
		defer h.Close()
		svc = New(h, Options{})
	} else {
		return nil
	}
	list, _ := svc.Sessions(ctx, api.SessionFilter{})
	seen := map[string]bool{}
	for _, s := range list {
		seen[s.Session] = true
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// LockedHome is the Locked Service (and Memory) over the home at dir,
// with o: each call opens the home (shared unless it writes; OpenHome, so
// that it reads what the spool held), waiting up to wait for its lock,
// which names purpose (the command: "memex mcp") as its holder. While a
// server runs (started before the call or after this process), it owns
// the store and the call goes to it.
func LockedHome(dir string, wait time.Duration, purpose string, o Options) Locked {
	open := func(ctx context.Context, write bool) (*home.Home, error) {
		if addr, _, ok := Running(ctx, dir); ok {
			// Started between Remote's look and this one.
			return nil, fmt.Errorf("the memex server at %s owns the store: try again, or point the host at http://%s/mcp instead of %s: %w",
				addr, addr, purpose, memex.ErrBusy)
		}
		return OpenHome(ctx, dir, home.Options{Shared: !write, Wait: wait, Logger: o.Logger, Purpose: purpose}, o)
	}
	remote := func(ctx context.Context) (*api.Client, bool) {
		_, c, ok := Running(ctx, dir)
		return c, ok
	}
	return Locked{Open: open, Remote: remote, Options: o}
}
