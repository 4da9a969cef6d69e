package api

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/summarize"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectMCP connects the SDK's client to s's MCP server in process.
func connectMCP(t *testing.T, s *Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.mcpServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func TestMCPTools(t *testing.T) {
	s, st := newTestServer(t, "", Options{Session: func() string { return "live" }, Agent: "claude-code"})
	out := "=== RUN TestParse\n--- FAIL: TestParse (0.00s)\n    parse_test.go:12: nil map\nFAIL\nexit status 1\n"
	e := mustAdd(t, st, memex.Entry{Session: "live", Project: "p", Agent: "claude-code", Tool: "Bash", Kind: memex.KindTool, Input: "go test", Aliases: []string{"toolu_1"}}, out)
	cs := connectMCP(t, s)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" {
			t.Errorf("%s has no description", tl.Name)
		}
	}
	if strings.Join(names, ",") != "memex_compress,memex_context,memex_handoff,memex_procedures,memex_read,memex_search" {
		t.Fatalf("tools: %v", names)
	}

	text, isErr := call(t, cs, "memex_search", map[string]any{"query": "nil map"})
	if isErr || !strings.Contains(text, e.ID.String()) {
		t.Fatalf("search: %v %q", isErr, text)
	}
	text, isErr = call(t, cs, "memex_search", map[string]any{"query": "nil map", "sessions": true})
	if isErr || !strings.Contains(text, "session live  (project p, 100% of the query's words, 1 hits)") || !strings.Contains(text, e.ID.String()) {
		t.Fatalf("search sessions: %v %q", isErr, text)
	}
	text, isErr = call(t, cs, "memex_read", map[string]any{"ids": []string{"toolu_1"}, "budget": 1000})
	if isErr || !strings.Contains(text, out) {
		t.Fatalf("read: %v %q", isErr, text)
	}
	text, isErr = call(t, cs, "memex_context", map[string]any{})
	if isErr || !strings.Contains(text, e.ID.String()) {
		t.Fatalf("context: %v %q", isErr, text)
	}
	text, isErr = call(t, cs, "memex_compress", map[string]any{
		"summary": "TestParse fails on a nil map; see ctx_fail_001",
		"blocks": []map[string]any{
			{"key": "ctx_fail_001", "start_anchor": "--- FAIL: TestParse", "mid_anchor": "parse_test.go", "end_anchor": "nil map"},
			{"key": "ctx_note_001", "content": "plan: initialise the map in NewParser\n"},
		},
	})
	if isErr || !strings.Contains(text, "ctx_fail_001") {
		t.Fatalf("compress: %v %q", isErr, text)
	}
	text, _ = call(t, cs, "memex_read", map[string]any{"ids": []string{"ctx_fail_001", "ctx_note_001"}})
	if !strings.Contains(text, "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: nil map\n") || !strings.Contains(text, "plan: initialise") {
		t.Fatalf("read compressed blocks: %q", text)
	}
	id, err := st.Resolve(context.Background(), "ctx_fail_001", "")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := st.Get(context.Background(), id)
	if got.Session != "live" || got.Project != "p" || got.Agent != "claude-code" {
		t.Fatalf("compressed block metadata: %+v", got)
	}
}

func TestMCPBadArguments(t *testing.T) {
	s, _ := newTestServer(t, "", Options{})
	cs := connectMCP(t, s)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memex_search", map[string]any{}},
		{"memex_search", map[string]any{"query": 12}},
		{"memex_search", map[string]any{"query": "x", "limit": -1}},
		{"memex_read", map[string]any{"ids": []string{}}},
		{"memex_read", map[string]any{"ids": "not a list"}},
		{"memex_read", map[string]any{"ids": []string{"x"}, "budget": 1}},
		{"memex_context", map[string]any{}},
		{"memex_compress", map[string]any{}},
		{"memex_compress", map[string]any{"summary": "s", "blocks": []map[string]any{{"key": "k", "start_anchor": "a", "end_anchor": "b"}}}},
		{"memex_compress", map[string]any{"summary": "s", "session": "none", "blocks": []map[string]any{{"key": "k", "start_anchor": "a", "end_anchor": "b"}}}},
		{"memex_compress", map[string]any{"blocks": []map[string]any{{"key": "", "content": "x"}}}},
		{"memex_compress", map[string]any{"blocks": []map[string]any{{"key": "k", "content": "x", "start_anchor": "x"}}}},
	} {
		text, isErr := call(t, cs, c.tool, c.args)
		if !isErr || text == "" {
			t.Errorf("%s %v: isError %v, text %q; want a tool error", c.tool, c.args, isErr, text)
		}
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memex_nope"}); err == nil {
		t.Error("unknown tool: no error")
	}
}

