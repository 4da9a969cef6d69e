package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// timedHome is a home holding entries archived at chosen times, imported
// from a generic JSONL file: a session that spans midnight, one whose name
// shares its first three characters, one whose name starts with "-", and
// one from an hour ago.
func timedHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	recent := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	lines := []map[string]any{
		{"session": "5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", "project": "github.com/acme/api", "agent": "claude-code", "kind": "message",
			"attrs": map[string]string{"role": "user"}, "content": "deploy the api to staging", "time": "2026-10-01T23:50:00Z"},
		{"session": "5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", "project": "github.com/acme/api", "agent": "claude-code", "kind": "tool", "tool": "bash",
			"input": "make deploy", "content": "deploy: done\n", "exit": 0, "time": "2026-10-02T00:20:00Z"},
		{"session": "5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", "project": "github.com/acme/api", "agent": "claude-code", "kind": "message",
			"attrs": map[string]string{"role": "assistant"}, "content": "Deployed to staging.", "time": "2026-10-02T00:21:00Z"},
		{"session": "5f0d9e00-1111-4222-8333-444455556666", "project": "github.com/acme/web", "agent": "codex", "kind": "tool", "tool": "shell",
			"input": "npm run deploy", "content": "deploy web: ok\n", "exit": 0, "time": "2026-11-02T09:00:00Z"},
		{"session": "-abc", "project": "github.com/acme/api", "agent": "cli", "kind": "note", "content": "deploy notes for -abc", "time": "2026-11-03T09:00:00Z"},
		{"session": "recent-1", "project": "github.com/acme/api", "agent": "codex", "kind": "tool", "tool": "shell",
			"input": "make deploy", "content": "deploy again: ok\n", "exit": 0, "time": recent},
	}
	var sb strings.Builder
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		sb.Write(b)
		sb.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "timed.jsonl")
	writeFile(t, path, sb.String())
	if r := run(t, home, nil, "ingest", "jsonl", path, "-q"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	return home
}

// hitCount is the number of hits in memex search --json output.
func hitCount(t *testing.T, r result) int {
	t.Helper()
	var res struct {
		Hits []json.RawMessage `json:"hits"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil {
		t.Fatalf("search: %+v", r)
	}
	return len(res.Hits)
}

// Time filters, the same locally and through a running server (issue 14):
// --since, after:/before: with dates, spans and RFC 3339, and --before and
// --after with times beside IDs and aliases.
func TestSearchTimeFilters(t *testing.T) {
	home := timedHome(t)
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"search", "deploy", "--json"}, 6},
		{[]string{"search", "deploy", "--since", "2026-11-01", "--json"}, 3},
		{[]string{"search", "deploy", "--since", "2d", "--json"}, 1},
		{[]string{"search", "deploy", "--since", "2026-10-02T00:00:00Z", "--json"}, 5},
		{[]string{"search", "deploy after:2026-11-01 before:2026-11-03", "--json"}, 1},
		{[]string{"search", "deploy before:2026-10-02T00:00:00Z", "--json"}, 1},
		{[]string{"search", "deploy", "--before", "2026-11-01", "--json"}, 3},
		{[]string{"search", "deploy", "--after", "2026-11-01", "--since", "1w", "--json"}, 1},
	}
	bad := [][]string{
		{"search", "deploy", "--since", "lastweek"},
		{"search", "deploy after:lastweek"},
	}
	check := func(where string) {
		for _, c := range cases {
			if got := hitCount(t, run(t, home, nil, c.args...)); got != c.want {
				t.Errorf("%s: %v: %d hits, want %d", where, c.args, got, c.want)
			}
		}
		for _, args := range bad {
			r := run(t, home, nil, args...)
			if r.code != 2 || !strings.Contains(r.stderr, `lastweek`) || !strings.Contains(r.stderr, "2d") ||
				!strings.Contains(r.stderr, "2026-11-01") || !strings.Contains(r.stderr, "RFC 3339") {
				t.Errorf("%s: %v: %+v; want a usage error naming the value and the forms", where, args, r)
			}
		}
	}
	check("local")
	startServe(t, home)
	check("served")
}
