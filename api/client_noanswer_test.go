package api_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/memex-archive/memex/api"
)

// TestClientServerGoneAway: a server that drops the connection before it
// answers (killed in the middle of an import) is told as the server not
// answering, by address and request, with what to do, not as Go's
// `Post "http://...": EOF`; the transport's error stays wrapped.
func TestClientServerGoneAway(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	defer srv.Close()
	c := &api.Client{Base: srv.URL}
	_, err := c.Do(context.Background(), "POST", "/v1/ingest", nil, strings.NewReader("{}"), "application/json")
	if err == nil {
		t.Fatal("no error")
	}
	addr := strings.TrimPrefix(srv.URL, "http://")
	msg := err.Error()
	if !strings.HasPrefix(msg, "the memex server at "+addr+" did not answer POST /v1/ingest (") ||
		!strings.Contains(msg, "run the command again") || strings.Contains(msg, `"http://`) {
		t.Errorf("error %q", msg)
	}
	if !errors.Is(err, io.EOF) && !strings.Contains(msg, "EOF") && !strings.Contains(msg, "reset") {
		t.Errorf("the transport's error is not kept: %q", msg)
	}

	// A cancelled request is the cancellation, as before.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Do(ctx, "GET", "/healthz", nil, nil, ""); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "did not answer") {
		t.Errorf("cancelled: %v", err)
	}
}
