package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The same commands, on the same home, answer the same whether they read
// the store themselves or go through a running memex serve. Each case names
// a difference that once shipped (issue 20).
func TestLocalAndServedAgree(t *testing.T) {
	home := t.TempDir()
	for _, a := range [][]string{
		{"--session", "team/feature", "--alias", "first", "--tool", "bash", "--input", "go test", "--exit", "1"},
		{"--session", "team/feature", "--alias", "second", "--kind", "note"},
		{"--session", "plain", "--alias", "third"},
	} {
		body := "--- FAIL: TestParse nil map\n" + strings.Repeat("ok line\n", 50)
		if r := run(t, home, []byte(body), append([]string{"add", "--project", "p"}, append(a, "-")...)...); r.code != 0 {
			t.Fatal(r)
		}
	}
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	if r := run(t, home, []byte("token "+secret+"\n"), "add", "--project", "p", "--alias", "secret", "-"); r.code != 0 {
		t.Fatal(r)
	}
	// Names that say several things: an alias in two projects, a prefix
	// of two sessions.
	for _, a := range [][]string{
		{"--project", "p", "--alias", "dup", "--session", "team/a1"},
		{"--project", "q", "--alias", "dup", "--session", "team/a2"},
	} {
		if r := run(t, home, []byte("x\n"), append([]string{"add"}, append(a, "-")...)...); r.code != 0 {
			t.Fatal(r)
		}
	}
	cases := []struct {
		name string
		args []string
	}{
		{"show of a redacted entry says so on stderr", []string{"show", "secret"}},
		{"show --budget of a redacted entry says so too", []string{"show", "secret", "--budget", "50"}},
		{"search --limit above the most", []string{"search", "nil", "--limit", "1000", "--json"}},
		{"search --json carries took_ns", []string{"search", "nil", "map", "--json"}},
		{"search --sessions", []string{"search", "nil", "map", "--sessions"}},
		{"search --sessions --json", []string{"search", "nil", "map", "--sessions", "--json"}},
		{"malformed query is a usage error", []string{"search", "exit:abc"}},
		{"unterminated quote", []string{"search", `"nil map`}},
		{"before resolves an alias", []string{"search", "nil", "--before", "third", "--json"}},
		{"after an unknown alias", []string{"search", "nil", "--after", "nosuch"}},
		{"replay a session with a slash", []string{"replay", "team/feature", "--json"}},
		{"replay --full", []string{"replay", "team/feature", "--full", "--json"}},
		{"replay unknown", []string{"replay", "nosuch"}},
		{"sessions --json", []string{"sessions", "--json"}},
		{"show --json", []string{"show", "first", "--json"}},
		{"show --lines", []string{"show", "first", "--lines", "2:3"}},
		{"show unknown", []string{"show", "nosuch"}},
		{"show bad lines", []string{"show", "first", "--lines", "x"}},
		{"deref", []string{"deref", "first", "second", "--budget", "200", "--json"}},
		{"deref unknown", []string{"deref", "nosuch"}},
		{"context", []string{"context", "--session", "team/feature", "--json"}},
		{"context unknown", []string{"context", "--session", "nosuch"}},
		{"lessons could not be served", []string{"lessons", "--project", "p", "--json"}},
		{"handoff", []string{"handoff", "--project", "p", "--json"}},
		{"handoff unknown", []string{"handoff", "--project", "nosuch"}},
		{"procedures", []string{"procedures", "--project", "p", "--json"}},
		{"stale", []string{"stale", "--project", "p", "--json"}},
		// Errors: the same sentence, hint, code and exit status.
		{"show an ambiguous alias", []string{"show", "dup"}},
		{"show an ambiguous alias --json", []string{"show", "dup", "--json"}},
		{"replay an ambiguous prefix", []string{"replay", "team/a"}},
		{"replay an ambiguous prefix --json", []string{"replay", "team/a", "--json"}},
		{"show unknown --json", []string{"show", "nosuch", "--json"}},
		{"context of an unknown project", []string{"context", "--project", "nosuch"}},
		{"deref budget too small", []string{"deref", "first", "--budget", "5"}},
		{"deref budget too small --json", []string{"deref", "first", "--budget", "5", "--json"}},
		{"malformed query --json", []string{"search", "exit:abc", "--json"}},
	}
	local := make([]result, len(cases))
	for i, c := range cases {
		local[i] = run(t, home, nil, c.args...)
	}
	startServe(t, home)
	for i, c := range cases {
		served := run(t, home, nil, c.args...)
		l, s := local[i], served
		if strings.Contains(c.name, "took_ns") {
			for _, r := range []*result{&l, &s} {
				var v struct {
					Took int64 `json:"took_ns"`
				}
				if json.Unmarshal([]byte(r.stdout), &v) != nil || v.Took <= 0 {
					t.Errorf("%s: took_ns %d in %q", c.name, v.Took, r.stdout)
				}
			}
		}
		l.stdout, s.stdout = tookless(l.stdout), tookless(s.stdout)
		if l != s {
			t.Errorf("%s: %v\nlocal:  %+v\nserved: %+v", c.name, c.args, l, s)
		}
	}
}

