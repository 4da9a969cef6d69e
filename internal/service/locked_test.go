package service_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
)

// LockedHome holds the store only for a call; once a server is running
// (serve.addr names one that answers), even one started after it, the
// server owns the store and a call goes to it.
func TestLockedHome(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l := service.LockedHome(dir, time.Second, "memex mcp", service.Options{})
	e, err := l.Add(ctx, api.AddRequest{Entry: memex.Entry{Project: "p", Session: "s", Agent: "cli", Kind: memex.KindNote}, Body: strings.NewReader("a note\n")})
	if err != nil {
		t.Fatal(err)
	}
	// Between calls the lock is free: another writer takes it at once.
	h, err := home.Open(ctx, dir, home.Options{})
	if err != nil {
		t.Fatalf("open between calls: %v", err)
	}
	h.Close()
	if got, err := l.Entry(ctx, e.ID.String(), ""); err != nil || got.ID != e.ID {
		t.Fatalf("entry: %+v, %v", got, err)
	}
	if _, _, ok := service.Running(ctx, dir); ok {
		t.Fatal("a server runs in a home without serve.addr")
	}

	// A server starts on the home and holds its store.
	sh := open(t, dir, true)
	t.Cleanup(func() { sh.Close() })
	srv, err := api.New(api.Options{Service: service.New(sh, service.Options{}), Memory: service.NewMemory(sh, service.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	addr := strings.TrimPrefix(ts.URL, "http://")
	if err := home.WriteServer(dir, addr, "", ""); err != nil {
		t.Fatal(err)
	}
	if got, c, ok := service.Running(ctx, dir); !ok || got != addr || c.Base != ts.URL {
		t.Fatalf("Running = %q, %+v, %v; want %s", got, c, ok, addr)
	}
	// Reads and writes go to it, not to the store it holds.
	if got, err := l.Entry(ctx, e.ID.String(), ""); err != nil || got.ID != e.ID {
		t.Fatalf("entry through the server: %+v, %v", got, err)
	}
	e2, err := l.Add(ctx, api.AddRequest{Entry: memex.Entry{Project: "p", Session: "s", Agent: "cli", Kind: memex.KindNote}, Body: strings.NewReader("a second note\n")})
	if err != nil {
		t.Fatalf("add through the server: %v", err)
	}
	if got, err := sh.Store.Get(ctx, e2.ID); err != nil || got.ID != e2.ID {
		t.Fatalf("the server's store does not hold the add: %+v, %v", got, err)
	}
	if _, err := l.Lessons(ctx, api.LessonsRequest{Project: "p"}); err != nil {
		t.Fatalf("memory through the server: %v", err)
	}
}

// CaughtUp indexes what the archive holds and the index does not yet: an
// entry added to the store alone is found.
func TestCaughtUp(t *testing.T) {
	ctx := context.Background()
	h := open(t, t.TempDir(), true)
	t.Cleanup(func() { h.Close() })
	e, err := h.Store.Add(ctx, memex.Entry{Project: "p", Session: "s", Agent: "cli", Kind: memex.KindNote}, strings.NewReader("zanzibar quokka\n"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := service.CaughtUp(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, index.Query{Text: "quokka", Limit: 5})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != e.ID {
		t.Fatalf("search after CaughtUp: %+v, %v", res, err)
	}
}
