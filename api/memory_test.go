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

// stubMemory answers as package memory does, recording the requests.
type stubMemory struct {
	handoffs []HandoffRequest
	stales   []StaleRequest
}

func (m *stubMemory) Handoff(ctx context.Context, req HandoffRequest) (memory.Capsule, error) {
	m.handoffs = append(m.handoffs, req)
	if req.Project == "none" {
		return memory.Capsule{}, fmt.Errorf("memory: handoff: nothing archived for project none: %w", memex.ErrNotFound)
	}
	return memory.Capsule{Project: req.Project, Text: "[memex handoff · " + req.Project + "]\n", Sessions: 2}, nil
}

func (m *stubMemory) Stale(ctx context.Context, req StaleRequest) (memory.StaleResult, error) {
	m.stales = append(m.stales, req)
	return memory.StaleResult{Project: req.Project, Items: []memory.StaleItem{}}, nil
}

func (m *stubMemory) Lessons(ctx context.Context, req LessonsRequest) ([]memory.LessonItem, error) {
	return []memory.LessonItem{{ID: "L1", Status: req.Status, Session: req.Session}}, nil
}

func (m *stubMemory) Distill(ctx context.Context, req DistillRequest) (memory.UpdateReport, error) {
	return memory.UpdateReport{Sessions: 1}, nil
}

func TestHandoffRoutes(t *testing.T) {
	mem := &stubMemory{}
	s, _ := newTestServer(t, "", Options{Memory: mem, Session: func() string { return "live" }})
	w := do(t, s.Handler(), http.MethodGet, "/v1/handoff?project=github.com/acme/demo&budget=800&exclude=s1", nil)
	if w.Code != http.StatusOK {
		t.Fatalf("GET /v1/handoff: %d %s", w.Code, w.Body)
	}
	got := decode[map[string]any](t, w)
	if got["project"] != "github.com/acme/demo" || mem.handoffs[0] != (HandoffRequest{Project: "github.com/acme/demo", Budget: 800, Exclude: "s1"}) {
		t.Errorf("handoff answer %v, request %+v", got, mem.handoffs[0])
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/handoff?project=none", nil); w.Code != http.StatusNotFound {
		t.Errorf("unknown project: %d, want 404", w.Code)
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/handoff?budget=x", nil); w.Code != http.StatusBadRequest {
		t.Errorf("bad budget: %d, want 400", w.Code)
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/stale?project=p", nil); w.Code != http.StatusOK {
		t.Errorf("GET /v1/stale: %d", w.Code)
	}

	// memex_handoff leaves out the live session.
	text, isErr := call(t, connectMCP(t, s), "memex_handoff", map[string]any{"project": "github.com/acme/demo"})
	if isErr || !strings.Contains(text, "[memex handoff · github.com/acme/demo]") || mem.handoffs[len(mem.handoffs)-1].Exclude != "live" {
		t.Errorf("memex_handoff: %q %v %+v", text, isErr, mem.handoffs)
	}

	// A negative budget names the handoff's default, not 0.
	text, isErr = call(t, connectMCP(t, s), "memex_handoff", map[string]any{"project": "p", "budget": -3})
	if want := fmt.Sprintf("or none for %d", memory.DefaultHandoffBudget); !isErr || !strings.Contains(text, want) {
		t.Errorf("memex_handoff budget -3: %q %v, want it to say %q", text, isErr, want)
	}

	// Without a Memory, the routes say so.
	bare, _ := newTestServer(t, "", Options{})
	if w := do(t, bare.Handler(), http.MethodGet, "/v1/handoff", nil); w.Code != http.StatusNotImplemented {
		t.Errorf("no Memory: %d, want 501", w.Code)
	}
}

func TestLessonsRoute(t *testing.T) {
	s, _ := newTestServer(t, "", Options{Memory: &stubMemory{}})
	w := do(t, s.Handler(), http.MethodGet, "/v1/lessons?project=p&session=s1&status=fixed&limit=3", nil)
	if got := decode[[]memory.LessonItem](t, w); w.Code != http.StatusOK || len(got) != 1 || got[0].Status != "fixed" || got[0].Session != "s1" {
		t.Fatalf("GET /v1/lessons: %d %+v", w.Code, got)
	}
	if w := do(t, s.Handler(), http.MethodGet, "/v1/lessons?limit=x", nil); w.Code != http.StatusBadRequest {
		t.Errorf("bad limit: %d, want 400", w.Code)
	}
	bare, _ := newTestServer(t, "", Options{})
	if w := do(t, bare.Handler(), http.MethodGet, "/v1/lessons", nil); w.Code != http.StatusNotImplemented {
		t.Errorf("no Memory: %d, want 501", w.Code)
	}
}
