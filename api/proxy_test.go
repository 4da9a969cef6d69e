package api

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestProxyStdio(t *testing.T) {
	s, st := newTestServer(t, "", Options{Token: "tok"})
	e := mustAdd(t, st, memex.Entry{Session: "live"}, "proxied output\n")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	// The proxy reads the client's requests from one pipe and answers on
	// another.
	toProxyR, toProxyW := io.Pipe()
	fromProxyR, fromProxyW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ProxyStdio(ctx, srv.URL+"/mcp", "tok", "live", nil, toProxyR, fromProxyW)
		fromProxyW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: fromProxyR, Writer: toProxyW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, isErr := call(t, cs, "memex_read", map[string]any{"ids": []string{e.ID.String()}})
	if isErr || !strings.Contains(text, "proxied output\n") {
		t.Fatalf("read through the proxy: %v %q", isErr, text)
	}
	text, isErr = call(t, cs, "memex_context", map[string]any{})
	if isErr || !strings.Contains(text, e.ID.String()) {
		t.Fatalf("context of the live session through the proxy: %v %q", isErr, text)
	}
	if _, isErr := call(t, cs, "memex_read", map[string]any{"ids": []string{}}); !isErr {
		t.Fatal("bad arguments through the proxy: no tool error")
	}
	cs.Close()
	toProxyW.Close()
	cancel()
	<-done
}

// TestProxyFallsBackWhenTheServerStops: once the server no longer
// answers, the proxy serves the calls from its local tools instead of
// failing every one of them.
func TestProxyFallsBackWhenTheServerStops(t *testing.T) {
	remote, rst := newTestServer(t, "", Options{})
	mustAdd(t, rst, memex.Entry{}, "served by the server\n")
	local, lst := newTestServer(t, "", Options{})
	mustAdd(t, lst, memex.Entry{}, "served locally\n")
	srv := httptest.NewServer(remote.Handler())
	defer srv.Close()

	toProxyR, toProxyW := io.Pipe()
	fromProxyR, fromProxyW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ProxyStdio(ctx, srv.URL+"/mcp", "", "", local, toProxyR, fromProxyW)
		fromProxyW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: fromProxyR, Writer: toProxyW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := call(t, cs, "memex_search", map[string]any{"query": "served"}); isErr || !strings.Contains(text, "served by the server") {
		t.Fatalf("search through the server: %v %q", isErr, text)
	}
	srv.CloseClientConnections()
	srv.Close()
	if text, isErr := call(t, cs, "memex_search", map[string]any{"query": "served"}); isErr || !strings.Contains(text, "served locally") {
		t.Fatalf("search once the server stopped: %v %q", isErr, text)
	}
	cs.Close()
	toProxyW.Close()
	cancel()
	<-done
}
