package ingest_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/testutil"
)

// demoRepo is a small history: a root commit, a branch merged with a merge
// commit, an annotated and a lightweight tag, a rename and a binary file.
func demoRepo(t *testing.T) (*testutil.Repo, map[string]string) {
	r := testutil.NewRepo(t, "git@github.com:acme/demo.git")
	h := map[string]string{}
	h["root"] = r.Commit("auth: add token refresh\n\nRefresh the token a minute before it expires.", map[string]string{
		"auth/token.go": "package auth\n\nfunc Refresh() error {\n\treturn nil\n}\n",
		"README.md":     "# demo\n",
	})
	r.Git("checkout", "-q", "-b", "feature")
	h["feature"] = r.Commit("auth: retry the refresh once", map[string]string{
		"auth/token.go": "package auth\n\nfunc Refresh() error {\n\t// retry once\n\treturn nil\n}\n",
	})
	r.Git("checkout", "-q", "main")
	h["docs"] = r.Commit("docs: say how tokens are refreshed", map[string]string{"README.md": "# demo\n\nTokens refresh themselves.\n"})
	r.Tick(time.Minute)
	r.Git("merge", "-q", "--no-ff", "-m", "Merge branch 'feature'", "feature")
	h["merge"] = strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	r.Git("tag", "-a", "v1.0", "-m", "first release")
	h["rename"] = r.Commit("auth: rename token.go to refresh.go", map[string]string{
		"auth/token.go": "", "auth/refresh.go": "package auth\n\nfunc Refresh() error {\n\t// retry once\n\treturn nil\n}\n",
		"logo.png": "\x89PNG\r\n\x1a\n\x00\x00binary",
	})
	r.Git("tag", "light")
	return r, h
}

func gitEntries(t *testing.T, s *archive.Store) map[memex.Kind][]memex.Entry {
	t.Helper()
	out := map[memex.Kind][]memex.Entry{}
	if err := s.Scan(context.Background(), time.Time{}, time.Time{}, func(e memex.Entry) error {
		out[e.Kind] = append(out[e.Kind], e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGitHistory(t *testing.T) {
	ctx := context.Background()
	repo, h := demoRepo(t)
	s := openStore(t)
	var progress []ingest.Progress
	rep, err := ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir},
		Progress: func(p ingest.Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Commits != 5 || rep.Added != 7 || len(rep.FileErrors) > 0 {
		t.Fatalf("report %+v: want 5 commits, 7 entries (5 commits, 2 tags)", rep)
	}
	if last := progress[len(progress)-1]; last.Commits != 5 || last.TotalCommits != 5 {
		t.Errorf("last progress %+v, want 5 of 5 commits", last)
	}
	got := gitEntries(t, s)
	commits := got[memex.KindCommit]
	if len(commits) != 5 || len(got[memex.KindTag]) != 2 {
		t.Fatalf("got %d commits and %d tags, want 5 and 2", len(commits), len(got[memex.KindTag]))
	}
	// The project is the one sessions in the checkout get.
	if want := ingest.DetectProject(repo.Dir); want != "github.com/acme/demo" || commits[0].Project != want {
		t.Errorf("project %q, want %q (DetectProject %q)", commits[0].Project, "github.com/acme/demo", want)
	}
	// Oldest first, in commit time order.
	if commits[0].Attrs["commit"] != h["root"] || commits[4].Attrs["commit"] != h["rename"] {
		t.Errorf("order: first %s last %s", commits[0].Attrs["commit"], commits[4].Attrs["commit"])
	}
	byHash := map[string]memex.Entry{}
	for _, e := range commits {
		byHash[e.Attrs["commit"]] = e
	}
	root := byHash[h["root"]]
	for _, want := range []string{"commit " + h["root"][:7], "Ada Lovelace", "2026-03-01", "auth: add token refresh", "2 files +6 -0", "auth/token.go +5 -0"} {
		if !strings.Contains(root.Summary, want) {
			t.Errorf("root summary %q lacks %q", root.Summary, want)
		}
	}
	body, err := s.ReadAll(ctx, root.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"commit " + h["root"] + "\n", "Author: Ada Lovelace <ada@example.com>\n",
		"    Refresh the token a minute before it expires.\n", "+5 -0\tauth/token.go\n",
		"diff --git a/auth/token.go b/auth/token.go\n", "+func Refresh() error {\n"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("root body lacks %q:\n%s", want, body)
		}
	}
	// The hash, full and short, names the commit.
	for _, ref := range []string{h["root"], h["root"][:7]} {
		if id, err := s.Resolve(ctx, ref, ""); err != nil || id != root.ID {
			t.Errorf("resolve %s: %v, %v", ref, id, err)
		}
	}
	merge := byHash[h["merge"]]
	if !strings.HasPrefix(merge.Summary, "merge ") || merge.Attrs["merge"] != "true" || len(strings.Fields(merge.Attrs["parents"])) != 2 {
		t.Errorf("merge: summary %q attrs %v", merge.Summary, merge.Attrs)
	}
	if !strings.Contains(merge.Summary, "auth/token.go +1 -0") {
		t.Errorf("merge summary %q: want the files against the first parent", merge.Summary)
	}
	if merge.Attrs["tags"] != "v1.0" {
		t.Errorf("merge tags %q, want v1.0", merge.Attrs["tags"])
	}
	rename := byHash[h["rename"]]
	if files := rename.Attrs["files"]; !strings.Contains(files, "auth/refresh.go") || strings.Contains(files, "=>") {
		t.Errorf("rename files %q: want the new path", files)
	}
	rb, _ := s.ReadAll(ctx, rename.ID)
	if !strings.Contains(string(rb), "bin\tlogo.png\n") {
		t.Errorf("binary file not listed:\n%s", rb)
	}
	// Tags name their commits.
	for _, tag := range got[memex.KindTag] {
		want := map[string]string{"v1.0": h["merge"], "light": h["rename"]}[tag.Attrs["tag"]]
		if tag.Attrs["commit"] != want {
			t.Errorf("tag %s names %s, want %s", tag.Attrs["tag"], tag.Attrs["commit"], want)
		}
	}
	if id, err := s.Resolve(ctx, "v1.0", "github.com/acme/demo"); err != nil || id != got[memex.KindTag][0].ID && id != got[memex.KindTag][1].ID {
		t.Errorf("resolve v1.0: %v %v", id, err)
	}

	// A second run reads nothing; a new commit is all the third reads.
	rep, err = ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}})
	if err != nil || rep.Commits != 0 || rep.Added != 0 {
		t.Fatalf("second run: %+v, %v: want nothing read", rep, err)
	}
	repo.Commit("auth: log refresh failures", map[string]string{"auth/log.go": "package auth\n"})
	rep, err = ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}})
	if err != nil || rep.Commits != 1 || rep.Added != 1 {
		t.Fatalf("third run: %+v, %v: want the one new commit", rep, err)
	}
	// --full walks everything again, and adds nothing twice.
	rep, err = ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}, Full: true})
	if err != nil || rep.Commits != 6 || rep.Added != 0 || rep.Present != 8 {
		t.Fatalf("full run: %+v, %v: want 6 commits read, all present", rep, err)
	}
}

