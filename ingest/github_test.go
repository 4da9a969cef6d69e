package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
)

func TestGitHubExports(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	rep, err := ingest.Run(ctx, s, ingest.Options{Format: ingest.GitHub, Paths: []string{"testdata/github"}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Files != 4 || rep.Added != 5 || rep.SkippedTotal() != 0 || len(rep.Unusable) > 0 {
		t.Fatalf("report %+v: want 4 files, 5 entries", rep)
	}
	const project = "github.com/acme/demo"
	get := func(ref string) (memex.Entry, string) {
		t.Helper()
		id, err := s.Resolve(ctx, ref, project)
		if err != nil {
			t.Fatalf("resolve %s: %v", ref, err)
		}
		e, _ := s.Get(ctx, id)
		b, _ := s.ReadAll(ctx, id)
		return e, string(b)
	}
	for _, c := range []struct {
		ref   string
		kind  memex.Kind
		state string
		want  []string
	}{
		{"#12", memex.KindIssue, "closed", []string{"#12 Token refresh fails after expiry\n", "issue · closed · labels: bug, auth · by alice",
			"After an hour every call fails with 401", "--- comment by bob · 2026-02-02T09:00:00Z\nRefresh runs only at start-up", "--- comment by alice"}},
		{"#15", memex.KindIssue, "open", []string{"#15 Document the retry policy", "labels: docs"}},
		{"#14", memex.KindPR, "merged", []string{"pull request · merged", "branch: refresh-early → main", "+8 -1\tauth/token.go\n",
			"Fixes #12.", "--- review (approved) by bob · 2026-02-03T10:00:00Z\nLooks right.", "--- comment by bob"}},
		// REST: the comment of another file is attached to its issue.
		{"#21", memex.KindIssue, "open", []string{"Login page hangs on Safari", "--- comment by alice · 2026-02-11T09:30:00Z\nReproduced on Safari 19"}},
		{"#22", memex.KindPR, "merged", []string{"login: drop the Safari polyfill", "https://github.com/acme/demo/pull/22"}},
	} {
		e, body := get(c.ref)
		if e.Kind != c.kind || e.Attrs["state"] != c.state || e.Project != project {
			t.Errorf("%s: kind %s state %q project %q", c.ref, e.Kind, e.Attrs["state"], e.Project)
		}
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q:\n%s", c.ref, w, body)
			}
		}
	}
	if e, _ := get("#12"); !strings.Contains(e.Summary, "issue #12 (closed) Token refresh fails after expiry · bug, auth · 2 comments · by alice") {
		t.Errorf("summary %q", e.Summary)
	}
	if e, _ := get("#12"); e.Created.Format("2006-01-02") != "2026-02-01" {
		t.Errorf("created %v, want the day it was opened", e.Created)
	}

	// Idempotent; a newer export of an issue replaces it, an older one
	// does not.
	rep, err = ingest.Run(ctx, s, ingest.Options{Format: ingest.GitHub, Paths: []string{"testdata/github"}})
	if err != nil || rep.Added != 0 || rep.Present != 5 {
		t.Fatalf("second run: %+v %v", rep, err)
	}
	old, _ := get("#15")
	b, _ := os.ReadFile("testdata/github/gh-issue-list.json")
	newer := strings.Replace(strings.Replace(string(b), `"updatedAt": "2026-02-05T08:00:00Z"`, `"updatedAt": "2026-02-06T08:00:00Z"`, 1),
		`"state": "OPEN"`, `"state": "CLOSED"`, 1)
	p := filepath.Join(t.TempDir(), "later.json")
	os.WriteFile(p, []byte(newer), 0o644)
	rep, err = ingest.Run(ctx, s, ingest.Options{Format: ingest.GitHub, Paths: []string{p}})
	if err != nil || rep.Added != 1 {
		t.Fatalf("newer export: %+v %v", rep, err)
	}
	now, _ := get("#15") // one entry still: the newer one
	if now.ID == old.ID || now.Attrs["state"] != "closed" {
		t.Errorf("#15 after the newer export: %v (was %v)", now.Attrs, old.Attrs)
	}
	if _, err := s.Get(ctx, old.ID); err == nil {
		t.Error("the older snapshot is still archived")
	}
	rep, _ = ingest.Run(ctx, s, ingest.Options{Format: ingest.GitHub, Paths: []string{"testdata/github/gh-issue-list.json"}, Full: true})
	if rep.Added != 0 {
		t.Errorf("older export after a newer one: %+v", rep)
	}
}

func TestGitHubBadFiles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), []byte(`{"not":"an issue"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "b.json"), []byte(`[{"number":1,"title":"x"}]`), 0o644)
	os.WriteFile(filepath.Join(dir, "c.json"), []byte(`not json`), 0o644)
	var warns []string
	rep, err := ingest.Run(context.Background(), openStore(t), ingest.Options{Format: ingest.GitHub, Paths: []string{dir},
		Warn: func(m string) { warns = append(warns, m) }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 0 || len(rep.Unusable) != 3 {
		t.Errorf("report %+v", rep)
	}
	joined := strings.Join(warns, "\n")
	for _, want := range []string{"b.json: item 1 (#1): no URL names its repository; give --project", "a.json: item 1: neither an issue"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	rep, _ = ingest.Run(context.Background(), openStore(t), ingest.Options{Format: ingest.GitHub, Paths: []string{filepath.Join(dir, "b.json")}, Project: "github.com/o/r"})
	if rep.Added != 1 {
		t.Errorf("with --project: %+v", rep)
	}
	// gh api --paginate prints one array per page.
	pages := filepath.Join(t.TempDir(), "pages.json")
	os.WriteFile(pages, []byte(`[{"number":1,"title":"a","html_url":"https://github.com/o/r/issues/1"}]
[{"number":2,"title":"b","html_url":"https://github.com/o/r/issues/2"}]`), 0o644)
	rep, _ = ingest.Run(context.Background(), openStore(t), ingest.Options{Format: ingest.GitHub, Paths: []string{pages}})
	if rep.Added != 2 {
		t.Errorf("paginated pages: %+v", rep)
	}
}
