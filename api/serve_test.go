package api

import (
	"context"
	"net"
	"net/http"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeEndsMCPStreams: Serve returns after its context is cancelled
// even while an MCP client keeps its stream open, and the client's session
// ends.
func TestServeEndsMCPStreams(t *testing.T) {
	s, st := newTestServer(t, "", Options{})
	e := mustAdd(t, st, memex.Entry{}, "x\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp", HTTPClient: &http.Client{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text, isErr := call(t, cs, "memex_read", map[string]any{"ids": []string{e.ID.String()}}); isErr || text == "" {
		t.Fatalf("read: %v %q", isErr, text)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
}
