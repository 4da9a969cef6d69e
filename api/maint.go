package api

import (
	"context"
	"net/http"

	"github.com/memex-archive/memex"
)

// ForgetRequest names what POST /v1/forget removes: the entries named by
// Refs (IDs or aliases), or every entry of Session (in Project, when set),
// or of Project; Refs with Session or Project is invalid. DryRun only
// counts them (memex forget asks before it forgets).
type ForgetRequest struct {
	Refs    []string `json:"refs,omitempty"`
	Session string   `json:"session,omitempty"`
	// Agent narrows Session to that agent's session of the name.
	Agent   string `json:"agent,omitempty"`
	Project string `json:"project,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`
}

// ForgetResult is what POST /v1/forget answers, as memex forget --json
// prints it (Matched only with DryRun).
type ForgetResult struct {
	Forgotten int `json:"forgotten"`
	Matched   int `json:"matched,omitempty"`
}

// Problem is an entry (ID) or a file (Path) that verify found wrong.
type Problem struct {
	ID      memex.ID `json:"id,omitzero"`
	Path    string   `json:"path,omitempty"`
	Message string   `json:"message"`
}

// VerifyResult is what POST /v1/verify answers, as memex verify --json
// prints it: the entries checked, their problems, and the home's files'.
type VerifyResult struct {
	Checked  int       `json:"checked"`
	Problems []Problem `json:"problems"`
	Files    []Problem `json:"files"`
	// Notes are what was wrong and was dealt with (a damaged log cut by a
	// repair, with what was lost): said, not counted as problems.
	Notes []Problem `json:"notes,omitempty"`
}

// ReindexResult is what POST /v1/reindex answers, as memex reindex --json.
type ReindexResult struct {
	Indexed   int `json:"indexed"`
	NoContent int `json:"no_content"`
}

// Maintainer does the maintenance that needs the store's owner: while
// memex serve runs, memex forget, verify and reindex go through it.
type Maintainer interface {
	Forget(ctx context.Context, req ForgetRequest) (ForgetResult, error)
	Verify(ctx context.Context) (VerifyResult, error)
	Reindex(ctx context.Context) (ReindexResult, error)
}

func (s *Server) handleForget(w http.ResponseWriter, r *http.Request) {
	var req ForgetRequest
	if err := s.readJSON(w, r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	res, err := s.svc.Forget(r.Context(), req)
	s.answer(w, r, res, err)
}

func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	res, err := s.svc.Verify(r.Context())
	s.answer(w, r, res, err)
}

func (s *Server) handleReindex(w http.ResponseWriter, r *http.Request) {
	res, err := s.svc.Reindex(r.Context())
	s.answer(w, r, res, err)
}
