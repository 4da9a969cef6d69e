package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/memory"
)

func (m *stubMemory) Procedures(ctx context.Context, req ProceduresRequest) (memory.ProceduresResult, error) {
	if req.Project == "none" {
		return memory.ProceduresResult{}, fmt.Errorf("memory: procedures: give a project: %w", memex.ErrInvalid)
	}
	return memory.ProceduresResult{Project: req.Project + "," + req.Family}, nil
}

func (m *stubMemory) Hint(ctx context.Context, req HintRequest) (string, error) {
	if req.Ref != "cc:toolu_1" {
		return "", fmt.Errorf("memory: hint: nothing for %s: %w", req.Ref, memex.ErrNotFound)
	}
	return "memex: this command failed the same way before: lesson (fixed): ... [lesson X]", nil
}

func TestHintRoute(t *testing.T) {
	s, _ := newTestServer(t, "", Options{Memory: &stubMemory{}})
	w := do(t, s.Handler(), http.MethodGet, "/v1/hint?ref=cc:toolu_1&project=p", nil)
	if got := decode[map[string]string](t, w); w.Code != http.StatusOK || !strings.HasPrefix(got["text"], "memex: this command failed") {
		t.Fatalf("GET /v1/hint: %d %v", w.Code, got)
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/hint?ref=other", nil); w.Code != http.StatusNotFound {
		t.Fatalf("no hint: %d, want 404", w.Code)
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/hint", nil); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "GET /v1/hint?ref=REF") {
		t.Fatalf("no ref: %d %s, want 400 saying what to give", w.Code, w.Body)
	}
}

func TestProceduresRoutes(t *testing.T) {
	s, _ := newTestServer(t, "", Options{Memory: &stubMemory{}})
	w := do(t, s.Handler(), http.MethodGet, "/v1/procedures?project=github.com/acme/demo&family=test", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /v1/procedures: %d %s", w.Code, w.Body)
	}
	if got := decode[map[string]any](t, w); got["project"] != "github.com/acme/demo,test" {
		t.Errorf("answer %v", got)
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/procedures?project=p&format=text", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "p,") {
		t.Errorf("format=text: %d %q", w.Code, w.Body)
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/procedures?project=none", nil); w.Code != http.StatusBadRequest {
		t.Errorf("bad project: %d, want 400", w.Code)
	}
	text, isErr := call(t, connectMCP(t, s), "memex_procedures", map[string]any{"project": "p", "family": "test"})
	if isErr || !strings.Contains(text, "p,test") {
		t.Errorf("memex_procedures: %q %v", text, isErr)
	}
	bare, _ := newTestServer(t, "", Options{})
	if w := do(t, bare.Handler(), http.MethodGet, "/v1/procedures", nil); w.Code != http.StatusNotImplemented {
		t.Errorf("no Memory: %d, want 501", w.Code)
	}
}
