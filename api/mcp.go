package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const instructions = `memex archives every tool output of this and earlier sessions, at full fidelity, under stable IDs (26-character ULIDs) and aliases. Keep short summaries with IDs in your working context instead of copying big outputs; when you need the exact evidence again, call memex_read with the IDs and a token budget. memex_search finds entries by words, file paths and filters across sessions and agents. memex_compress archives blocks you choose (your notes, or verbatim spans of this session's transcript by anchors) and returns their IDs. memex_context lists what this session (or project) has archived, one line per entry with its ID. memex_handoff tells what earlier sessions of any agent left for this project (their tasks, notes, open failures, files, commits): call it when you start on a project. memex_procedures tells how this project's tests, build and linters were run successfully before (commands, variants, the runs behind them): call it before running them. An entry that showed a file says whether those lines still stand in the checkout ("file changed since" means: read the file again before relying on it).`

// Tool inputs. Descriptions are what the model reads.

type searchInput struct {
	Query   string `json:"query" jsonschema:"words, \"quoted phrases\", file paths, and field:value filters (exit:1, tool:bash, path:auth.go); entries with all words come first, then those with most"`
	Limit   int    `json:"limit,omitempty" jsonschema:"hits to return, default 10, at most 50"`
	Project string `json:"project,omitempty" jsonschema:"only entries of this project"`
	Session string `json:"session,omitempty" jsonschema:"only entries of this session"`
	Agent   string `json:"agent,omitempty" jsonschema:"only entries of this agent (claude-code, codex, opencode, cli, ...)"`
	Kind    string `json:"kind,omitempty" jsonschema:"only entries of this kind (tool, message, reasoning, note, ...)"`
	Tool    string `json:"tool,omitempty" jsonschema:"only entries of this tool (Bash, Read, Grep, ...)"`
	Before  string `json:"before,omitempty" jsonschema:"only entries older than this ID or alias"`
	After   string `json:"after,omitempty" jsonschema:"only entries newer than this ID or alias"`
	// Sessions ranks sessions instead of entries.
	Sessions bool `json:"sessions,omitempty" jsonschema:"rank sessions instead of entries: which sessions hold the evidence, their entries between them holding the most of the query's words; limit counts sessions, each with its best hits"`
}

type readInput struct {
	IDs     []string `json:"ids" jsonschema:"entry IDs or aliases to read, in the order wanted"`
	Budget  int      `json:"budget,omitempty" jsonschema:"most tokens to return for all entries together; default 2000, at most 20000"`
	Query   string   `json:"query,omitempty" jsonschema:"words whose lines to show first when an entry does not fit the budget"`
	Project string   `json:"project,omitempty" jsonschema:"narrows an alias that names entries in several projects"`
	Base64  bool     `json:"base64,omitempty" jsonschema:"give an entry that is binary (not valid UTF-8) as the base64 of its bytes within the budget, instead of a note"`
}

type block struct {
	Key         string `json:"key" jsonschema:"your name for the block (becomes an alias of its ID), e.g. ctx_auth_001"`
	Content     string `json:"content,omitempty" jsonschema:"the text to archive as is; give this or the three anchors"`
	StartAnchor string `json:"start_anchor,omitempty" jsonschema:"exact text where the block starts in this session's transcript"`
	MidAnchor   string `json:"mid_anchor,omitempty" jsonschema:"exact text somewhere between start and end (disambiguates)"`
	EndAnchor   string `json:"end_anchor,omitempty" jsonschema:"exact text where the block ends (included)"`
	Summary     string `json:"summary,omitempty" jsonschema:"one line about the block, shown in context and search"`
}

type compressInput struct {
	Summary string  `json:"summary,omitempty" jsonschema:"your compressed working context: what was done and found, citing IDs; archived as a note (give it, blocks, or both)"`
	Blocks  []block `json:"blocks,omitempty" jsonschema:"blocks to archive: {key, content} or {key, start_anchor, mid_anchor, end_anchor} (extracted verbatim from this session's archived transcript)"`
	Session string  `json:"session,omitempty" jsonschema:"session the blocks come from; default the live session"`
	Project string  `json:"project,omitempty" jsonschema:"project to file the blocks under; default the session's, else the project the server runs in"`
}

type contextInput struct {
	Session string `json:"session,omitempty" jsonschema:"session to summarise; default the live session (unless project is given)"`
	Agent   string `json:"agent,omitempty" jsonschema:"the agent of the session (claude-code, codex, ...), when sessions of several agents share its name"`
	Project string `json:"project,omitempty" jsonschema:"project to summarise (across sessions and agents)"`
	Budget  int    `json:"budget,omitempty" jsonschema:"most tokens to return; default 4000, at most 20000"`
	Before  string `json:"before,omitempty" jsonschema:"only entries older than this ID or alias"`
}

