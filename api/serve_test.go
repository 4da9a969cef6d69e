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

// A listener on every interface is dialled on loopback; the Host names
// answered are --allow-host's and the --addr host's, never 0.0.0.0's.
func TestDialAddrAndHostsOf(t *testing.T) {
	for _, c := range []struct {
		addr *net.TCPAddr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4zero, Port: 7077}, "127.0.0.1:7077"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 80}, "127.0.0.1:80"},
		{&net.TCPAddr{IP: net.ParseIP("10.0.0.2"), Port: 7077}, "10.0.0.2:7077"},
	} {
		if got := DialAddr(c.addr); got != c.want {
			t.Errorf("DialAddr(%v) = %q, want %q", c.addr, got, c.want)
		}
	}
	for _, c := range []struct {
		addr  string
		allow []string
		want  []string
	}{
		{"0.0.0.0:7077", []string{"box.lan"}, []string{"box.lan"}},
		{"memex.internal:7077", nil, []string{"memex.internal"}},
		{"127.0.0.1:7077", nil, []string{"127.0.0.1"}},
		{":7077", nil, nil},
	} {
		if got := HostsOf(c.addr, c.allow); len(got) != len(c.want) || (len(got) > 0 && got[len(got)-1] != c.want[len(c.want)-1]) {
			t.Errorf("HostsOf(%q, %v) = %v, want %v", c.addr, c.allow, got, c.want)
		}
	}
}
