package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// checkoutDir makes a checkout holding auth/token.go with content.
func checkoutDir(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "auth", "token.go"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServedMarksUseTheClientsCheckout: a server running in one checkout
// marks the evidence a client reads against the client's checkout, which
// the request names, not against its own directory.
func TestServedMarksUseTheClientsCheckout(t *testing.T) {
	const before = "package auth\n\nfunc Refresh() error {\n\treturn nil\n}\n"
	serverDir := checkoutDir(t, before)                                       // still what the read showed
	clientDir := checkoutDir(t, strings.Replace(before, "nil", "retry()", 1)) // edited since
	mem := &stubMemory{}
	var seen []string
	s, st := newTestServer(t, "", Options{Memory: mem, Checkout: func(dir string) *deref.Checkout {
		seen = append(seen, dir)
		if dir == "" {
			dir = serverDir
		}
		return deref.NewCheckout(dir, "github.com/acme/demo")
	}})
	read := mustAdd(t, st, memex.Entry{Project: "github.com/acme/demo", Session: "s1", Agent: "codex", Kind: memex.KindTool,
		Tool: "exec_command", Input: "cat auth/token.go", Exit: memex.IntPtr(0)}, before)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)

	derefAt := func(checkout string) (int, string) {
		body, _ := json.Marshal(map[string]any{"refs": []string{read.ID.String()}, "checkout": checkout})
		resp, err := http.Post(srv.URL+"/v1/deref", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var res struct {
			Items []struct{ Mark string }
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return resp.StatusCode, string(b)
		}
		if err := json.Unmarshal(b, &res); err != nil || len(res.Items) != 1 {
			t.Fatalf("deref answer %s: %v", b, err)
		}
		return resp.StatusCode, res.Items[0].Mark
	}
	if code, mark := derefAt(clientDir); code != http.StatusOK || mark != deref.MarkChanged {
		t.Errorf("deref against the client's checkout: %d %q, want changed", code, mark)
	}
	if code, mark := derefAt(serverDir); code != http.StatusOK || mark != deref.MarkCurrent {
		t.Errorf("deref against the server's checkout: %d %q, want current", code, mark)
	}
	if code, mark := derefAt(""); code != http.StatusOK || mark != "" {
		t.Errorf("deref naming no checkout: %d %q, want no mark", code, mark)
	}
	for _, bad := range []string{"relative/dir", filepath.Join(clientDir, "auth", "token.go"), filepath.Join(clientDir, "missing")} {
		if code, _ := derefAt(bad); code != http.StatusBadRequest {
			t.Errorf("deref with checkout %q: %d, want 400", bad, code)
		}
	}

	get := func(path string, q url.Values) (*http.Response, []byte) {
		resp, err := http.Get(srv.URL + path + "?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	resp, b := get("/v1/context", url.Values{"project": {"github.com/acme/demo"}, "checkout": {clientDir}})
	var ctxRes struct{ Entries []struct{ ID, Mark string } }
	if err := json.Unmarshal(b, &ctxRes); err != nil || resp.StatusCode != http.StatusOK || len(ctxRes.Entries) != 1 || ctxRes.Entries[0].Mark != deref.MarkChanged {
		t.Errorf("context against the client's checkout: %d %s", resp.StatusCode, b)
	}
	if resp, b := get("/v1/context", url.Values{"project": {"github.com/acme/demo"}, "checkout": {"x"}}); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("context with a relative checkout: %d %s", resp.StatusCode, b)
	}

	// Handoff and stale hand the client's checkout to the Memory.
	if resp, b := get("/v1/handoff", url.Values{"project": {"github.com/acme/demo"}, "checkout": {clientDir}}); resp.StatusCode != http.StatusOK ||
		mem.handoffs[len(mem.handoffs)-1].Checkout != clientDir {
		t.Errorf("handoff: %d %s, request %+v", resp.StatusCode, b, mem.handoffs)
	}
	if resp, _ := get("/v1/stale", url.Values{"project": {"github.com/acme/demo"}, "checkout": {clientDir}}); resp.StatusCode != http.StatusOK ||
		mem.stales[len(mem.stales)-1].Checkout != clientDir {
		t.Errorf("stale: %d, request %+v", resp.StatusCode, mem.stales)
	}
	for _, path := range []string{"/v1/handoff", "/v1/stale"} {
		if resp, _ := get(path, url.Values{"checkout": {"not/absolute"}}); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s with a relative checkout: %d, want 400", path, resp.StatusCode)
		}
	}
	for _, dir := range seen {
		if dir != clientDir && dir != serverDir && dir != "" {
			t.Errorf("a checkout was made of %q", dir)
		}
	}
}
