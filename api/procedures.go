package api

import (
	"context"
	"net/http"

	"github.com/memex-archive/memex"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ProceduresRequest asks for the procedures of a project (package
// memory): how its tests, builds, linters and services were run, learned
// from the runs that passed. An empty Project is the Memory's default;
// Family, when set, keeps that family only (test, build, lint, ...).
type ProceduresRequest struct {
	Project string `json:"project,omitempty"`
	Family  string `json:"family,omitempty"`
}

// proceduresInput is memex_procedures's arguments.
type proceduresInput struct {
	Project string `json:"project,omitempty" jsonschema:"project (as memex names it, e.g. github.com/acme/api); default the project the server runs in"`
	Family  string `json:"family,omitempty" jsonschema:"only this family: test, build, lint, typecheck, format, serve, install"`
}

const proceduresDescription = `How this project's tests, build, linters and services are run, learned from the runs of earlier sessions (any agent) that passed: the usual command of each, its steps, and the variants that worked (one package, one test, a flag, an environment variable), each with how often it was seen and passed and the IDs of the runs behind it. Call it before running tests or a build in a project you do not know; read any run with memex_read.`

func (s *Server) addProceduresTool(srv *mcp.Server) {
	addTool(srv, &mcp.Tool{Name: "memex_procedures", Description: proceduresDescription,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.toolProcedures)
}

func (s *Server) toolProcedures(ctx context.Context, _ *mcp.CallToolRequest, in proceduresInput) (*mcp.CallToolResult, any, error) {
	if s.opts.Memory == nil {
		return nil, nil, errUnavailable
	}
	res, err := s.opts.Memory.Procedures(ctx, ProceduresRequest{Project: in.Project, Family: in.Family})
	if err != nil {
		return nil, nil, err
	}
	text := res.Markdown()
	if len(text) > maxToolBytes {
		text = text[:maxToolBytes-64] + "\n[memex: cut to the tool's limit; memex procedures --json has it all]\n"
	}
	return textResult(text), nil, nil
}

// handleProcedures serves GET /v1/procedures?project=P&family=F
// (format=text for the Markdown alone).
func (s *Server) handleProcedures(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	res, err := s.opts.Memory.Procedures(r.Context(), ProceduresRequest{Project: q.Get("project"), Family: q.Get("family")})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeTextOrJSON(w, q.Get("format"), res.Markdown(), res)
}

// HintRequest asks for the lesson to remind an agent of after a failed
// run: Ref names the run (an ID or alias, such as the host's tool call
// key), Project narrows the alias.
type HintRequest struct {
	Ref     string `json:"ref"`
	Project string `json:"project,omitempty"`
}

// handleHint serves GET /v1/hint?ref=R&project=P: {"text"} with the line
// to add to the agent's context, 404 when there is none.
func (s *Server) handleHint(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("ref") == "" {
		s.answer(w, r, nil, memex.Errorf(memex.ErrInvalid, "hint: give the run's ID or alias: GET /v1/hint?ref=REF"))
		return
	}
	text, err := s.opts.Memory.Hint(r.Context(), HintRequest{Ref: q.Get("ref"), Project: q.Get("project")})
	s.answer(w, r, map[string]string{"text": text}, err)
}
