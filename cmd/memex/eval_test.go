package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/eval"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/testutil"
)

func TestEvalProbesAndBudget(t *testing.T) {
	corpora := testutil.Corpora(t)
	home := t.TempDir()
	if r := run(t, home, nil, "ingest", "auto", filepath.Join(corpora, "mini-swe-agent", "sympy__sympy-23534"),
		filepath.Join(corpora, "mini-swe-agent", "django__django-11848"), "-q"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	p1 := run(t, home, nil, "eval", "probes", "--project", "", "--seed", "3")
	p2 := run(t, home, nil, "eval", "probes", "sympy__sympy-23534", "django__django-11848", "--seed", "3")
	if p1.code != 0 || p1.stdout == "" || p1.stdout != p2.stdout {
		t.Fatalf("probes: %+v\nthen %+v", p1, p2)
	}
	probes, err := eval.ReadProbes(strings.NewReader(p1.stdout))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "probes.jsonl")
	if err := os.WriteFile(file, []byte(p1.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	svg, outs := filepath.Join(dir, "hit.svg"), filepath.Join(dir, "outcomes.jsonl")
	r := run(t, home, nil, "eval", "budget", "--probes", file, "--budgets", "500,2000", "--json", "--plot", svg, "--outcomes", outs)
	if r.code != 0 {
		t.Fatalf("budget: %+v", r)
	}
	var rep eval.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r.stdout)
	}
	if rep.Probes != len(probes) || len(rep.Cells) != 2*len(eval.Strategies) {
		t.Fatalf("report: %d probes of %d, %d cells", rep.Probes, len(probes), len(rep.Cells))
	}
	for _, c := range rep.Cells {
		if c.N != len(probes) || c.MeanTokens > float64(c.Budget) {
			t.Errorf("cell %+v", c)
		}
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg") {
		t.Errorf("plot: %v", err)
	}
	if b, err := os.ReadFile(outs); err != nil || strings.Count(string(b), "\n") != 2*len(eval.Strategies)*len(probes) {
		t.Errorf("outcomes: %v", err)
	}
	r = run(t, home, nil, "eval", "budget", "--probes", file, "--budgets", "500", "--save")
	if r.code != 0 || !strings.Contains(r.stdout, "hit rate") || !strings.Contains(r.stderr, "run saved in "+filepath.Join(home, "eval")) {
		t.Errorf("table: %+v", r)
	}
	runs, bad, err := eval.LoadRuns(filepath.Join(home, "eval"))
	if err != nil || len(runs) != 1 || bad != nil || runs[0].Probes != file || runs[0].Report.Probes != len(probes) {
		t.Errorf("saved runs %+v, %v, %v", runs, bad, err)
	}
}

func TestEvalUsage(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"eval", "probes"},
		{"eval", "budget"},
		{"eval", "budget", "--probes", "x", "--budgets", "10,-1"},
		{"eval", "retrieval", "x.json"},
		{"eval", "retrieval", "--format", "locomo"},
		// Refused before the store is opened: this home has none.
		{"eval", "probes", "--project", "p", "--kinds", "bogus"},
		{"eval", "budget", "--probes", filepath.Join(testutil.ModuleRoot(), "eval", "testdata", "corpora-seed42.probes.jsonl"), "--summary-share", "1.5"},
	} {
		if r := run(t, home, nil, args...); r.code != cli.ExitUsage {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

func TestEvalRetrieval(t *testing.T) {
	home := t.TempDir()
	fixture := filepath.Join(testutil.ModuleRoot(), "eval", "testdata", "locomo.json")
	r := run(t, home, nil, "eval", "retrieval", "--format", "locomo", fixture, "--k", "1,5", "--json")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var rep eval.RetrievalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r.stdout)
	}
	if rep.Questions != 2 || len(rep.Scores) != 3*2*2 { // memex, bm25, fts5; two levels; two k
		t.Fatalf("report %+v", rep)
	}
	if r := run(t, home, nil, "eval", "retrieval", "--format", "locomo", fixture); r.code != 0 || !strings.Contains(r.stdout, "bm25") || !strings.Contains(r.stdout, "fts5") {
		t.Fatalf("table: %+v", r)
	}

	// A file of another shape: one line saying what was expected.
	notes := filepath.Join(testutil.ModuleRoot(), "eval", "testdata", "notes.jsonl")
	want := "memex: eval: longmemeval: " + notes + ": want a JSON array of questions (question_id, question, haystack_session_ids, haystack_sessions, answer_session_ids): found an object at offset 0: invalid input\n"
	if r := run(t, home, nil, "eval", "retrieval", "--format", "longmemeval", notes); r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("a JSONL file as longmemeval: %+v", r)
	}
}
