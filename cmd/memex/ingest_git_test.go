package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

func TestIngestGitFlags(t *testing.T) {
	home := t.TempDir()
	repo := testutil.NewRepo(t, "")
	for i := 0; i < 3; i++ {
		repo.Commit("change "+string(rune('a'+i)), map[string]string{"f.txt": strings.Repeat("x\n", i+1)})
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"ingest", "codex", "--max", "2", repo.Dir}, "since and max limit ingest git only, not codex"},
		{[]string{"ingest", "git", "--since", "fortnight", repo.Dir}, `"fortnight" is not a time: want a span back from now`},
		{[]string{"ingest", "git", "--max", "-1", repo.Dir}, "max -1: want 0 (no limit) or a positive number of commits"},
	} {
		if r := run(t, home, nil, c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q: want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
	var rep struct{ Commits, Added int }
	// --since reads times as every other time flag does (memex.ParseTime):
	// the commits are dated 2026-03-01, before yesterday.
	r := run(t, t.TempDir(), nil, "ingest", "git", "--since", "yesterday", "--json", repo.Dir)
	if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil || rep.Commits != 0 {
		t.Fatalf("--since yesterday: exit %d %+v %v %s", r.code, rep, err, r.stderr)
	}
	r = run(t, home, nil, "ingest", "git", "--max", "2", "--json", repo.Dir)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Commits != 2 || rep.Added != 2 {
		t.Fatalf("--max 2: %+v %v %s", rep, err, r.stderr)
	}
	r = run(t, home, nil, "ingest", "git", "--json", repo.Dir)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Commits != 3 || rep.Added != 1 {
		t.Fatalf("after --max: %+v %v", rep, err)
	}
	if r := run(t, home, nil, "ingest", "git", t.TempDir()); r.code != 1 || !strings.Contains(r.stderr, "not a git repository") {
		t.Errorf("not a repository: %+v", r)
	}
}

// ingest git --since and --max reach a running server: it read the whole
// history instead.
func TestIngestGitFlagsServed(t *testing.T) {
	home := t.TempDir()
	repo := testutil.NewRepo(t, "")
	for i := 0; i < 3; i++ {
		repo.Commit("change "+string(rune('a'+i)), map[string]string{"f.txt": strings.Repeat("x\n", i+1)})
	}
	startServe(t, home)
	var rep struct{ Commits, Added int }
	r := run(t, home, nil, "ingest", "git", "--max", "2", "--json", repo.Dir)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Commits != 2 || rep.Added != 2 {
		t.Fatalf("--max 2 through the server: %+v %v %s", rep, err, r.stderr)
	}
	r = run(t, home, nil, "ingest", "git", "--since", "2000-01-01", "--json", repo.Dir)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.Added != 1 {
		t.Fatalf("--since through the server: %+v %v %s", rep, err, r.stderr)
	}
}

// A request memex ingest refuses is refused in the same words by POST
// /v1/ingest: one rule, in the service, for both. The command line calls
// it a usage error (exit 2, "code": "usage"), the API invalid input (400).
func TestIngestRefusalsSameOnEveryPath(t *testing.T) {
	home := t.TempDir()
	addr := startServe(t, home)
	for _, c := range []struct {
		args []string
		body map[string]any
		want string
	}{
		{[]string{"ingest", "codex", "--max", "2"}, map[string]any{"format": "codex", "max": 2},
			"since and max limit ingest git only, not codex"},
		{[]string{"ingest", "jsonl", "--since", "2026-01-01T00:00:00Z"}, map[string]any{"format": "jsonl", "since": "2026-01-01T00:00:00Z"},
			"since and max limit ingest git only, not jsonl"},
		{[]string{"ingest", "git", "--max", "-1"}, map[string]any{"format": "git", "max": -1},
			"max -1: want 0 (no limit) or a positive number of commits"},
		{[]string{"ingest", "swe-agent"}, map[string]any{"format": "swe-agent"},
			"format swe-agent has no default location: give a path"},
	} {
		// Without a server and with one, as text and as JSON.
		for _, h := range []string{t.TempDir(), home} {
			if r := run(t, h, nil, c.args...); r.code != 2 || r.stderr != "memex: ingest: "+c.want+"\n" {
				t.Errorf("%v: exit %d, stderr %q: want 2 and %q", c.args, r.code, r.stderr, c.want)
			}
			var je struct{ Error, Code string }
			r := run(t, h, nil, append(c.args, "--json")...)
			if err := json.Unmarshal([]byte(r.stderr), &je); err != nil || r.code != 2 || je.Error != "ingest: "+c.want || je.Code != "usage" {
				t.Errorf("%v --json: exit %d, stderr %q", c.args, r.code, r.stderr)
			}
		}
		body, _ := json.Marshal(c.body)
		resp, err := http.Post("http://"+addr+"/v1/ingest", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusBadRequest || got.Error.Code != "invalid" || got.Error.Message != c.want {
			t.Errorf("POST /v1/ingest %s: %d %+v %v: want 400 and %q", body, resp.StatusCode, got, err, c.want)
		}
	}
}