// TestMCPOverHTTP talks to /mcp with the SDK's streamable client.
func TestMCPOverHTTP(t *testing.T) {
	s, st := newTestServer(t, "", Options{Token: "tok"})
	e := mustAdd(t, st, memex.Entry{}, "hello over http\n")
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	tr := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{"tok", srv.Client().Transport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	text, isErr := call(t, cs, "memex_read", map[string]any{"ids": []string{e.ID.String()}})
	if isErr || !strings.Contains(text, "hello over http\n") {
		t.Fatalf("read over http: %v %q", isErr, text)
	}
}

func TestExtract(t *testing.T) {
	tr := &transcript{bodies: [][]byte{
		[]byte("newest: alpha one beta two gamma\n"),
		[]byte("older: alpha X gamma\n"),
	}}
	for _, c := range []struct {
		start, mid, end, want string
		ok                    bool
	}{
		{"alpha", "", "gamma", "alpha one beta two gamma", true},
		{"alpha", "beta", "gamma", "alpha one beta two gamma", true},
		{"alpha", "X", "gamma", "alpha X gamma", true},
		{"alpha", "zzz", "gamma", "", false},
		{"gamma", "", "alpha", "", false},
		{"newest: alpha", "", "alpha", "newest: alpha", true},
	} {
		got, ok := tr.extract(c.start, c.mid, c.end)
		if ok != c.ok || string(got) != c.want {
			t.Errorf("extract(%q,%q,%q) = %q %v, want %q %v", c.start, c.mid, c.end, got, ok, c.want, c.ok)
		}
	}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestMCPBudgetRule: the tools keep the budget rule of every surface: none
// is the default of memex deref (2,000) and memex context (4,000), a
// negative budget is invalid, never read as the default.
func TestMCPBudgetRule(t *testing.T) {
	s, st := newTestServer(t, "", Options{})
	e := mustAdd(t, st, memex.Entry{Project: "p", Session: "s1"}, strings.Repeat("a line of a long build log\n", 3000))
	cs := connectMCP(t, s)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"memex_read", map[string]any{"ids": []string{e.ID.String()}, "budget": -5}},
		{"memex_context", map[string]any{"project": "p", "budget": -1}},
	} {
		if text, isErr := call(t, cs, c.tool, c.args); !isErr || !strings.Contains(text, "negative") {
			t.Errorf("%s %v: isError %v, text %q; want the negative budget refused", c.tool, c.args, isErr, text)
		}
	}
	text, isErr := call(t, cs, "memex_read", map[string]any{"ids": []string{e.ID.String()}})
	if n := summarize.CountString(text); isErr || n > deref.DefaultBudget || n < deref.DefaultBudget/2 {
		t.Errorf("memex_read with no budget: %d tokens, isError %v; want at most the default %d", n, isErr, deref.DefaultBudget)
	}
}

// TestMCPReadBinary: memex_read gives a binary entry as a note, and as
// base64 within the budget when asked, never as raw bytes.
func TestMCPReadBinary(t *testing.T) {
	s, st := newTestServer(t, "", Options{})
	body := "\x7fELF\x00\xff" + strings.Repeat("\x00\x01\x02\x03", 2000)
	e := mustAdd(t, st, memex.Entry{Tool: "cat"}, body)
	cs := connectMCP(t, s)
	text, isErr := call(t, cs, "memex_read", map[string]any{"ids": []string{e.ID.String()}, "budget": 300})
	if isErr || !strings.Contains(text, "binary content (8,006 bytes) not shown") || strings.Contains(text, "\x00") {
		t.Fatalf("memex_read of binary: isError %v, %q", isErr, text)
	}
	text, isErr = call(t, cs, "memex_read", map[string]any{"ids": []string{e.ID.String()}, "budget": 300, "base64": true})
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if isErr || len(lines) < 3 || !strings.HasSuffix(lines[0], "base64 of 8,006 bytes") ||
		!strings.Contains(lines[len(lines)-1], "of 8,006 not shown; memex show "+e.ID.String()+" > FILE saves all]") {
		t.Fatalf("memex_read base64: isError %v, %q", isErr, text)
	}
	got, err := base64.StdEncoding.DecodeString(strings.Join(lines[1:len(lines)-1], ""))
	if err != nil || len(got) == 0 || !strings.HasPrefix(body, string(got)) {
		t.Fatalf("memex_read base64 lines do not decode to the entry's start: %v, %q", err, text)
	}
	if n := summarize.CountString(text); n > 300 {
		t.Fatalf("memex_read base64: %d tokens over the budget of 300", n)
	}
}