func TestGitHistoryLimits(t *testing.T) {
	ctx := context.Background()
	repo, h := demoRepo(t)
	s := openStore(t)
	rep, err := ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}, Max: 2})
	if err != nil || rep.Commits != 2 {
		t.Fatalf("--max 2: %+v, %v", rep, err)
	}
	commits := gitEntries(t, s)[memex.KindCommit]
	if len(commits) != 2 || commits[1].Attrs["commit"] != h["rename"] {
		t.Fatalf("--max 2 kept %d commits, last %v: want the two most recent", len(commits), commits)
	}
	// A limited run keeps no progress: the next reads the rest.
	rep, err = ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}})
	if err != nil || rep.Commits != 5 || rep.Added != 3 || rep.Present != 2+2 {
		t.Fatalf("after --max: %+v, %v", rep, err)
	}

	s2 := openStore(t)
	since := time.Date(2026, 3, 1, 9, 2, 30, 0, time.UTC) // after the first two commits
	rep, err = ingest.Run(ctx, s2, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}, Since: since})
	if err != nil || rep.Commits != 3 {
		t.Fatalf("--since: %+v, %v: want the 3 later commits", rep, err)
	}
}

func TestGitPatchBound(t *testing.T) {
	ctx := context.Background()
	repo := testutil.NewRepo(t, "")
	big := strings.Repeat("a line of generated data\n", 2000)
	hash := repo.Commit("vendor: add generated data", map[string]string{"gen/data.txt": big})
	s := openStore(t)
	if _, err := ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}, MaxPatch: 4096}); err != nil {
		t.Fatal(err)
	}
	id, err := s.Resolve(ctx, hash, "")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := s.ReadAll(ctx, id)
	if len(body) > 4096+1024 {
		t.Errorf("body of %d bytes: the patch is not bounded", len(body))
	}
	if !strings.Contains(string(body), "[memex: patch cut at 4096 of ") || !strings.Contains(string(body), "git show "+hash) {
		t.Errorf("no cut marker:\n%s", body[len(body)-300:])
	}
	e, _ := s.Get(ctx, id)
	if !strings.Contains(e.Summary, "gen/data.txt +2000 -0") {
		t.Errorf("summary %q: counts must cover the whole patch", e.Summary)
	}
}

func TestGitNotARepository(t *testing.T) {
	s := openStore(t)
	testutil.NewRepo(t, "") // skips without git
	rep, err := ingest.Run(context.Background(), s, ingest.Options{Format: ingest.Git, Paths: []string{t.TempDir(), "/nonexistent/x"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.FileErrors) != 2 || !strings.Contains(rep.FileErrors[0], "not a git repository") || !strings.Contains(rep.FileErrors[1], "no such repository") {
		t.Errorf("file errors %q", rep.FileErrors)
	}
}

// A bare repository (a mirror, a server's copy) is read like a checkout,
// named after its origin.
func TestGitBareRepository(t *testing.T) {
	repo, _ := demoRepo(t)
	bare := filepath.Join(t.TempDir(), "demo.git")
	repo.Git("clone", "-q", "--bare", repo.Dir, bare)
	testutil.NewRepo(t, "").Git("-C", bare, "remote", "set-url", "origin", "https://github.com/acme/demo.git")
	s := openStore(t)
	rep, err := ingest.Run(context.Background(), s, ingest.Options{Format: ingest.Git, Paths: []string{bare}})
	if err != nil || rep.Commits != 5 || len(rep.FileErrors) > 0 {
		t.Fatalf("bare: %+v %v", rep, err)
	}
	if got := gitEntries(t, s)[memex.KindCommit][0].Project; got != "github.com/acme/demo" {
		t.Errorf("project %q", got)
	}
}
