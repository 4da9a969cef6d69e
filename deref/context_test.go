package deref_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/summarize"
)

// session adds a small debugging session: reads, a failing test, an edit,
// the test passing, a note, repeated reads.
func session(t testing.TB, s *archive.Store, name string, base int) []memex.Entry {
	steps := []struct {
		e    memex.Entry
		body string
	}{
		{memex.Entry{Tool: "bash", Input: "ls calc", Exit: memex.IntPtr(0)}, "parse.go\nparse_test.go\n"},
		{memex.Entry{Tool: "bash", Input: "cat calc/parse.go", Exit: memex.IntPtr(0)}, "package calc\n\nfunc Parse(s string) int { return 4 }\n"},
		{memex.Entry{Tool: "bash", Input: "go test ./calc", Exit: memex.IntPtr(1)}, "--- FAIL: TestParse (0.00s)\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\nFAIL\nFAIL\texample.com/calc\t0.004s\n"},
		{memex.Entry{Kind: memex.KindReasoning}, "The parser adds the operator twice. I will fix the loop in Parse."},
		{memex.Entry{Tool: "Edit", Input: `{"file_path":"calc/parse.go","old_string":"return 4","new_string":"return 3"}`}, "The file calc/parse.go has been updated successfully."},
		{memex.Entry{Tool: "bash", Input: "cat calc/parse.go", Exit: memex.IntPtr(0)}, "package calc\n\nfunc Parse(s string) int { return 3 }\n"},
		{memex.Entry{Tool: "bash", Input: "go test ./calc", Exit: memex.IntPtr(0)}, "ok  \texample.com/calc\t0.003s\n"},
		{memex.Entry{Kind: memex.KindNote, AgentSummary: "Parse double-counted operators; fixed in parse.go, test passes"}, "note"},
		{memex.Entry{Tool: "bash", Input: "ls calc", Exit: memex.IntPtr(0)}, "parse.go\nparse_test.go\n"},
	}
	var out []memex.Entry
	for i, st := range steps {
		e := st.e
		e.ID = fixedID(base + i)
		e.Created = t0.Add(time.Duration(base+i) * time.Second)
		e.Session, e.Project, e.Agent = name, "calc", "claude-code"
		if e.Kind == "" {
			e.Kind = memex.KindTool
		}
		out = append(out, add(t, s, e, st.body))
	}
	return out
}

func TestContextAllFit(t *testing.T) {
	s := openStore(t)
	es := session(t, s, "s1", 100)
	res, err := deref.New(s).Context(context.Background(), deref.ContextOptions{Session: "s1", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != len(es) || res.Omitted != 0 || len(res.Entries) != len(es) {
		t.Fatalf("total %d omitted %d entries %d", res.Total, res.Omitted, len(res.Entries))
	}
	if n := summarize.CountString(res.Text); n != res.Used || n > 2000 {
		t.Fatalf("used %d, text counts %d", res.Used, n)
	}
	for i, e := range res.Entries {
		if e.ID != es[i].ID.String() {
			t.Fatalf("entry %d out of session order", i)
		}
		line := fmt.Sprintf("%s  %s  (%d tok)\n", e.ID, es[i].DisplaySummary(), es[i].Tokens)
		if !strings.Contains(res.Text, line) {
			t.Fatalf("text lacks line %q", line)
		}
	}
	if !strings.HasPrefix(res.Text, "[memex context · session s1 · 9 entries · ") || !strings.Contains(res.Text, "agents: claude-code]") {
		t.Fatalf("header: %q", strings.SplitN(res.Text, "\n", 2)[0])
	}
	b, _ := json.Marshal(res)
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"budget", "used", "total", "omitted", "entries"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("json lacks %q: %s", k, b)
		}
	}
	ent := m["entries"].([]any)[0].(map[string]any)
	for _, k := range []string{"id", "summary", "tokens", "kind", "tool", "created"} {
		if _, ok := ent[k]; !ok {
			t.Fatalf("json entry lacks %q: %v", k, ent)
		}
	}
}

