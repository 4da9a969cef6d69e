package main

import (
	"strings"
	"testing"
)

func TestCompletion(t *testing.T) {
	home := t.TempDir()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := run(t, home, nil, "completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, "memex") || len(r.stdout) < 1000 {
			t.Fatalf("completion %s: code %d, %d bytes", shell, r.code, len(r.stdout))
		}
	}
	if r := run(t, home, nil, "completion", "tcsh"); r.code != 2 {
		t.Fatalf("completion tcsh: %+v", r)
	}
	if r := run(t, home, []byte("archived\n"), "add", "--session", "sess-alpha", "-"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "replay", ""}, "sess-alpha"},
		{[]string{"__complete", "search", "x", "--session", ""}, "sess-alpha"},
		{[]string{"__complete", "install", ""}, "gemini"},
		{[]string{"__complete", "ingest", ""}, "mini-swe-agent"},
		{[]string{"__complete", "hook", "claude-code", ""}, "PostToolUseFailure"},
		{[]string{"__complete", "search", "x", "--kind", ""}, "reasoning"},
		{[]string{"__complete", "search", "x", "--kind", ""}, "lesson"},
		{[]string{"__complete", "sessions", "--agent", ""}, "github"},
	} {
		if r := run(t, home, nil, c.args...); r.code != 0 || !strings.Contains(r.stdout, c.want+"\n") {
			t.Errorf("%v: %+v; want %q", c.args, r, c.want)
		}
	}
}

// Session names complete from the store, and from the server while one
// owns it, alike.
func TestCompleteSessionNames(t *testing.T) {
	home := t.TempDir()
	for _, s := range []string{"fix-auth", "team/feature"} {
		if r := run(t, home, []byte("a note\n"), "add", "--project", "p", "--session", s, "-"); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	const want = "fix-auth\nteam/feature\n:4\n"
	complete := func() string {
		t.Helper()
		r := run(t, home, nil, "__complete", "replay", "")
		if r.code != 0 {
			t.Fatalf("__complete: %+v", r)
		}
		return r.stdout
	}
	if got := complete(); got != want {
		t.Fatalf("from the store: %q, want %q", got, want)
	}
	startServe(t, home)
	if got := complete(); got != want {
		t.Fatalf("from the server: %q, want %q", got, want)
	}
}
