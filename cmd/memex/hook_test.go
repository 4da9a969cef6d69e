package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/redact"
	"github.com/memex-archive/memex/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ccCall is one tool call of a Claude Code transcript with its result.
type ccCall struct {
	id, name string
	input    json.RawMessage
	response json.RawMessage // toolUseResult, or the tool_result content
}

// readCalls extracts the tool calls of a transcript, in order, as the
// host would have passed them to PostToolUse.
func readCalls(t *testing.T, path string) (session, cwd string, calls []ccCall) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var l struct {
			Type, SessionID, Cwd string
			Message              struct {
				Content json.RawMessage
			}
			ToolUseResult json.RawMessage
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if session == "" {
			session, cwd = l.SessionID, l.Cwd
		}
		var raw []map[string]json.RawMessage
		if json.Unmarshal(l.Message.Content, &raw) != nil {
			continue
		}
		for _, b := range raw {
			var typ, id, name, tuid string
			json.Unmarshal(b["type"], &typ)
			json.Unmarshal(b["id"], &id)
			json.Unmarshal(b["name"], &name)
			json.Unmarshal(b["tool_use_id"], &tuid)
			switch typ {
			case "tool_use":
				calls = append(calls, ccCall{id: id, name: name, input: b["input"]})
			case "tool_result":
				for i := range calls {
					if calls[i].id == tuid {
						calls[i].response = l.ToolUseResult
						if len(calls[i].response) == 0 {
							calls[i].response = b["content"]
						}
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return session, cwd, calls
}

func hookRun(t *testing.T, home, event string, in map[string]any) result {
	t.Helper()
	// The host writes tool responses as they are; json.Marshal would
	// escape <, > and & inside them.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		t.Fatal(err)
	}
	r := run(t, home, buf.Bytes(), "hook", "claude-code", event)
	if r.code != 0 {
		t.Fatalf("hook %s exited %d: %s", event, r.code, r.stderr)
	}
	return r
}

var idRe = regexp.MustCompile(`\b[0-9A-HJKMNP-TV-Z]{26}\b`)

// TestHooksEndToEnd plays a real Claude Code session through the hooks in
// order (PostToolUse for every call, PreCompact, SessionStart after the
// compaction) and reads the injected IDs back through the MCP server: they
// give the exact tool outputs.
func TestHooksEndToEnd(t *testing.T) {
	corpora := testutil.Corpora(t)
	path := filepath.Join(corpora, "claude-code", "projects", "-experiments-worktrees", "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
	session, cwd, calls := readCalls(t, path)
	if len(calls) < 30 {
		t.Fatalf("%d calls read", len(calls))
	}
	home := t.TempDir()
	base := map[string]any{"session_id": session, "transcript_path": path, "cwd": cwd}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	hookRun(t, home, "SessionStart", with("hook_event_name", "SessionStart", "source", "startup"))
	for _, c := range calls {
		if r := hookRun(t, home, "PostToolUse", with("hook_event_name", "PostToolUse", "tool_name", c.name,
			"tool_input", c.input, "tool_use_id", c.id, "tool_response", c.response)); r.stdout != "" {
			t.Fatalf("PostToolUse printed %q", r.stdout)
		}
	}
	hookRun(t, home, "PreCompact", with("hook_event_name", "PreCompact", "trigger", "auto"))
	// A background PostToolUse that lands after the import adds nothing.
	hookRun(t, home, "PostToolUse", with("hook_event_name", "PostToolUse", "tool_name", calls[0].name,
		"tool_input", calls[0].input, "tool_use_id", calls[0].id, "tool_response", calls[0].response))
	r := hookRun(t, home, "SessionStart", with("hook_event_name", "SessionStart", "source", "compact"))

	var out struct {
		HookSpecificOutput struct {
			HookEventName     string
			AdditionalContext string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("SessionStart output %q: %v", r.stdout, err)
	}
	injected := out.HookSpecificOutput.AdditionalContext
	if out.HookSpecificOutput.HookEventName != "SessionStart" || len(injected) > hosts.ContextChars || !strings.Contains(injected, "memex_read") {
		t.Fatalf("injected context (%d chars): %q", len(injected), injected)
	}
	ids := idRe.FindAllString(injected, -1)
	if len(ids) < 10 {
		t.Fatalf("injected context names %d IDs:\n%s", len(ids), injected)
	}

	// The import after the hooks did not archive any call twice.
	byTool := map[string]int{}
	r = run(t, home, nil, "context", "--session", session, "--budget", "100000", "--json")
	var ctxRes struct{ Entries []struct{ ID, Kind string } }
	if err := json.Unmarshal([]byte(r.stdout), &ctxRes); err != nil {
		t.Fatal(err, r.stderr)
	}
	for _, e := range ctxRes.Entries {
		byTool[e.Kind]++
	}
	if byTool["tool"] != len(calls) {
		t.Errorf("%d tool entries for %d calls", byTool["tool"], len(calls))
	}

	expected := map[string]string{} // tool_use id -> exact output
	for _, c := range calls {
		_, body := hosts.ToolEntry("claude-code", hosts.HookInput{ToolResponse: c.response})
		expected[c.id] = string(body)
	}
	cmd := exec.Command(memexBin, "--home", home, "mcp")
	cmd.Env = append(os.Environ(), "CLAUDE_CODE_SESSION_ID="+session)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	checked, shell := 0, 0
	for _, id := range ids {
		r := run(t, home, nil, "show", id, "--json")
		var sj api.EntryJSON
		if err := json.Unmarshal([]byte(r.stdout), &sj); err != nil {
			t.Fatalf("show %s: %v", id, err)
		}
		if sj.Kind != memex.KindTool {
			continue
		}
		var want string
		var ok bool
		for _, al := range sj.Aliases {
			if w, found := expected[al]; found {
				want, ok = w, true
			}
		}
		if !ok {
			t.Fatalf("tool entry %s (aliases %v) is no call of the session", id, sj.Aliases)
		}
		if redact.Contains([]byte(want)) || len(want) > 40000 {
			continue // redacted on capture, or larger than one read
		}
		text, isErr := toolText(t, cs, "memex_read", map[string]any{"ids": []string{id}, "budget": 20000})
		if isErr || !strings.Contains(text, want) {
			t.Fatalf("memex_read %s: isError %v; want the exact output %q in %q", id, isErr, want, text)
		}
		checked++
		if sj.Tool == "Bash" {
			shell++
		}
	}
	if checked < 10 || shell < 3 {
		t.Fatalf("checked %d injected tool entries (%d shell); want at least 10 (3)", checked, shell)
	}
	t.Logf("%d calls; context %d chars with %d IDs; %d read back exactly (%d shell)", len(calls), len(injected), len(ids), checked, shell)
}

func TestHookNeverFails(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct{ host, event, stdin string }{
		{"claude-code", "PostToolUse", "not json"},
		{"claude-code", "PostToolUse", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`},
		{"claude-code", "SessionStart", `{"source":"compact","session_id":"none"}`},
		{"claude-code", "PreCompact", `{"transcript_path":"/nonexistent.jsonl"}`},
		{"claude-code", "Whatever", `{}`},
		{"nohost", "PostToolUse", `{}`},
	} {
		r := run(t, home, []byte(c.stdin), "hook", c.host, c.event)
		if r.code != 0 || r.stdout != "" {
			t.Errorf("hook %s %s <%q: %+v", c.host, c.event, c.stdin, r)
		}
	}
}

// TestHookThroughServer: with memex serve running, hooks archive and read
// through it.
// TestStopImportsTheSessionsSubagents: Claude Code's Stop names only the
// main transcript; its subagents' transcripts (<session>/subagents, Claude
// Code 2.1.x) are imported with it, with and without a server, and a
// session without subagents imports without a problem.
func TestStopImportsTheSessionsSubagents(t *testing.T) {
	proj := filepath.Join(testutil.Corpora(t), "claude-code", "projects", "-experiments-worktrees")
	transcript := filepath.Join(proj, "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl")
	subagents, _ := filepath.Glob(filepath.Join(proj, "ef958aa1-0e93-49f0-bb71-150f63befcd1", "subagents", "agent-*.jsonl"))
	if len(subagents) == 0 {
		t.Fatal("no subagent transcripts in the corpus")
	}
	lone := filepath.Join(t.TempDir(), "-p", "5a1e0000-0000-4000-8000-000000000000.jsonl")
	writeFile(t, lone, `{"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"5a1e0000-0000-4000-8000-000000000000","timestamp":"2026-11-01T10:00:00Z","cwd":"/p"}`+"\n")
	for _, served := range []bool{false, true} {
		home := t.TempDir()
		if served {
			startServe(t, home)
		}
		for _, tr := range []string{transcript, lone} {
			r := hookRun(t, home, "Stop", map[string]any{"hook_event_name": "Stop", "session_id": sessionFromName(tr), "cwd": "/p", "transcript_path": tr})
			if r.stderr != "" {
				t.Fatalf("served %v: Stop of %s: %s", served, tr, r.stderr)
			}
		}
		r := run(t, home, nil, "sessions", "--json")
		var got struct{ Sessions []struct{ Session string } }
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("served %v: sessions: %v %+v", served, err, r)
		}
		if want := 2 + len(subagents); len(got.Sessions) != want {
			t.Errorf("served %v: %d sessions archived, want %d (the two main ones and %d subagents): %+v", served, len(got.Sessions), want, len(subagents), got.Sessions)
		}
	}
}

func sessionFromName(p string) string { return strings.TrimSuffix(filepath.Base(p), ".jsonl") }

func TestHookThroughServer(t *testing.T) {
	home := t.TempDir()
	startServe(t, home)
	hookRun(t, home, "PostToolUse", map[string]any{"hook_event_name": "PostToolUse", "session_id": "sv",
		"cwd": home, "tool_name": "Bash", "tool_input": map[string]string{"command": "go vet"}, "tool_use_id": "toolu_sv",
		"tool_response": map[string]any{"stdout": "", "stderr": "vet: x.go:3: unreachable code\n"}})
	if r := run(t, home, nil, "show", "toolu_sv"); r.stdout != "vet: x.go:3: unreachable code\n" {
		t.Fatalf("show through the server: %+v", r)
	}
	r := hookRun(t, home, "SessionStart", map[string]any{"hook_event_name": "SessionStart", "session_id": "sv", "source": "compact"})
	if !strings.Contains(r.stdout, "go vet") || !strings.Contains(r.stdout, "additionalContext") {
		t.Fatalf("SessionStart through the server: %q", r.stdout)
	}
}

// TestCodexNotify: Codex's notify program imports the thread's rollout.
func TestCodexNotify(t *testing.T) {
	corpora := testutil.Corpora(t)
	const thread = "019e9625-802f-7e91-840a-cfe88d14117a"
	codexHome := t.TempDir()
	t.Setenv("CODEX_HOME", codexHome)
	b, err := os.ReadFile(filepath.Join(corpora, "codex", "session-01.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(codexHome, "sessions", "2026", "06", "05", "rollout-2026-06-05T04-58-20-"+thread+".jsonl"), string(b))
	home := t.TempDir()
	r := run(t, home, nil, "hook", "codex", "notify", `{"type":"agent-turn-complete","thread-id":"`+thread+`","cwd":"/tmp"}`)
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("notify: %+v", r)
	}
	r = run(t, home, nil, "context", "--session", thread, "--json")
	var res struct{ Total int }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Total == 0 {
		t.Fatalf("thread not imported: %v %+v", err, r)
	}
}

// codexRollout is a Codex rollout of one thread with one shell call.
func codexRollout(thread, cwd, callID, cmd, output string) string {
	line := func(typ string, payload map[string]any) string {
		b, _ := json.Marshal(map[string]any{"timestamp": "2026-06-05T04:58:21.000Z", "type": typ, "payload": payload})
		return string(b) + "\n"
	}
	args, _ := json.Marshal(map[string]string{"cmd": cmd})
	return line("session_meta", map[string]any{"id": thread, "cwd": cwd, "cli_version": "0.135.0"}) +
		line("event_msg", map[string]any{"type": "user_message", "message": "run the tests"}) +
		line("response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": callID}) +
		line("response_item", map[string]any{"type": "function_call_output", "call_id": callID, "output": output})
}

// TestCodexHookAndImportArchiveACallOnce: a call the Codex PostToolUse hook
// archived is not archived again by the Stop hook's import of the same
// rollout (nor the other way round), and its call_id names one entry.
func TestCodexHookAndImportArchiveACallOnce(t *testing.T) {
	const thread = "019e9625-802f-7e91-840a-cfe88d14117b"
	for _, hookFirst := range []bool{true, false} {
		home, cwd := t.TempDir(), t.TempDir()
		rollout := filepath.Join(t.TempDir(), "rollout-2026-06-05T04-58-20-"+thread+".jsonl")
		writeFile(t, rollout, codexRollout(thread, cwd, "call_go1", "go test ./...", "Exit code: 1\nWall time: 0.2 seconds\nOutput:\n--- FAIL: TestX\n"))
		post := func() {
			in := map[string]any{"hook_event_name": "PostToolUse", "session_id": thread, "turn_id": "t1", "cwd": cwd,
				"transcript_path": rollout, "tool_name": "Bash", "tool_use_id": "call_go1",
				"tool_input": map[string]string{"command": "go test ./..."}, "tool_response": "--- FAIL: TestX\n"}
			b, _ := json.Marshal(in)
			if r := run(t, home, b, "hook", "codex", "PostToolUse"); r.code != 0 || r.stderr != "" {
				t.Fatalf("PostToolUse: %+v", r)
			}
		}
		stop := func() {
			b, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "session_id": thread, "cwd": cwd, "transcript_path": rollout})
			if r := run(t, home, b, "hook", "codex", "Stop"); r.code != 0 || r.stderr != "" {
				t.Fatalf("Stop: %+v", r)
			}
		}
		if hookFirst {
			post()
			stop()
		} else {
			stop()
			post()
		}
		r := run(t, home, nil, "show", "call_go1", "--json")
		var sj api.EntryJSON
		if err := json.Unmarshal([]byte(r.stdout), &sj); r.code != 0 || err != nil {
			t.Fatalf("hook first %v: show call_go1: %+v", hookFirst, r)
		}
		// Codex's hook payload carries no exit status; the rollout does,
		// and completes the entry a hook archived first.
		if sj.Input != "go test ./..." || sj.Exit == nil || *sj.Exit != 1 {
			t.Errorf("hook first %v: entry input %q exit %v", hookFirst, sj.Input, sj.Exit)
		}
		r = run(t, home, nil, "context", "--session", thread, "--json")
		var res struct{ Entries []struct{ Kind string } }
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatal(err, r.stderr)
		}
		tools := 0
		for _, e := range res.Entries {
			if e.Kind == "tool" {
				tools++
			}
		}
		if tools != 1 {
			t.Errorf("hook first %v: %d tool entries for one call", hookFirst, tools)
		}
	}
}

// TestHookAfterImportThroughServer: with memex serve running, a
// PostToolUse that arrives after the transcript import has archived the
// call (a background hook, or Codex's Stop coming first) does not archive
// it again.
func TestHookAfterImportThroughServer(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	startServe(t, home)
	const thread = "019e9625-802f-7e91-840a-cfe88d14117c"
	rollout := filepath.Join(cwd, "rollout-2026-06-05T04-58-20-"+thread+".jsonl")
	writeFile(t, rollout, codexRollout(thread, cwd, "call_s1", "go test ./...", "Exit code: 0\nOutput:\nok\n"))
	stop, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "session_id": thread, "cwd": cwd, "transcript_path": rollout})
	if r := run(t, home, stop, "hook", "codex", "Stop"); r.code != 0 || r.stderr != "" {
		t.Fatalf("Stop: %+v", r)
	}
	post, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": thread, "cwd": cwd, "tool_name": "Bash",
		"tool_use_id": "call_s1", "tool_input": map[string]string{"command": "go test ./..."}, "tool_response": "ok\n"})
	if r := run(t, home, post, "hook", "codex", "PostToolUse"); r.code != 0 || r.stderr != "" {
		t.Fatalf("PostToolUse: %+v", r)
	}
	r := run(t, home, nil, "context", "--session", thread, "--json")
	var res struct{ Entries []struct{ Kind string } }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err, r.stderr)
	}
	tools := 0
	for _, e := range res.Entries {
		if e.Kind == "tool" {
			tools++
		}
	}
	if tools != 1 {
		t.Fatalf("%d tool entries for one call", tools)
	}
}

