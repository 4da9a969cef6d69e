package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func toolText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// TestMCPStdioBinary talks to the built binary's `memex mcp` with the SDK's
// client, as a host that spawns MCP servers does.
func TestMCPStdioBinary(t *testing.T) {
	home := t.TempDir()
	out := "ok  \tgithub.com/x/y\t0.01s\n--- FAIL: TestZ\n    z_test.go:9: want 3, got 4\n"
	// As the host's PostToolUse hook archives it: the live session's agent.
	r := run(t, home, []byte(out), "add", "--tool", "bash", "--input", "go test ./...", "--session", "sess-1", "--agent", "claude-code", "--alias", "toolu_9", "-")
	if r.code != 0 {
		t.Fatal(r)
	}
	id := strings.TrimSpace(r.stdout)

	cmd := exec.Command(memexBin, "--home", home, "mcp")
	cmd.Env = append(os.Environ(), "CLAUDE_CODE_SESSION_ID=sess-1", "MEMEX_SESSION=")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 6 {
		t.Fatalf("tools: %v %v", tools, err)
	}
	if text, isErr := toolText(t, cs, "memex_search", map[string]any{"query": "want 3"}); isErr || !strings.Contains(text, id) {
		t.Fatalf("search: %v %q", isErr, text)
	}
	if text, isErr := toolText(t, cs, "memex_read", map[string]any{"ids": []string{"toolu_9"}}); isErr || !strings.Contains(text, out) {
		t.Fatalf("read: %v %q", isErr, text)
	}
	if text, isErr := toolText(t, cs, "memex_context", map[string]any{}); isErr || !strings.Contains(text, id) {
		t.Fatalf("context of the live session: %v %q", isErr, text)
	}
	text, isErr := toolText(t, cs, "memex_compress", map[string]any{"summary": "Z fails: want 3 got 4",
		"blocks": []map[string]any{{"key": "ctx_z_001", "start_anchor": "--- FAIL: TestZ", "end_anchor": "got 4"}}})
	if isErr || !strings.Contains(text, "ctx_z_001") {
		t.Fatalf("compress: %v %q", isErr, text)
	}
	text, isErr = toolText(t, cs, "memex_compress", map[string]any{"summary": "env seen",
		"blocks": []map[string]any{{"key": "ctx_env_001", "content": "AWS_ACCESS_KEY_ID=" + testAWSKey + "\n"}}})
	if isErr || !strings.Contains(text, "ctx_env_001") || !strings.Contains(text, "1 secret redacted") || strings.Contains(text, testAWSKey) {
		t.Fatalf("compress of a block with a secret: %v %q", isErr, text)
	}
	if text, isErr := toolText(t, cs, "memex_read", map[string]any{"ids": []string{"ctx_env_001"}}); isErr || !strings.Contains(text, "1 secret redacted") {
		t.Fatalf("read of a redacted block: %v %q", isErr, text)
	}
	// The blocks joined the live session: its name still names one.
	if text, isErr := toolText(t, cs, "memex_context", map[string]any{}); isErr || !strings.Contains(text, "ctx_z_001") && !strings.Contains(text, "Z fails") {
		t.Fatalf("context of the live session after compress: %v %q", isErr, text)
	}
	if text, isErr := toolText(t, cs, "memex_read", map[string]any{"ids": "nope"}); !isErr || text == "" {
		t.Fatalf("bad arguments: %v %q", isErr, text)
	}
	// The store is not held between calls: the CLI reads what compress wrote.
	if r := run(t, home, nil, "show", "ctx_z_001"); r.stdout != "--- FAIL: TestZ\n    z_test.go:9: want 3, got 4" {
		t.Fatalf("show compressed block: %+v", r)
	}
	if r := run(t, home, nil, "show", "ctx_z_001", "--json"); !strings.Contains(r.stdout, `"agent": "claude-code"`) || !strings.Contains(r.stdout, `"session": "sess-1"`) {
		t.Fatalf("compressed block metadata: %s", r.stdout)
	}
}

// TestMCPStdioForwardsToServer: a memex mcp started while memex serve runs
// forwards the tool calls to it.
func TestMCPStdioForwardsToServer(t *testing.T) {
	home := t.TempDir()
	startServe(t, home)
	r := run(t, home, []byte("served output\n"), "add", "--session", "fw", "--alias", "fw1", "-")
	if r.code != 0 {
		t.Fatal(r)
	}
	cmd := exec.Command(memexBin, "--home", home, "mcp")
	cmd.Env = append(os.Environ(), "MEMEX_SESSION=fw")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if text, isErr := toolText(t, cs, "memex_read", map[string]any{"ids": []string{"fw1"}}); isErr || !strings.Contains(text, "served output\n") {
		t.Fatalf("read through the server: %v %q", isErr, text)
	}
	if text, isErr := toolText(t, cs, "memex_context", map[string]any{}); isErr || !strings.Contains(text, "session fw") {
		t.Fatalf("context through the server: %v %q", isErr, text)
	}
	// What the server's memex_compress files joins the live session, which
	// its name alone still names.
	if text, isErr := toolText(t, cs, "memex_compress", map[string]any{"summary": "served output seen",
		"blocks": []map[string]any{{"key": "fw_block", "start_anchor": "served", "end_anchor": "output"}}}); isErr {
		t.Fatalf("compress through the server: %q", text)
	}
	if text, isErr := toolText(t, cs, "memex_context", map[string]any{}); isErr || !strings.Contains(text, "served output seen") {
		t.Fatalf("context through the server after compress: %v %q", isErr, text)
	}
}

// TestMCPStdioBadLine: memex mcp answers a line that is not JSON with a
// parse error and goes on; it answers every request read before stdin
// closes and exits 0.
func TestMCPStdioBadLine(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`garbage`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n") + "\n"
	r := run(t, t.TempDir(), []byte(in), "mcp")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("memex mcp: %+v", r)
	}
	for _, want := range []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,`, `{"jsonrpc":"2.0","id":1,"result":`,
		`{"jsonrpc":"2.0","id":2,"result":`, `{"jsonrpc":"2.0","id":3,"result":{}}`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %s in\n%s", want, r.stdout)
		}
	}
}
