package api

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"
)

// TestHealthyOnlyForItsOwnServer: a Client that holds a home's key is
// answered "healthy" only by the server of that key. A server that was
// killed leaves serve.addr behind; when another home's server listens on
// that address since, its commands and hooks must not be sent there (they
// would be archived in the other home's store).
func TestHealthyOnlyForItsOwnServer(t *testing.T) {
	s, _ := newTestServer(t, "", Options{Version: "v1", Key: "the-key"})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	for _, c := range []struct {
		key  string
		want bool
	}{
		{"the-key", true},
		{"another-home's-key", false},
		{"", true}, // a client that holds no key (a script) asks only if it answers
	} {
		version, ok := (&Client{Base: srv.URL, Key: c.key}).Healthy(context.Background(), 5*time.Second)
		if ok != c.want || ok && version != "v1" {
			t.Errorf("key %q: healthy %v (version %q), want %v", c.key, ok, version, c.want)
		}
	}
}
