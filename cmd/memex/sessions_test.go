package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/render"
)

// TestSessionPrefix: the first characters of a session's name name it in
// replay and context --session, from the store and through a running
// server alike (memex replay 5f0c2a91, as the README shows); a prefix of
// several names is an error listing them.
func TestSessionPrefix(t *testing.T) {
	home := t.TempDir()
	for _, s := range []string{"5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", "5f1d0000-aaaa", "5f1d9999-bbbb"} {
		if r := run(t, home, []byte("output of "+s+"\n"), "add", "--session", s, "--tool", "bash", "-"); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	check := func(where string) {
		t.Helper()
		for _, args := range [][]string{{"replay", "5f0c2a91"}, {"replay", "5f0c", "--full"}, {"context", "--session", "5f0c"}} {
			r := run(t, home, nil, args...)
			if r.code != 0 || !strings.Contains(r.stdout, "output of 5f0c2a91-7d3e") && !strings.Contains(r.stdout, "5f0c2a91-7d3e") {
				t.Errorf("%s: %v: %+v", where, args, r)
			}
		}
		r := run(t, home, nil, "replay", "5f1d")
		if r.code != 1 || !strings.Contains(r.stderr, "5f1d0000-aaaa") || !strings.Contains(r.stderr, "5f1d9999-bbbb") {
			t.Errorf("%s: replay of an ambiguous prefix: %+v", where, r)
		}
		if r := run(t, home, nil, "replay", "5f2"); r.code != 1 || !strings.Contains(r.stderr, `session "5f2": not found`) {
			t.Errorf("%s: replay of no session's prefix: %+v", where, r)
		}
	}
	check("from the store")
	startServe(t, home)
	check("through the server")
}

// TestSessionsTable: the default table fits 100 columns with long names,
// paths and agents; a UUID is shown by a prefix replay takes; --wide
// shows every name and path whole; --limit and --since narrow it.
func TestSessionsTable(t *testing.T) {
	home := t.TempDir()
	add := func(session, agent, project string) {
		t.Helper()
		r := run(t, home, []byte("x\n"), "add", "--session", session, "--agent", agent, "--project", project, "--tool", "bash", "-")
		if r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	add("fe869ecb-c176-478f-9734-7e4b8ef12cff", "claude-code", "/Users/someone/workspace/a-rather-long-project-name")
	add("fe869ecb-0000-478f-9734-7e4b8ef12cff", "claude-code", "/Users/someone/workspace/a-rather-long-project-name")
	add("fasterxml__jackson-databind-4360", "mini-swe-agent", "github.com/FasterXML/jackson-databind")
	r := run(t, home, nil, "sessions")
	if r.code != 0 {
		t.Fatalf("sessions: %+v", r)
	}
	for _, l := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
	for _, want := range []string{"\nfe869ecb-c  ", "\nfe869ecb-0  ", "fasterxml_…tabind-4360", "a-rather-lo…"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("sessions does not show %q:\n%s", want, r.stdout)
		}
	}
	if r := run(t, home, nil, "replay", "fe869ecb-c"); r.code != 0 {
		t.Errorf("replay of the prefix shown: %+v", r)
	}
	wide := run(t, home, nil, "sessions", "--wide")
	for _, want := range []string{"fe869ecb-c176-478f-9734-7e4b8ef12cff", "fasterxml__jackson-databind-4360", "/Users/someone/workspace/a-rather-long-project-name"} {
		if !strings.Contains(wide.stdout, want) {
			t.Errorf("sessions --wide does not show %q:\n%s", want, wide.stdout)
		}
	}
	var list api.SessionList
	r = run(t, home, nil, "sessions", "--limit", "1", "--since", "1h", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || len(list.Sessions) != 1 || list.Sessions[0].Session != "fasterxml__jackson-databind-4360" {
		t.Errorf("sessions --limit 1 --since 1h: %+v", r)
	}
	if r := run(t, home, nil, "sessions", "--since", "2099-01-01", "--json"); r.code != 0 || strings.TrimSpace(r.stdout) != `{
  "sessions": []
}` {
		t.Errorf("sessions --since in the future: %+v", r)
	}
}

// TestReplayDatesAndRoles: a session over two days shows a date line
// where each day starts, and a message its role, in text and --json; a
// session within a day has no date line.
func TestReplayDatesAndRoles(t *testing.T) {
	home := t.TempDir()
	dir := t.TempDir()
	lines := `{"session":"two-days","kind":"message","content":"please fix the test","time":"2026-11-01T23:50:00Z","attrs":{"role":"user"}}
{"session":"two-days","kind":"tool","tool":"bash","input":"go test","content":"ok\n","exit":0,"time":"2026-11-01T23:55:00Z"}
{"session":"two-days","kind":"message","content":"fixed it","time":"2026-11-02T00:05:00Z","attrs":{"role":"assistant"}}
{"session":"one-day","kind":"message","content":"hello","time":"2026-11-03T10:00:00Z","attrs":{"role":"user"}}
`
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := run(t, home, nil, "ingest", "jsonl", dir); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	r := run(t, home, nil, "replay", "two-days")
	got := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if r.code != 0 || len(got) != 5 || !strings.Contains(got[0], "2026-11-01") || !strings.Contains(got[1], "  user  ") ||
		!strings.Contains(got[2], "tool:bash") || !strings.Contains(got[3], "2026-11-02") || !strings.Contains(got[4], "  assistant  ") {
		t.Fatalf("replay over two days:\n%s%s", r.stdout, r.stderr)
	}
	if r := run(t, home, nil, "replay", "one-day"); r.code != 0 || strings.Count(r.stdout, "\n") != 1 || strings.Contains(r.stdout, "2026-11-03") {
		t.Errorf("replay within a day:\n%s", r.stdout)
	}
	var steps []render.ReplayStep
	r = run(t, home, nil, "replay", "two-days", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &steps); err != nil || len(steps) != 3 || steps[0].Role != "user" || steps[1].Role != "" || steps[2].Role != "assistant" {
		t.Errorf("replay --json: %v %s", err, r.stdout)
	}
}

// A session name may start with '-': replay and show read it as their
// operand, not as an unknown flag, and their own flags still work beside it.
func TestDashNamedSession(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("hello from a dash session\n"), "add", "--session", "-fix-auth", "--alias", "-note-1", "-"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	for _, args := range [][]string{{"replay", "-fix-auth"}, {"replay", "-fix-auth", "--json"}, {"replay", "--json", "-fix-auth"}, {"show", "-note-1"}} {
		r := run(t, home, nil, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "hello from a dash session") && !strings.Contains(r.stdout, "hello") {
			t.Errorf("%v: %+v", args, r)
		}
	}
	if r := run(t, home, nil, "replay", "-fix-auth", "--no-such-flag"); r.code != cli.ExitUsage {
		t.Errorf("an unknown long flag beside the name: %+v", r)
	}
	if r := run(t, home, nil, "search", "-zz"); r.code != cli.ExitUsage {
		t.Errorf("search keeps refusing an unknown shorthand: %+v", r)
	}
}