// TestMCPErrorsReadAsTheirSentence: a tool's error is the error's own
// sentence, as the CLI prints it and the HTTP API sends it, not the chain
// of package prefixes it came out through.
func TestMCPErrorsReadAsTheirSentence(t *testing.T) {
	s, st := newTestServer(t, "", Options{})
	mustAdd(t, st, memex.Entry{Project: "p", Session: "s1"}, "x\n")
	cs := connectMCP(t, s)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"memex_context", map[string]any{"session": "nosuch"}, `session "nosuch": not found; memex sessions lists them`},
		{"memex_context", map[string]any{"project": "nosuch"}, "no entries for project nosuch: not found"},
	} {
		if text, isErr := call(t, cs, c.tool, c.args); !isErr || text != c.want {
			t.Errorf("%s %v: isError %v, %q; want %q", c.tool, c.args, isErr, text, c.want)
		}
	}
}

// TestCompressJoinsTheArchivedSession: memex_compress into a session the
// host's hooks archived (agent claude-code) files its blocks under that
// session's agent and project, not the server's agent: a second session
// of the same name would make the name alone (memex_context, the next
// compress) ambiguous.
func TestCompressJoinsTheArchivedSession(t *testing.T) {
	s, st := newTestServer(t, "", Options{Agent: "mcp"})
	mustAdd(t, st, memex.Entry{Session: "live", Project: "p", Agent: "claude-code", Tool: "Bash", Kind: memex.KindTool, Input: "go test"},
		"--- FAIL: TestParse (0.00s)\n    parse_test.go:12: nil map\n")
	cs := connectMCP(t, s)
	for i, args := range []map[string]any{
		{"session": "live", "summary": "TestParse fails on a nil map", "blocks": []map[string]any{{"key": "ctx_note_001", "content": "plan: initialise the map\n"}}},
		{"session": "live", "summary": "the failure, kept", "blocks": []map[string]any{{"key": "ctx_fail_001", "start_anchor": "--- FAIL: TestParse", "end_anchor": "nil map"}}},
	} {
		if text, isErr := call(t, cs, "memex_compress", args); isErr {
			t.Fatalf("compress %d: %q", i, text)
		}
	}
	for _, key := range []string{"ctx_note_001", "ctx_fail_001"} {
		id, err := st.Resolve(context.Background(), key, "")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := st.Get(context.Background(), id)
		if got.Session != "live" || got.Project != "p" || got.Agent != "claude-code" {
			t.Errorf("%s: session %q, project %q, agent %q; want live, p, claude-code", key, got.Session, got.Project, got.Agent)
		}
	}
	text, isErr := call(t, cs, "memex_context", map[string]any{"session": "live"})
	if isErr || !strings.Contains(text, "TestParse fails on a nil map") {
		t.Fatalf("context of the session: %v %q", isErr, text)
	}
}

// TestCompressWithoutSessionFilesUnderTheServersProject: with no live
// session, what memex_compress archives is filed under the project the
// server runs in (memex_handoff's default), so that the next handoff of it
// lists the note.
func TestCompressWithoutSessionFilesUnderTheServersProject(t *testing.T) {
	s, st := newTestServer(t, "", Options{Checkout: func(dir string) *deref.Checkout { return deref.NewCheckout(dir, "p") }})
	if text, isErr := call(t, connectMCP(t, s), "memex_compress", map[string]any{"summary": "decided: keep the retry loop"}); isErr {
		t.Fatalf("compress: %q", text)
	}
	var got []memex.Entry
	if err := st.Scan(context.Background(), time.Time{}, time.Time{}, func(e memex.Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Project != "p" {
		t.Fatalf("compressed note: %+v, want it in project p", got)
	}
}

// TestCompressBlocksAlone: memex_compress takes blocks without a summary,
// as its error for neither says ("give a summary or blocks"); its schema
// does not require one.
func TestCompressBlocksAlone(t *testing.T) {
	s, _ := newTestServer(t, "", Options{})
	text, isErr := call(t, connectMCP(t, s), "memex_compress", map[string]any{
		"blocks": []map[string]any{{"key": "ctx_only_001", "content": "a block, no summary\n"}}})
	if isErr || !strings.Contains(text, "ctx_only_001") {
		t.Fatalf("compress of blocks alone: %v %q", isErr, text)
	}
}
