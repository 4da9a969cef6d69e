package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/memex-archive/memex/memory"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HandoffRequest asks for the handoff capsule of a project (package
// memory): Budget tokens at most (0: 1,500); Exclude leaves out a session
// (the one being started). An empty Project is the Memory's own default
// (the project of the directory the server runs in).
type HandoffRequest struct {
	Project string `json:"project,omitempty"`
	Budget  int    `json:"budget,omitempty"`
	Exclude string `json:"exclude,omitempty"`
	// Checkout is the client's checkout (an absolute directory, checked
	// by the API) that edited files are checked against; "" is the
	// server's own directory.
	Checkout string `json:"checkout,omitempty"`
}

// StaleRequest asks for the stale memories of a project (package
// memory), at most Limit (0: all).
type StaleRequest struct {
	Project string `json:"project,omitempty"`
	Limit   int    `json:"limit,omitempty"`
	// Checkout is the client's checkout (an absolute directory, checked
	// by the API) that the memories are checked against; "" is the
	// server's own directory.
	Checkout string `json:"checkout,omitempty"`
}

// LessonsRequest selects failure lessons (package memory), newest first:
// an empty field selects any, a zero Limit all.
type LessonsRequest struct {
	Project string `json:"project,omitempty"`
	Session string `json:"session,omitempty"`
	Status  string `json:"status,omitempty"`
	Limit   int    `json:"limit,omitempty"`
}

// DistillRequest asks to distil again, from the archive, the lessons and
// procedures of every session (of Project only, when it is set): memex
// distill.
type DistillRequest struct {
	Project string `json:"project,omitempty"`
}

// Memory answers the project-memory requests: what package memory
// distilled from the archive. internal/service answers them over a store;
// a Client asks its server. An empty project is the Memory's default (the
// project of its own directory).
type Memory interface {
	// Handoff is the capsule of a project; memex.ErrNotFound when the
	// archive holds nothing of it.
	Handoff(ctx context.Context, req HandoffRequest) (memory.Capsule, error)
	// Stale lists the memories whose files changed in the checkout.
	Stale(ctx context.Context, req StaleRequest) (memory.StaleResult, error)
	// Procedures are the project's procedures, of req.Family only when
	// it is set.
	Procedures(ctx context.Context, req ProceduresRequest) (memory.ProceduresResult, error)
	// Hint is the lesson line for a failed run; memex.ErrNotFound when
	// there is none.
	Hint(ctx context.Context, req HintRequest) (string, error)
	// Lessons lists the failure lessons req selects (never nil).
	Lessons(ctx context.Context, req LessonsRequest) ([]memory.LessonItem, error)
	// Distill distils again the sessions req selects: it writes, so it
	// needs the store's owner.
	Distill(ctx context.Context, req DistillRequest) (memory.UpdateReport, error)
}

// handoffInput is memex_handoff's arguments.
type handoffInput struct {
	Project string `json:"project,omitempty" jsonschema:"project (as memex names it, e.g. github.com/acme/api); default the project the server runs in"`
	Budget  int    `json:"budget,omitempty" jsonschema:"most tokens to return; default 1500, at most 20000"`
}

const handoffDescription = `What earlier sessions (by any agent: Claude Code, Codex, ...) left for this project: their tasks, the notes and decisions, the failures still open, the files most edited (marked when the checkout no longer holds what they showed) and the recent commits, each line with the ID of its evidence. Call it when you start work on a project; read any line's evidence with memex_read.`

func (s *Server) addMemoryTools(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{Name: "memex_handoff", Description: handoffDescription,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.toolHandoff)
	s.addProceduresTool(srv)
}

func (s *Server) toolHandoff(ctx context.Context, _ *mcp.CallToolRequest, in handoffInput) (*mcp.CallToolResult, any, error) {
	if s.opts.Memory == nil {
		return nil, nil, errUnavailable
	}
	budget, err := toolBudget(in.Budget, memory.DefaultHandoffBudget)
	if err != nil {
		return nil, nil, fmt.Errorf("memex_handoff: %w", err)
	}
	res, err := s.opts.Memory.Handoff(ctx, HandoffRequest{Project: in.Project, Budget: budget, Exclude: s.session()})
	if err != nil {
		return nil, nil, err
	}
	return textResult(res.Text), nil, nil
}

// checkoutParam accepts an empty checkout parameter or the absolute path
// of a directory.
func checkoutParam(dir string) error {
	if dir == "" {
		return nil
	}
	return checkDir(dir)
}

// needMemory answers the memory routes with 501 when the server has no
// Memory (Options.Memory), so their handlers need not ask.
func (s *Server) needMemory(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Memory == nil {
			s.writeError(w, r, errUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// handleHandoff serves GET /v1/handoff?project=P&budget=N&exclude=S&checkout=DIR
// (format=text for the rendering alone).
func (s *Server) handleHandoff(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	budget, err := intParam(r, "budget", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := checkoutParam(q.Get("checkout")); err != nil {
		s.writeError(w, r, fmt.Errorf("handoff: %w", err))
		return
	}
	res, err := s.opts.Memory.Handoff(r.Context(), HandoffRequest{Project: q.Get("project"), Budget: budget,
		Exclude: q.Get("exclude"), Checkout: q.Get("checkout")})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeTextOrJSON(w, q.Get("format"), res.Text, res)
}

// handleStale serves GET /v1/stale?project=P&limit=N&checkout=DIR.
func (s *Server) handleStale(w http.ResponseWriter, r *http.Request) {
	limit, err := signedParam(r, "limit", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	if err := checkoutParam(q.Get("checkout")); err != nil {
		s.writeError(w, r, fmt.Errorf("stale: %w", err))
		return
	}
	res, err := s.opts.Memory.Stale(r.Context(), StaleRequest{Project: q.Get("project"), Limit: limit, Checkout: q.Get("checkout")})
	s.answer(w, r, res, err)
}

// handleLessons serves GET /v1/lessons?project=P&session=S&status=X&limit=N.
func (s *Server) handleLessons(w http.ResponseWriter, r *http.Request) {
	limit, err := signedParam(r, "limit", 0)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	q := r.URL.Query()
	res, err := s.opts.Memory.Lessons(r.Context(), LessonsRequest{Project: q.Get("project"), Session: q.Get("session"),
		Status: q.Get("status"), Limit: limit})
	s.answer(w, r, res, err)
}

// handleDistill serves POST /v1/distill {"project"}.
func (s *Server) handleDistill(w http.ResponseWriter, r *http.Request) {
	var req DistillRequest
	if err := s.readJSON(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.opts.Memory.Distill(r.Context(), req)
	s.answer(w, r, res, err)
}

// writeTextOrJSON answers a memory route: its text with ?format=text, else
// v as JSON.
func writeTextOrJSON(w http.ResponseWriter, format, text string, v any) {
	if format == "text" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(text))
		return
	}
	writeJSON(w, http.StatusOK, v)
}
