package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSavedRunsReadBackNewestFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "eval")
	rep := Report{Probes: 3, Budgets: []int{500, 1000}, Strategies: []string{"memex"},
		Cells: []Cell{{Strategy: "memex", Budget: 500, Rate: Rate{Rate: 0.5}}, {Strategy: "memex", Budget: 1000, Rate: Rate{Rate: 1}}}}
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	var paths []string
	for _, created := range []time.Time{at, at, at.Add(time.Hour)} {
		p, err := SaveRun(dir, Run{Created: created, Probes: "p.jsonl", Report: rep})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if filepath.Base(paths[0]) != "budget-20261129T100000Z.json" || filepath.Base(paths[1]) != "budget-20261129T100000Z-2.json" {
		t.Fatalf("names %v", paths)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"kind":"other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, bad, err := LoadRuns(dir)
	if err != nil || len(runs) != 3 || len(bad) != 1 || !strings.Contains(bad[0], "notes.json") {
		t.Fatalf("runs %d, bad %v, %v", len(runs), bad, err)
	}
	if runs[0].Name != "budget-20261129T110000Z" || runs[0].Probes != "p.jsonl" || runs[0].Report.Cells[1].Rate.Rate != 1 {
		t.Fatalf("newest run %+v", runs[0])
	}
	if !strings.Contains(Plot(runs[0].Report), "<svg") {
		t.Fatalf("a loaded run does not plot")
	}
	if runs, bad, err := LoadRuns(filepath.Join(dir, "none")); err != nil || runs != nil || bad != nil {
		t.Fatalf("missing folder: %v %v %v", runs, bad, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".run-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