// TestStaleServeAddrOfAnotherHome: a home whose server was killed keeps
// its serve.addr; when another home's server has taken that address
// since, the first home's hooks and commands archive in their own store,
// not in the other's.
func TestStaleServeAddrOfAnotherHome(t *testing.T) {
	mine, other := t.TempDir(), t.TempDir()
	startServe(t, other)
	if r := run(t, mine, []byte("seed\n"), "add"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	addr, err := os.ReadFile(filepath.Join(other, "serve.addr"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(mine, "serve.addr"), string(addr))
	writeFile(t, filepath.Join(mine, "serve.key"), "the key of a server killed long ago\n")
	hookRun(t, mine, "PostToolUse", map[string]any{"hook_event_name": "PostToolUse", "session_id": "mine",
		"cwd": mine, "tool_name": "Bash", "tool_input": map[string]string{"command": "make"}, "tool_use_id": "toolu_mine",
		"tool_response": map[string]any{"stdout": "built\n", "stderr": ""}})
	if r := run(t, other, nil, "sessions", "--json"); strings.Contains(r.stdout, `"mine"`) {
		t.Fatalf("the call went to the other home's server: %s", r.stdout)
	}
	os.Remove(filepath.Join(mine, "serve.addr"))
	if r := run(t, mine, nil, "show", "toolu_mine"); r.stdout != "built\n" {
		t.Fatalf("the call is not in its own home: %+v", r)
	}
}
