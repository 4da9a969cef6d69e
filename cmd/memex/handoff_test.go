package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
	"github.com/memex-archive/memex/memory"
)

// fixture writes a transcript of memory/testdata/handoff into dir, with
// the checkout's directory where the transcript names one.
func fixture(t *testing.T, dir, name, cwd string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "memory", "testdata", "handoff", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "@CWD@", cwd)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func hostHook(t *testing.T, home, host, event string, in map[string]any) result {
	t.Helper()
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(in); err != nil {
		t.Fatal(err)
	}
	r := run(t, home, buf.Bytes(), "hook", host, event)
	if r.code != 0 {
		t.Fatalf("hook %s %s exited %d: %s", host, event, r.code, r.stderr)
	}
	return r
}

func injected(t *testing.T, r result) string {
	t.Helper()
	if r.stdout == "" {
		return ""
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string
			AdditionalContext string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("SessionStart output %q: %v", r.stdout, err)
	}
	return out.HookSpecificOutput.AdditionalContext
}

// TestHandoffCodexToClaudeCode: a Codex session yesterday (and a Claude
// Code one the day before) in one checkout of github.com/acme/demo, both
// archived by their hosts' hooks, are what a new Claude Code session in
// another checkout of the same repository is told at its start; the IDs
// it is given read back the exact evidence; stale marks follow the code.
func TestHandoffCodexToClaudeCode(t *testing.T) {
	home := t.TempDir()
	repo := testutil.NewRepo(t, "git@github.com:acme/demo.git")
	repo.Commit("auth: add token refresh", map[string]string{
		"auth/token.go": "package auth\n\nfunc Refresh() error {\n\treturn nil\n}\n",
		"README.md":     "# demo\n\nTokens refresh themselves.\n",
	})
	dir := t.TempDir()
	claude := fixture(t, dir, "5e55c1a0-0000-4000-8000-00000000c1a0.jsonl", repo.Dir)
	codex := fixture(t, dir, "rollout-2026-03-02T10-00-00-0199c0de-0000-7000-8000-00000000c0de.jsonl", repo.Dir)
	hostHook(t, home, "claude-code", "SessionEnd", map[string]any{"session_id": "5e55c1a0-0000-4000-8000-00000000c1a0",
		"transcript_path": claude, "cwd": repo.Dir, "hook_event_name": "SessionEnd"})
	hostHook(t, home, "codex", "Stop", map[string]any{"session_id": "0199c0de-0000-7000-8000-00000000c0de",
		"transcript_path": codex, "cwd": repo.Dir, "hook_event_name": "Stop"})
	if r := run(t, home, nil, "ingest", "git", repo.Dir, "-q"); r.code != 0 {
		t.Fatalf("ingest git: %+v", r)
	}

	// Today, Claude Code starts in another checkout of the repository.
	other := filepath.Join(t.TempDir(), "demo-2")
	repo.Git("worktree", "add", "-q", other)
	start := map[string]any{"session_id": "c0ffee00-0000-4000-8000-000000000001", "transcript_path": filepath.Join(dir, "new.jsonl"),
		"cwd": other, "hook_event_name": "SessionStart", "source": "startup"}
	text := injected(t, hostHook(t, home, "claude-code", "SessionStart", start))
	for _, want := range []string{"[memex handoff · github.com/acme/demo · 2 earlier sessions",
		"codex · 2026-03-02 10:00", "task: Make the token refresh retry once when the server answers 401",
		"claude-code · 2026-03-01 15:00", "go vet ./... · exit 1", "auth/token.go · 1 edit", "auth: add token refresh"} {
		if !strings.Contains(text, want) {
			t.Errorf("injected capsule lacks %q:\n%s", want, text)
		}
	}
	// The failure's ID gives its exact output.
	var vetID string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "go vet ./...") {
			vetID = idRe.FindString(l)
		}
	}
	if r := run(t, home, nil, "show", vetID); r.code != 0 || !strings.Contains(r.stdout, "auth/retry.go:7:2: unreachable code") {
		t.Errorf("show %s: %+v", vetID, r)
	}

	// A resumed session is told too; with MEMEX_HANDOFF=off nothing is.
	start["source"] = "resume"
	if injected(t, hostHook(t, home, "claude-code", "SessionStart", start)) == "" {
		t.Error("resume: nothing injected")
	}
	t.Setenv("MEMEX_HANDOFF", "off")
	if r := hostHook(t, home, "claude-code", "SessionStart", start); r.stdout != "" {
		t.Errorf("MEMEX_HANDOFF=off: injected %q", r.stdout)
	}
	t.Setenv("MEMEX_HANDOFF", "")
	// A project without earlier sessions gets nothing.
	lone := testutil.NewRepo(t, "git@github.com:acme/lone.git")
	lone.Commit("init", map[string]string{"a.txt": "a\n"})
	run(t, home, nil, "ingest", "git", lone.Dir, "-q")
	if r := hostHook(t, home, "codex", "SessionStart", map[string]any{"session_id": "x", "cwd": lone.Dir,
		"hook_event_name": "SessionStart", "source": "startup"}); r.stdout != "" {
		t.Errorf("project with commits alone: injected %q", r.stdout)
	}

	// In the checkout, the commands a user types.
	t.Chdir(other)
	r := run(t, home, nil, "handoff", "--json", "--budget", "600")
	var c memory.Capsule
	if err := json.Unmarshal([]byte(r.stdout), &c); err != nil || r.code != 0 {
		t.Fatalf("handoff --json: %v %+v", err, r)
	}
	if c.Project != "github.com/acme/demo" || c.Used > 600 || len(c.Sections) != 5 {
		t.Errorf("handoff --json: project %q used %d sections %d", c.Project, c.Used, len(c.Sections))
	}
	if r := run(t, home, nil, "search", "token refresh", "--kind", "commit"); r.code != 0 || !strings.Contains(r.stdout, "auth: add token refresh") {
		t.Errorf("search --kind commit: %+v", r)
	}
	if r := run(t, home, nil, "search", "auth/token.go", "--kind", "commit"); r.code != 0 || !strings.Contains(r.stdout, "auth: add token refresh") {
		t.Errorf("search a path over commits: %+v", r)
	}
	// The Codex read of auth/token.go stands until the file changes.
	r = run(t, home, nil, "stale", "--json")
	if r.code != 0 || strings.Contains(r.stdout, "auth/token.go") {
		t.Errorf("stale before the change: %+v", r)
	}
	os.WriteFile(filepath.Join(other, "auth", "token.go"), []byte("package auth\n\nfunc Refresh() error {\n\treturn retryOnce(refresh)\n}\n"), 0o644)
	r = run(t, home, nil, "stale")
	if r.code != 0 || !strings.Contains(r.stdout, "file changed since: auth/token.go:1-5 (line 4 now `return retryOnce(refresh)`)") {
		t.Errorf("stale after the change: %+v", r)
	}
	var readID string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "auth/token.go") {
			readID = idRe.FindString(l)
		}
	}
	if r := run(t, home, nil, "deref", readID); !strings.Contains(r.stdout, "file changed since: auth/token.go") {
		t.Errorf("deref of the stale read %s has no mark: %+v", readID, r)
	}
	if r := run(t, home, nil, "deref", readID, "--json"); !strings.Contains(r.stdout, `"mark": "changed"`) {
		t.Errorf("deref --json of the stale read: %s", r.stdout)
	}
}
