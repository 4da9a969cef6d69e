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
	} {
		if r := run(t, home, nil, c.args...); r.code != 0 || !strings.Contains(r.stdout, c.want+"\n") {
			t.Errorf("%v: %+v; want %q", c.args, r, c.want)
		}
	}
}
