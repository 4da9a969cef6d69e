package api

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/memex-archive/memex"
)

// send makes a real request over loopback to srv.
func send(t *testing.T, srv *httptest.Server, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestForeignHostAndOriginAreRefused(t *testing.T) {
	s, st := newTestServer(t, "", Options{Hosts: []string{"memex.internal"}})
	e := mustAdd(t, st, memex.Entry{}, "secret output\n")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	get := "/v1/entries/" + e.ID.String()
	for _, c := range []struct {
		name   string
		method string
		path   string
		body   string
		hdr    []string
		status int
	}{
		{"dns rebinding", "GET", get, "", []string{"Host", "attacker.example"}, 403},
		{"rebinding mcp", "POST", "/mcp", "{}", []string{"Host", "attacker.example:7077", "Content-Type", "application/json"}, 403},
		{"rebinding healthz", "GET", "/healthz", "", []string{"Host", "attacker.example"}, 403},
		{"loopback address", "GET", get, "", nil, 200},
		{"localhost", "GET", get, "", []string{"Host", "localhost:7077"}, 200},
		{"ipv6 loopback", "GET", get, "", []string{"Host", "[::1]:7077"}, 200},
		{"configured host", "GET", get, "", []string{"Host", "memex.internal:7077"}, 200},
		{"cross-origin simple add", "POST", "/v1/entries", "planted", []string{"Content-Type", "text/plain", "Origin", "http://evil.example"}, 403},
		{"null origin", "POST", "/v1/entries", "planted", []string{"Origin", "null"}, 403},
		{"cross-origin ingest", "POST", "/v1/ingest", `{"format":"jsonl","paths":["/etc/passwd"]}`, []string{"Content-Type", "text/plain", "Origin", "http://evil.example"}, 403},
		{"same-origin page", "GET", get, "", []string{"Origin", "http://localhost:7077"}, 200},
		{"deref as text/plain", "POST", "/v1/deref", `{"refs":["x"]}`, []string{"Content-Type", "text/plain"}, 415},
		{"deref without a type", "POST", "/v1/deref", `{"refs":["x"]}`, nil, 415},
	} {
		status, body := send(t, srv, c.method, c.path, c.body, c.hdr...)
		if status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, status, body, c.status)
		}
		if c.status == 200 && !strings.Contains(body, "secret output") && c.path == get {
			t.Errorf("%s: body %q", c.name, body)
		}
	}
	st2, _ := st.Stats(t.Context())
	if st2.Entries != 1 {
		t.Errorf("%d entries: a refused add was stored", st2.Entries)
	}
}

func TestIngestReadsOnlyUnderItsRoots(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	in := filepath.Join(root, "a.jsonl")
	out := filepath.Join(outside, "b.jsonl")
	for _, p := range []string{in, out} {
		os.WriteFile(p, []byte(`{"content":"x"}`+"\n"), 0o600)
	}
	link := filepath.Join(root, "escape.jsonl")
	os.Symlink(out, link)
	fifo := filepath.Join(root, "pipe.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var got IngestRequest
	s, _ := newTestServer(t, "", Options{Ingester: fakeIngester{&got}, IngestRoots: []string{root}, Key: "owner-key-0123456789"})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	post := func(path string, hdr ...string) int {
		status, _ := send(t, srv, "POST", "/v1/ingest", `{"format":"jsonl","paths":[`+quote(path)+`]}`,
			append([]string{"Content-Type", "application/json"}, hdr...)...)
		return status
	}
	for _, c := range []struct {
		name, path string
		hdr        []string
		status     int
	}{
		{"under a root", in, nil, 200},
		{"the root itself", root, nil, 200},
		{"outside", out, nil, 403},
		{"a link out of the root", link, nil, 403},
		{"a fifo", fifo, nil, 400},
		{"relative", "a.jsonl", nil, 400},
		{"outside, by the owner", out, []string{KeyHeader, "owner-key-0123456789"}, 200},
		{"outside, wrong key", out, []string{KeyHeader, "guess"}, 403},
		{"a fifo, by the owner", fifo, []string{KeyHeader, "owner-key-0123456789"}, 400},
	} {
		if status := post(c.path, c.hdr...); status != c.status {
			t.Errorf("%s: %d, want %d", c.name, status, c.status)
		}
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
