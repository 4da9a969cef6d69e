package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// Healthy asks /healthz without the token or the owner's key (it needs
// neither), and takes only memex's answer for a memex server: whatever
// answers 200 at a port a killed server left in serve.addr is not one,
// and is sent nothing more.
func TestHealthyAsksWithoutSecretsAndWantsMemexAnswer(t *testing.T) {
	var auth, key string
	memexLike := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth, key = r.Header.Get("Authorization"), r.Header.Get(KeyHeader)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true,"version":"v9"}`))
	}))
	defer memexLike.Close()
	c := &Client{Base: memexLike.URL, Token: "secret-token-0123456789", Key: "owner-key"}
	if v, ok := c.Healthy(context.Background(), time.Second); !ok || v != "v9" {
		t.Fatalf("Healthy = %q, %v; want v9, true", v, ok)
	}
	if auth != "" || key != "" {
		t.Errorf("/healthz was sent Authorization %q and key %q", auth, key)
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("OK")) }))
	defer other.Close()
	if _, ok := (&Client{Base: other.URL}).Healthy(context.Background(), time.Second); ok {
		t.Error("another service's 200 OK taken for a memex server")
	}
}
