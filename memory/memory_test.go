package memory_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/testutil"
	"github.com/memex-archive/memex/memory"
	"github.com/memex-archive/memex/summarize"
)

const project = "github.com/acme/demo"

// world is a checkout of github.com/acme/demo with its history, a Claude
// Code session of 2026-03-01 and a Codex session of 2026-03-02 in it,
// all archived.
type world struct {
	repo  *testutil.Repo
	store *archive.Store
	now   time.Time
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	repo := testutil.NewRepo(t, "https://github.com/acme/demo.git")
	repo.Commit("auth: add token refresh", map[string]string{
		"auth/token.go": "package auth\n\nfunc Refresh() error {\n\treturn nil\n}\n",
		"README.md":     "# demo\n\nTokens refresh themselves.\n",
	})
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	dir := t.TempDir()
	for _, f := range []struct {
		name   string
		format ingest.Format
	}{
		{"5e55c1a0-0000-4000-8000-00000000c1a0.jsonl", ingest.ClaudeCode},
		{"rollout-2026-03-02T10-00-00-0199c0de-0000-7000-8000-00000000c0de.jsonl", ingest.Codex},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "handoff", f.name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), "@CWD@", repo.Dir)), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := ingest.Run(ctx, s, ingest.Options{Format: f.format, Paths: []string{p}, SettleAfter: -1})
		if err != nil || rep.Added == 0 {
			t.Fatalf("ingest %s: %+v %v", f.name, rep, err)
		}
	}
	if _, err := ingest.Run(ctx, s, ingest.Options{Format: ingest.Git, Paths: []string{repo.Dir}}); err != nil {
		t.Fatal(err)
	}
	return &world{repo: repo, store: s, now: time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)}
}

func section(c memory.Capsule, name string) memory.Section {
	for _, s := range c.Sections {
		if s.Name == name {
			return s
		}
	}
	return memory.Section{}
}

func TestHandoff(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	co := deref.NewCheckout(w.repo.Dir, project)
	c, err := memory.Handoff(ctx, w.store, memory.HandoffOptions{Project: project, Checkout: co, Now: func() time.Time { return w.now }})
	if err != nil {
		t.Fatal(err)
	}
	if c.Used > memory.DefaultHandoffBudget || summarize.Count([]byte(c.Text)) != c.Used {
		t.Errorf("used %d, counted %d, budget %d", c.Used, summarize.Count([]byte(c.Text)), memory.DefaultHandoffBudget)
	}
	if c.Sessions != 2 {
		t.Errorf("%d sessions, want 2", c.Sessions)
	}
	sess := section(c, memory.SectionSessions).Items
	if len(sess) != 2 || sess[0].Agent != "codex" || sess[1].Agent != "claude-code" ||
		!strings.Contains(sess[0].Text, "task: Make the token refresh retry once") ||
		!strings.Contains(sess[1].Text, "task: Document in the README") {
		t.Errorf("sessions: %+v", sess)
	}
	fails := section(c, memory.SectionFailures).Items
	if len(fails) != 1 || !strings.Contains(fails[0].Text, "go vet ./...") {
		t.Errorf("open failures %+v: want go vet alone (go test ./auth passed later)", fails)
	}
	files := section(c, memory.SectionFiles).Items
	paths := map[string]memory.Item{}
	for _, f := range files {
		paths[f.Path] = f
	}
	if _, ok := paths["auth/token.go"]; !ok || len(files) != 2 {
		t.Errorf("files %+v: want auth/token.go and README.md", files)
	}
	// The README edit showed a line the checkout does not hold.
	if m := paths["README.md"].Mark; m != deref.MarkChanged {
		t.Errorf("README.md mark %q, want changed: %+v", m, paths["README.md"])
	}
	commits := section(c, memory.SectionCommits).Items
	if len(commits) != 1 || !strings.Contains(commits[0].Text, "auth: add token refresh") {
		t.Errorf("commits %+v", commits)
	}
	// Every line names an entry the archive holds.
	for _, s := range c.Sections {
		for _, it := range s.Items {
			id, err := memex.ParseID(it.ID)
			if err != nil {
				t.Fatalf("%s item %q: %v", s.Name, it.ID, err)
			}
			if _, err := w.store.Get(ctx, id); err != nil {
				t.Errorf("%s item %s: %v", s.Name, it.ID, err)
			}
			if !strings.Contains(c.Text, it.ID+"  ") {
				t.Errorf("text lacks the line of %s", it.ID)
			}
		}
	}
	// Excluding the session being started leaves the earlier one.
	c2, err := memory.Handoff(ctx, w.store, memory.HandoffOptions{Project: project, Exclude: "0199c0de-0000-7000-8000-00000000c0de"})
	if err != nil || c2.Sessions != 1 {
		t.Errorf("exclude: %d sessions, %v", c2.Sessions, err)
	}
}

