package main

import (
	"encoding/json"
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
		{[]string{"ingest", "codex", "--max", "2", repo.Dir}, "--since and --max apply to ingest git only"},
		{[]string{"ingest", "git", "--since", "fortnight", repo.Dir}, `"fortnight" is not a time: want a span back from now`},
		{[]string{"ingest", "git", "--max", "-1", repo.Dir}, "--max must be a positive number"},
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
