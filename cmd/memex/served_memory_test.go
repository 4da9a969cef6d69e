package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// TestServedMemoryChecksTheClientsCheckout: with a server running
// elsewhere (it owns the store), memex stale, deref, context and handoff
// typed in a checkout go through the server and mark the evidence against
// that checkout's files, as they do without a server.
func TestServedMemoryChecksTheClientsCheckout(t *testing.T) {
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
	os.WriteFile(filepath.Join(repo.Dir, "auth", "token.go"), []byte("package auth\n\nfunc Refresh() error {\n\treturn retryOnce(refresh)\n}\n"), 0o644)
	const mark = "file changed since: auth/token.go:1-5 (line 4 now `return retryOnce(refresh)`)"
	start := map[string]any{"session_id": "c0ffee00-0000-4000-8000-000000000002", "cwd": repo.Dir, "hook_event_name": "SessionStart", "source": "startup"}
	local := injected(t, hostHook(t, home, "claude-code", "SessionStart", start))

	startServe(t, home) // in the package's directory, not the checkout
	t.Chdir(repo.Dir)

	r := run(t, home, nil, "stale")
	if r.code != 0 || !strings.Contains(r.stdout, mark) {
		t.Fatalf("stale through the server: %+v", r)
	}
	var readID string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "auth/token.go") {
			readID = idRe.FindString(l)
		}
	}
	if r := run(t, home, nil, "deref", readID); r.code != 0 || !strings.Contains(r.stdout, mark) {
		t.Errorf("deref through the server: %+v", r)
	}
	if r := run(t, home, nil, "deref", readID, "--no-check"); r.code != 0 || strings.Contains(r.stdout, "file changed") {
		t.Errorf("deref --no-check through the server: %+v", r)
	}
	if r := run(t, home, nil, "context", "--project", "github.com/acme/demo"); r.code != 0 || !strings.Contains(r.stdout, mark) {
		t.Errorf("context through the server: %+v", r)
	}
	if r := run(t, home, nil, "handoff"); r.code != 0 || !strings.Contains(r.stdout, "[memex handoff · github.com/acme/demo · 2 earlier sessions") {
		t.Errorf("handoff through the server: %+v", r)
	}

	// A new session's capsule, through the server, is the one the store
	// gives without it: the edited files marked as the checkout holds them.
	if served := injected(t, hostHook(t, home, "claude-code", "SessionStart", start)); served != local ||
		!strings.Contains(served, "README.md · 1 edit, the last by claude-code, 2026-03-01 15:00 · file changed since: README.md") {
		t.Errorf("SessionStart through the server:\n%s\nwithout it:\n%s", served, local)
	}
}