func TestHandoffBudget(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	prev := -1
	for budget := 10; budget <= 700; budget += 7 {
		c, err := memory.Handoff(ctx, w.store, memory.HandoffOptions{Project: project, Budget: budget})
		if errors.Is(err, memex.ErrBudgetTooSmall) {
			if prev >= 0 {
				t.Fatalf("budget %d too small after %d fitted", budget, prev)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := summarize.Count([]byte(c.Text)); n > budget || n != c.Used {
			t.Fatalf("budget %d: used %d, counted %d", budget, c.Used, n)
		}
		lines := strings.Count(c.Text, "\n")
		if lines < prev {
			t.Errorf("budget %d: %d lines, fewer than %d at a smaller budget", budget, lines, prev)
		}
		prev = lines
	}
	if _, err := memory.Handoff(ctx, w.store, memory.HandoffOptions{Project: "github.com/acme/none"}); !errors.Is(err, memex.ErrNotFound) {
		t.Errorf("unknown project: %v, want not found", err)
	}
}

func TestStale(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	check := func() memory.StaleResult {
		t.Helper()
		res, err := memory.Stale(ctx, w.store, memory.StaleOptions{Project: project, Checkout: deref.NewCheckout(w.repo.Dir, project)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := check()
	// Only the README edit is stale: its snippet was never committed.
	if len(res.Items) != 1 || !strings.Contains(res.Items[0].Evidence[0].Path, "README.md") || res.Checked != 3 {
		t.Fatalf("before the change: checked %d, stale %+v", res.Checked, res.Items)
	}
	// The code moves on: the Codex read of auth/token.go is stale now,
	// and listed first (newest first).
	w.repo.Write(map[string]string{"auth/token.go": "package auth\n\nfunc Refresh() error {\n\treturn retryOnce(refresh)\n}\n"})
	res = check()
	if len(res.Items) != 2 || res.Items[0].Agent != "codex" {
		t.Fatalf("after the change: %+v", res.Items)
	}
	ev := res.Items[0].Evidence[0]
	if ev.State != deref.MarkChanged || ev.Path != "auth/token.go" || ev.Line != 4 || ev.Now != "\treturn retryOnce(refresh)" {
		t.Errorf("evidence %+v: want line 4 changed", ev)
	}
	os.Remove(filepath.Join(w.repo.Dir, "README.md"))
	res = check()
	if len(res.Items) != 3 || res.Items[1].Mark != deref.MarkGone {
		t.Errorf("after removing README.md: %+v", res.Items)
	}
}

// A session whose prompt is an issue statement (SWE-agent, mini-swe-agent)
// has a summary that already says "task: "; its handoff line says it once.
func TestHandoffTaskSaidOnce(t *testing.T) {
	ctx := context.Background()
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	e := memex.Entry{Project: project, Session: "django-1", Agent: "mini-swe-agent", Kind: memex.KindMessage, Attrs: map[string]string{"role": "user"}}
	if _, err := s.Add(ctx, e, strings.NewReader("<pr_description>\nConsider the following PR description: Queryset crashes when unpickled. Details follow.\n")); err != nil {
		t.Fatal(err)
	}
	c, err := memory.Handoff(ctx, s, memory.HandoffOptions{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	sess := section(c, memory.SectionSessions).Items
	if len(sess) != 1 || !strings.Contains(sess[0].Text, "· task: Queryset crashes when unpickled.") || strings.Contains(sess[0].Text, "task: task:") {
		t.Fatalf("sessions: %+v", sess)
	}
}

// A section with nothing to say has an empty list of items, not null.
func TestHandoffEmptySectionItems(t *testing.T) {
	ctx := context.Background()
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Add(ctx, memex.Entry{Project: project, Session: "s1", Agent: "cli", Kind: memex.KindNote}, strings.NewReader("keep the retry loop\n")); err != nil {
		t.Fatal(err)
	}
	c, err := memory.Handoff(ctx, s, memory.HandoffOptions{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"items":null`) {
		t.Fatalf("a section's items are null: %s", b)
	}
}