var tookRe = regexp.MustCompile(`"took_ns": \d+`)

func tookless(s string) string { return tookRe.ReplaceAllString(s, `"took_ns": N`) }

// forget, verify and reindex go through a running server (issue 14: they
// advised an API that had no such endpoints), with the local outputs.
func TestMaintenanceThroughTheServer(t *testing.T) {
	home := t.TempDir()
	for _, alias := range []string{"a", "b", "c"} {
		if r := run(t, home, []byte("entry "+alias+"\n"), "add", "--session", "s/1", "--alias", alias, "-"); r.code != 0 {
			t.Fatal(r)
		}
	}
	startServe(t, home)
	if r := run(t, home, nil, "forget", "a"); r.code != 2 || !strings.Contains(r.stderr, "forget 1 entry for good? add --yes") {
		t.Fatalf("forget without --yes: %+v", r)
	}
	if r := run(t, home, nil, "forget", "a", "--yes", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"forgotten": 1`) {
		t.Fatalf("forget through the server: %+v", r)
	}
	if r := run(t, home, nil, "show", "a"); r.code != 1 {
		t.Fatalf("a forgotten entry still shows: %+v", r)
	}
	if r := run(t, home, nil, "reindex", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"indexed": 2`) {
		t.Fatalf("reindex through the server: %+v", r)
	}
	if r := run(t, home, nil, "verify", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"checked": 2`) {
		t.Fatalf("verify through the server: %+v", r)
	}
	if r := run(t, home, nil, "forget", "--session", "s/1", "--yes"); r.code != 0 || r.stdout != "forgot 2 entries\n" {
		t.Fatalf("forget a session through the server: %+v", r)
	}
	if r := run(t, home, nil, "forget", "--session", "s/1", "--yes"); r.code != 1 || !strings.Contains(r.stderr, `session "s/1": not found`) {
		t.Fatalf("forget an empty session through the server: %+v", r)
	}
}

// A hook's 20 MiB tool response goes through a running server as it goes
// to a local store (issue 13.11: it was refused as a JSON body over 16 MiB
// and lost).
func TestLargeHookPayloadThroughTheServer(t *testing.T) {
	home := t.TempDir()
	startServe(t, home)
	big := strings.Repeat("a line of a long build log\n", 20<<20/27+1)
	r := hookRun(t, home, "PostToolUse", map[string]any{"session_id": "big", "hook_event_name": "PostToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "tool_use_id": "toolu_big",
		"tool_response": map[string]any{"stdout": big, "stderr": "", "exit_code": 0}})
	if strings.Contains(r.stderr, "memex hook") {
		t.Fatalf("hook: %+v", r)
	}
	show := run(t, home, nil, "show", "toolu_big")
	if show.code != 0 || show.stdout != big {
		t.Fatalf("the 20 MiB response came back as %d bytes (%+v)", len(show.stdout), show.stderr)
	}
	if sp, _ := filepath.Glob(filepath.Join(home, "spool", "*")); len(sp) != 0 {
		t.Errorf("spooled instead: %v", sp)
	}
}

// --json means JSON errors too, one line on stderr, with the HTTP API's
// code; the same locally and through a server (issue 14).
func TestJSONErrors(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("x"), "add", "--alias", "x", "-"); r.code != 0 {
		t.Fatal(r)
	}
	check := func(where string) {
		for _, c := range []struct {
			args []string
			code string
			exit int
		}{
			{[]string{"show", "nosuch", "--json"}, "not_found", 1},
			{[]string{"search", "exit:abc", "--json"}, "usage", 2},
			{[]string{"deref", "x", "--budget", "-1", "--json"}, "usage", 2},
			{[]string{"show", "x", "--lines", "zz", "--json"}, "usage", 2},
		} {
			r := run(t, home, nil, c.args...)
			var e struct{ Error, Code string }
			if r.code != c.exit || json.Unmarshal([]byte(r.stderr), &e) != nil || e.Code != c.code || e.Error == "" || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("%s %v: %+v; want exit %d and {\"error\",\"code\":%q} on stderr", where, c.args, r, c.exit, c.code)
			}
		}
	}
	check("local")
	startServe(t, home)
	check("served")
}