func TestContextKeepsWhatMatters(t *testing.T) {
	s := openStore(t)
	es := session(t, s, "s2", 200)
	r := deref.New(s)
	full, err := r.Context(context.Background(), deref.ContextOptions{Session: "s2", Budget: 2000})
	if err != nil {
		t.Fatal(err)
	}
	budget := full.Used - 60
	res, err := r.Context(context.Background(), deref.ContextOptions{Session: "s2", Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if res.Used > budget || res.Omitted == 0 || res.Omitted+len(res.Entries) != len(es) {
		t.Fatalf("used %d/%d omitted %d kept %d", res.Used, budget, res.Omitted, len(res.Entries))
	}
	kept := map[string]bool{}
	for _, e := range res.Entries {
		kept[e.ID] = true
	}
	// The failure, its fix, the passing rerun and the note survive; the
	// repeated listing goes first.
	for _, i := range []int{2, 4, 6, 7} {
		if !kept[es[i].ID.String()] {
			t.Fatalf("entry %d (%s) was dropped:\n%s", i, es[i].DisplaySummary(), res.Text)
		}
	}
	if kept[es[8].ID.String()] {
		t.Fatalf("the repeated listing was kept over others:\n%s", res.Text)
	}
	if !strings.Contains(res.Text, fmt.Sprintf("[memex: %d of 9 entries left out", res.Omitted)) || !strings.Contains(res.Text, "memex context --session s2 --budget ") {
		t.Fatalf("no footer:\n%s", res.Text)
	}
}

func TestContextSelection(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	es := session(t, s, "s3", 300)
	session(t, s, "other", 400)
	r := deref.New(s)
	res, err := r.Context(ctx, deref.ContextOptions{Session: "s3", Before: es[3].ID, Budget: 1000})
	if err != nil || res.Total != 3 {
		t.Fatalf("before: total %d, err %v", res.Total, err)
	}
	res, err = r.Context(ctx, deref.ContextOptions{Project: "calc", Budget: 4000})
	if err != nil || res.Total != 18 {
		t.Fatalf("project: total %d, err %v", res.Total, err)
	}
	if _, err := r.Context(ctx, deref.ContextOptions{}); !errors.Is(err, memex.ErrInvalid) {
		t.Fatalf("no scope: %v", err)
	}
	if _, err := r.Context(ctx, deref.ContextOptions{Session: "nope"}); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if _, err := r.Context(ctx, deref.ContextOptions{Project: "nope"}); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("unknown project: %v", err)
	}
	if _, err := r.Context(ctx, deref.ContextOptions{Session: "s3", Budget: 20}); !errors.Is(err, memex.ErrBudgetTooSmall) || !strings.Contains(err.Error(), "need at least") {
		t.Fatalf("tiny budget: %v", err)
	}
}

func TestContextGolden(t *testing.T) {
	s := openStore(t)
	session(t, s, "golden", 500)
	r := deref.New(s)
	for _, budget := range []int{2000, 260} {
		res, err := r.Context(context.Background(), deref.ContextOptions{Session: "golden", Budget: budget})
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprintf("budget %d, used %d, total %d, omitted %d\n%s", res.Budget, res.Used, res.Total, res.Omitted, res.Text)
		golden(t, filepath.Join("testdata", fmt.Sprintf("context_%d.golden", budget)), got)
	}
}

// BenchmarkContext1000 builds the IndexedSummary of a 1,000-entry session
// read from the real (in-memory) archive.
func BenchmarkContext1000(b *testing.B) {
	s := openStore(b)
	for i := 0; i < 1000; i++ {
		e := memex.Entry{Session: "big", Project: "p", Agent: "codex", Kind: memex.KindTool, Tool: "bash",
			Created: t0.Add(time.Duration(i) * time.Second), Exit: memex.IntPtr(i % 7 / 6)}
		body := fmt.Sprintf("line one of output %d\n", i)
		switch i % 4 {
		case 0:
			e.Input = fmt.Sprintf("cat pkg/file%d.go", i%50)
			body = fmt.Sprintf("package pkg\n\nfunc F%d() {}\n", i)
		case 1:
			e.Input = "go test ./..."
			body = fmt.Sprintf("--- FAIL: TestX%d (0.00s)\n    x_test.go:%d: got 1, want 2\nFAIL\n", i, i)
		case 2:
			e.Input = fmt.Sprintf("grep -rn Func%d .", i)
		}
		add(b, s, e, body)
	}
	r := deref.New(s)
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := r.Context(context.Background(), deref.ContextOptions{Session: "big", Budget: 4000})
		if err != nil {
			b.Fatal(err)
		}
		if res.Total != 1000 || res.Used > 4000 {
			b.Fatalf("total %d used %d", res.Total, res.Used)
		}
		lat = append(lat, time.Since(start))
	}
	reportP99(b, lat)
}

// TestContextBudgetZeroIsZero: a budget of 0 is what a caller has left
// after spending a larger one, not a request for the default: it holds no
// header, so the context is too small, never DefaultContextBudget tokens
// of summary. A negative budget is invalid.
func TestContextBudgetZeroIsZero(t *testing.T) {
	s := openStore(t)
	session(t, s, "s1", 100)
	r := deref.New(s)
	ctx := context.Background()
	res, err := r.Context(ctx, deref.ContextOptions{Session: "s1", Budget: 0})
	if !errors.Is(err, memex.ErrBudgetTooSmall) || res.Used != 0 || res.Text != "" {
		t.Fatalf("budget 0: used %d, err %v:\n%s", res.Used, err, res.Text)
	}
	if _, err := r.Context(ctx, deref.ContextOptions{Session: "s1", Budget: -1}); !errors.Is(err, memex.ErrInvalid) {
		t.Fatalf("budget -1: %v", err)
	}
}