// compressed is what memex_compress archived.
type compressed struct {
	Key     string   `json:"key"`
	ID      memex.ID `json:"id"`
	Aliases []string `json:"aliases,omitempty"`
	Tokens  int64    `json:"tokens"`
	// Redacted counts the credentials replaced before the block was stored.
	Redacted int `json:"redacted,omitempty"`
}

// mcpServer builds the MCP server with the memex tools.
func (s *Server) mcpServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "memex", Version: s.opts.Version},
		&mcp.ServerOptions{Instructions: instructions})
	addTool(srv, &mcp.Tool{Name: "memex_search", Description: `Search the memex archive of past tool outputs, messages and notes (this session, earlier sessions, other agents). Returns hits with their IDs, one-line summaries, a short exact snippet and the token cost of reading each in full. Follow up with memex_read on the IDs you need.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.toolSearch)
	addTool(srv, &mcp.Tool{Name: "memex_read", Description: `Read archived entries by ID or alias: the exact bytes as they were archived, never a paraphrase. When the entries do not fit the budget, you get exact windows (lines matching the query, error lines, head and tail) with markers saying which lines were left out and how to get them. A binary entry (not valid UTF-8) reads as a note, or with base64 as the base64 of its bytes from the start, cut to the budget with a marker of the bytes left out.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.toolRead)
	addTool(srv, &mcp.Tool{Name: "memex_compress", Description: `Archive what you want to drop from your context and keep its index: your summary (a note) plus blocks, each either given as content or located verbatim in this session's archived transcript by a start, a middle and an end anchor. Returns the ID and alias of every block; cite them in your summary and read them back later with memex_read.`}, s.toolCompress)
	addTool(srv, &mcp.Tool{Name: "memex_context", Description: `The IndexedSummary of this session (or of a project across sessions and agents): one line per archived entry with its ID, what ran and how it ended, within a token budget. Use it after a compaction or at the start of work to see what is archived and read details with memex_read.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.toolContext)
	s.addMemoryTools(srv)
	return srv
}

// mcpHandler serves MCP over streamable HTTP.
func (s *Server) mcpHandler() http.Handler {
	srv := s.mcpServer()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{MaxRequestBodyBytes: s.opts.MaxJSON, SessionTimeout: 30 * time.Minute, Logger: s.log})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		// A GET is the server-to-client stream, open for as long as the
		// client stays: end it when the server shuts down.
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-s.stopping:
				cancel()
			case <-ctx.Done():
			}
		}()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// ServeStdio serves the MCP tools over in and out (newline-delimited
// JSON-RPC, as hosts that spawn servers speak it) until the peer closes in
// or ctx is done. A line that is not JSON-RPC is answered with an error and
// skipped; the requests read before in ends are answered before it returns.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	err := s.mcpServer().Run(ctx, stdioTransport(in, out))
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// toolBudget is a tool's budget under the rule of every surface
// (docs/agents.md, "What a budget counts"): none (0) is the surface's
// default, as for memex deref and memex context; a negative one is
// invalid; above MaxToolTokens it is lowered to it, so a result stays
// under what hosts accept.
func toolBudget(b, def int) (int, error) {
	switch {
	case b < 0:
		return 0, fmt.Errorf("budget %d is negative: give a number of tokens, or none for %d: %w", b, def, memex.ErrInvalid)
	case b == 0:
		return def, nil
	case b > MaxToolTokens:
		return MaxToolTokens, nil
	}
	return b, nil
}

// maxToolBytes bounds a text result that is not budgeted in tokens (search
// hits): a token is at least one byte, so this stays below MaxToolTokens.
const maxToolBytes = MaxToolTokens

func (s *Server) toolSearch(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, fmt.Errorf("memex_search: query is empty: %w", memex.ErrInvalid)
	}
	if in.Limit < 0 {
		return nil, nil, fmt.Errorf("memex_search: limit %d: want 1 to 50 (none: 10): %w", in.Limit, memex.ErrInvalid)
	}
	if in.Limit == 0 {
		in.Limit = 10
	}
	in.Limit = min(in.Limit, 50)
	res, err := s.svc.Search(ctx, Query{Text: in.Query, Limit: in.Limit, Project: in.Project, Session: in.Session,
		Agent: in.Agent, Kind: in.Kind, Tool: in.Tool, Before: in.Before, After: in.After, Sessions: in.Sessions})
	if err != nil {
		return nil, nil, err
	}
	if in.Sessions {
		return textResult(sessionsText(res)), nil, nil
	}
	var b strings.Builder
	switch {
	case len(res.Hits) == 0:
		b.WriteString("no matches\n")
	case res.Relaxed:
		b.WriteString("(no entry matches every word; these match some)\n")
	}
	full := len(res.Hits) - res.Partly
	for i, h := range res.Hits {
		var line strings.Builder
		if i == full && !res.Relaxed {
			line.WriteString("(these match only some of the words)\n")
		}
		fmt.Fprintf(&line, "%s  %s  (%d tok", h.ID, oneLine(h.Summary, 200), h.Tokens)
		if h.Session != "" {
			fmt.Fprintf(&line, ", session %s", h.Session)
		}
		if h.Agent != "" {
			fmt.Fprintf(&line, ", %s", h.Agent)
		}
		fmt.Fprintf(&line, ", %s)\n", h.Created.Format("2006-01-02 15:04"))
		if h.Snippet != "" {
			fmt.Fprintf(&line, "    %s\n", oneLine(h.Snippet, 300))
		}
		if !within(&b, line.String(), len(res.Hits)-i, "hits") {
			break
		}
	}
	if res.Partial {
		b.WriteString(partialLine)
	}
	return textResult(b.String()), nil, nil
}

// partialLine ends a search answer cut short by its time bound.
const partialLine = "(partial: the search ran out of time; narrow the query)\n"

// within adds part to b unless that takes b past maxToolBytes; then it
// says instead that left more (what: "hits", "sessions") are left out,
// and is false.
func within(b *strings.Builder, part string, left int, what string) bool {
	if b.Len()+len(part) > maxToolBytes {
		fmt.Fprintf(b, "[memex: %d more %s left out to stay within the result limit]\n", left, what)
		return false
	}
	b.WriteString(part)
	return true
}

// sessionHitsShown is how many of a session's hits sessionsText shows.
const sessionHitsShown = 3

// sessionsText is memex_search's answer with sessions set: each session,
// the share of the query's words its hits hold, and its best hits.
func sessionsText(res SearchResult) string {
	var b strings.Builder
	if len(res.Sessions) == 0 {
		b.WriteString("no matches\n")
	}
	for i, s := range res.Sessions {
		var line strings.Builder
		fmt.Fprintf(&line, "session %s  (project %s, %.0f%% of the query's words, %d hits)\n", s.Session, s.Project, 100*s.Cover, len(s.Hits))
		for _, h := range s.Hits[:min(len(s.Hits), sessionHitsShown)] {
			fmt.Fprintf(&line, "    %s  %s  (%d tok, %s)\n", h.ID, oneLine(h.Summary, 200), h.Tokens, h.Created.Format("2006-01-02 15:04"))
		}
		if !within(&b, line.String(), len(res.Sessions)-i, "sessions") {
			break
		}
	}
	if res.Partial {
		b.WriteString(partialLine)
	}
	return b.String()
}

// addTool adds every memex tool to srv, its errors read as their sentence
// (memex.Sentence), the words the CLI prints and the HTTP API sends for
// them, without the context the layers on the way out wrapped them in.
func addTool[In any](srv *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, any]) {
	mcp.AddTool(srv, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		res, out, err := h(ctx, req, in)
		if err != nil {
			err = errors.New(memex.Sentence(err))
		}
		return res, out, err
	})
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func (s *Server) toolRead(ctx context.Context, _ *mcp.CallToolRequest, in readInput) (*mcp.CallToolResult, any, error) {
	if len(in.IDs) == 0 {
		return nil, nil, fmt.Errorf("memex_read: ids is empty: %w", memex.ErrInvalid)
	}
	budget, err := toolBudget(in.Budget, deref.DefaultBudget)
	if err != nil {
		return nil, nil, fmt.Errorf("memex_read: %w", err)
	}
	res, err := s.svc.Deref(ctx, DerefRequest{Refs: in.IDs, Budget: budget, Query: in.Query, Project: in.Project, Checkout: s.ownDir(), Base64: in.Base64})
	if err != nil {
		return nil, nil, err
	}
	return textResult(res.Text), nil, nil
}

func (s *Server) toolContext(ctx context.Context, _ *mcp.CallToolRequest, in contextInput) (*mcp.CallToolResult, any, error) {
	if in.Session == "" && in.Project == "" {
		in.Session = s.session()
		if in.Session == "" {
			return nil, nil, fmt.Errorf("memex_context: no live session known: give session or project: %w", memex.ErrInvalid)
		}
	}
	budget, err := toolBudget(in.Budget, deref.DefaultContextBudget)
	if err != nil {
		return nil, nil, fmt.Errorf("memex_context: %w", err)
	}
	res, err := s.svc.Context(ctx, ContextRequest{Session: in.Session, Agent: in.Agent, Project: in.Project, Budget: budget, Before: in.Before, Checkout: s.ownDir()})
	if err != nil {
		return nil, nil, err
	}
	return textResult(res.Text), nil, nil
}

func (s *Server) toolCompress(ctx context.Context, _ *mcp.CallToolRequest, in compressInput) (*mcp.CallToolResult, any, error) {
	out, err := s.compress(ctx, in)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "archived %d entries; read any back with memex_read:\n", len(out))
	for _, c := range out {
		if c.Redacted > 0 {
			fmt.Fprintf(&b, "%s  %s  (%d tok, %s)\n", c.ID, c.Key, c.Tokens, memex.RedactedNote(c.Redacted))
			continue
		}
		fmt.Fprintf(&b, "%s  %s  (%d tok)\n", c.ID, c.Key, c.Tokens)
	}
	return textResult(b.String()), nil, nil
}
