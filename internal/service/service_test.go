package service_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/internal/service/servicetest"
)

func open(t *testing.T, dir string, write bool) *home.Home {
	h, err := home.Open(context.Background(), dir, home.Options{Shared: !write})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// localService is the Service over a home held for the whole test.
func localService(t *testing.T) api.Service {
	h := open(t, t.TempDir(), true)
	t.Cleanup(func() { h.Close() })
	return service.New(h, service.Options{})
}

func TestLocal(t *testing.T) { servicetest.Run(t, localService) }

// TestClient runs the suite through the HTTP API: api.Client against a
// server answering with the Local Service.
func TestClient(t *testing.T) {
	servicetest.Run(t, func(t *testing.T) api.Service {
		// The owner's key: the server imports the test's files, wherever
		// they are, as it does memex ingest's.
		const key = "owner-key-0123456789"
		srv, err := api.New(api.Options{Service: localService(t), Key: key})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		return &api.Client{Base: ts.URL, Key: key}
	})
}

// TestLocked runs the suite against the Service that opens the home for
// each call (memex mcp over stdio).
func TestLocked(t *testing.T) {
	servicetest.Run(t, func(t *testing.T) api.Service { return locked(t, service.Options{}) })
}

// locked is the Locked Service over a new home whose store exists, as
// memex mcp finds it.
func locked(t *testing.T, o service.Options) service.Locked {
	dir := t.TempDir()
	open(t, dir, true).Close()
	return service.LockedHome(dir, 0, "memex mcp", o)
}

// memoryOptions are the Options of the memory suite's Services.
var memoryOptions = service.Options{CheckoutOf: servicetest.CheckoutOf}

// localMemory is the Service and Memory over a home held for the whole
// test.
func localMemory(t *testing.T) (api.Service, api.Memory) {
	h := open(t, t.TempDir(), true)
	t.Cleanup(func() { h.Close() })
	return service.New(h, memoryOptions), service.NewMemory(h, memoryOptions)
}

func TestLocalMemory(t *testing.T) { servicetest.RunMemory(t, localMemory) }

// TestClientMemory: the memory requests through the HTTP API.
func TestClientMemory(t *testing.T) {
	servicetest.RunMemory(t, func(t *testing.T) (api.Service, api.Memory) {
		svc, mem := localMemory(t)
		srv, err := api.New(api.Options{Service: svc, Memory: mem})
		if err != nil {
			t.Fatal(err)
		}
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		c := &api.Client{Base: ts.URL}
		return c, c
	})
}

// TestLockedMemory: the memory requests of memex mcp over stdio, the home
// opened for each.
func TestLockedMemory(t *testing.T) {
	servicetest.RunMemory(t, func(t *testing.T) (api.Service, api.Memory) {
		l := locked(t, memoryOptions)
		return l, l
	})
}
