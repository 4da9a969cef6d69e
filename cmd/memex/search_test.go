package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/cli"
)

type searchJSON struct {
	Hits []struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
		Snippet string `json:"snippet"`
		Tokens  int64  `json:"tokens"`
		Session string `json:"session"`
	} `json:"hits"`
	Partial bool `json:"partial"`
}

func searchIDs(t *testing.T, home string, args ...string) []string {
	t.Helper()
	r := run(t, home, nil, append([]string{"search", "--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("search %v: exit %d: %s", args, r.code, r.stderr)
	}
	var res searchJSON
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("search %v: %v\n%s", args, err, r.stdout)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

func addEntry(t *testing.T, home, body string, args ...string) string {
	t.Helper()
	r := run(t, home, []byte(body), append([]string{"add"}, append(args, "-")...)...)
	if r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

func TestSearchFindsWhatWasJustAdded(t *testing.T) {
	home := t.TempDir()
	fail := addEntry(t, home, "--- FAIL: TestLogin\npanic: assignment to entry in nil map\n",
		"--tool", "bash", "--input", "go test ./auth/...", "--exit", "1", "--session", "s1")
	read := addEntry(t, home, "func parseConfigFile(path string) error {\n", "--tool", "Read", "--input", "config/loader.go", "--session", "s2")

	// No catch-up step in between: search brings the index up to date.
	if got := searchIDs(t, home, `"nil map"`); len(got) != 1 || got[0] != fail {
		t.Fatalf(`"nil map" = %v, want [%s]`, got, fail)
	}
	if got := searchIDs(t, home, "parse", "config"); len(got) != 1 || got[0] != read {
		t.Fatalf("parse config = %v, want [%s]", got, read)
	}
	if got := searchIDs(t, home, "--session", "s2", "nil"); len(got) != 0 {
		t.Fatalf("nil in s2 = %v", got)
	}
	if got := searchIDs(t, home, "--before", read, "--tool", "bash", "test"); len(got) != 1 || got[0] != fail {
		t.Fatalf("before = %v", got)
	}
	if got := searchIDs(t, home, "--after", read, "test"); len(got) != 0 {
		t.Fatalf("after = %v", got)
	}
	r := run(t, home, nil, "search", `"unterminated`)
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "unterminated") || strings.Contains(r.stderr, "index:") {
		t.Fatalf("malformed query: exit %d, %q; want 2 and one plain line", r.code, r.stderr)
	}
}

func TestForgetRemovesFromSearchAndShow(t *testing.T) {
	home := t.TempDir()
	id := addEntry(t, home, "secret deploy key rotated\n", "--session", "s1")
	keep := addEntry(t, home, "deploy finished\n", "--session", "s2")
	if got := searchIDs(t, home, "deploy"); len(got) != 2 {
		t.Fatalf("deploy = %v", got)
	}
	if r := run(t, home, nil, "forget", id); r.code == 0 {
		t.Fatalf("forget without --yes off a terminal succeeded: %q", r.stdout)
	}
	if r := run(t, home, nil, "forget", "--session", "s1", "--yes"); r.code != 0 {
		t.Fatalf("forget: exit %d: %s", r.code, r.stderr)
	}
	if got := searchIDs(t, home, "deploy"); len(got) != 1 || got[0] != keep {
		t.Fatalf("after forget: %v, want [%s]", got, keep)
	}
	if r := run(t, home, nil, "show", id); r.code == 0 {
		t.Fatalf("forgotten entry shown: %q", r.stdout)
	}
}

func TestReindexRebuildsAnOldIndex(t *testing.T) {
	home := t.TempDir()
	id := addEntry(t, home, "panic: runtime error: index out of range\n")
	if got := searchIDs(t, home, "out", "of", "range"); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	// Replace the index by something of another schema.
	dir := filepath.Join(home, "index")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index_meta.json"), []byte(`{"storage":"nope"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// An index that cannot be opened is derived data: search drops it,
	// says so, and answers from one rebuilt from the archive.
	r := run(t, home, nil, "search", "range")
	if r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stderr, "rebuilt from the archive") {
		t.Fatalf("search on an old index: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	r = run(t, home, nil, "reindex")
	if r.code != 0 || !strings.Contains(r.stdout, "reindexed 1 entry") {
		t.Fatalf("reindex: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	if got := searchIDs(t, home, "out", "of", "range"); len(got) != 1 || got[0] != id {
		t.Fatalf("after reindex: %v", got)
	}
}

// TestSearchJSONHitFields: every hit has the fields the command-line
// contract names (id, score, summary, snippet, tokens), snippet included
// when the words matched the summary alone and no fragment is shown.
func TestSearchJSONHitFields(t *testing.T) {
	home := t.TempDir()
	run(t, home, []byte("\n"), "add", "--summary", "zebra crossing")
	run(t, home, []byte("a zebra in the content\n"), "add")
	r := run(t, home, nil, "search", "zebra", "--json")
	var res struct{ Hits []map[string]json.RawMessage }
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || len(res.Hits) != 2 {
		t.Fatalf("search --json: %+v (%v)", r, err)
	}
	for _, h := range res.Hits {
		for _, k := range []string{"id", "score", "summary", "snippet", "tokens"} {
			if _, ok := h[k]; !ok {
				t.Errorf("hit %s has no %q", h["id"], k)
			}
		}
	}
}
