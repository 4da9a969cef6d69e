package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// Run is a saved budget run: its report with what it ran on, as SaveRun
// writes it (one JSON file) and LoadRuns reads it back.
type Run struct {
	Kind    string    `json:"kind"` // "budget"
	Name    string    `json:"name"` // the file's name without .json
	Created time.Time `json:"created"`
	// Probes is the probe file as it was given to memex eval budget.
	Probes string `json:"probes,omitempty"`
	// SummaryShare is the memex strategy's least share of the budget for
	// the IndexedSummary.
	SummaryShare float64 `json:"summary_share,omitempty"`
	Report       Report  `json:"report"`
}

// RunKindBudget is the Kind of a budget run.
const RunKindBudget = "budget"

// SaveRun writes run into dir (made when missing) as budget-TIME.json,
// TIME its creation time in UTC (now when zero), never replacing a file:
// two runs within a second get -2, -3, ... It returns the file's path.
// The file is written whole or not at all (a temporary file renamed).
func SaveRun(dir string, run Run) (string, error) {
	if run.Created.IsZero() {
		run.Created = time.Now()
	}
	run.Created = run.Created.UTC()
	run.Kind = cmp.Or(run.Kind, RunKindBudget)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("eval: save run: %w", err)
	}
	base := run.Kind + "-" + run.Created.Format("20060102T150405Z")
	for n := 1; ; n++ {
		run.Name = base
		if n > 1 {
			run.Name = fmt.Sprintf("%s-%d", base, n)
		}
		path := filepath.Join(dir, run.Name+".json")
		b, err := json.MarshalIndent(run, "", "  ")
		if err != nil {
			return "", fmt.Errorf("eval: save run: %w", err)
		}
		tmp, err := os.CreateTemp(dir, ".run-*")
		if err != nil {
			return "", fmt.Errorf("eval: save run: %w", err)
		}
		_, err = tmp.Write(append(b, '\n'))
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			// A hard link fails when the name is taken: no run is
			// replaced, whatever runs at once.
			err = os.Link(tmp.Name(), path)
		}
		os.Remove(tmp.Name())
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("eval: save run: %w", err)
		}
		return path, nil
	}
}

// LoadRuns reads the runs saved in dir, newest first. A missing dir holds
// none; a file that is not a run is reported in bad (path: what is wrong)
// and skipped.
func LoadRuns(dir string) (runs []Run, bad []string, err error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, fmt.Errorf("eval: load runs: %w", err)
	}
	for _, p := range names {
		b, err := os.ReadFile(p)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		var r Run
		if err := json.Unmarshal(b, &r); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		if r.Kind != RunKindBudget || len(r.Report.Cells) == 0 {
			bad = append(bad, fmt.Sprintf("%s: not a saved budget run (kind %q, %d cells): %v", p, r.Kind, len(r.Report.Cells), memex.ErrInvalid))
			continue
		}
		r.Name = strings.TrimSuffix(filepath.Base(p), ".json")
		runs = append(runs, r)
	}
	slices.SortStableFunc(runs, func(a, b Run) int { return cmp.Or(b.Created.Compare(a.Created), strings.Compare(b.Name, a.Name)) })
	return runs, bad, nil
}

// RunsDir is where memex eval budget --save keeps the runs of the home
// dir, and where the viewer reads them from.
func RunsDir(home string) string { return filepath.Join(home, "eval") }

// Keep is what a budget run keeps beside its report, each left out when
// "": every probe's outcome (JSON lines) in the file Outcomes, the plot
// (SVG) in the file Plot, and the run itself (SaveRun) in the folder
// SaveDir, with Probes, the name of the probe file it ran.
type Keep struct {
	Outcomes, Plot, SaveDir, Probes string
}

// RunBudget is memex eval budget: Budget over probes with opts, its
// report (NewReport), and what keep asks for; saved is the path of the
// run saved, "" when none is.
func RunBudget(ctx context.Context, env Env, probes []Probe, opts BudgetOptions, keep Keep) (rep Report, saved string, err error) {
	outs, skipped, err := Budget(ctx, env, probes, opts)
	if err != nil {
		return Report{}, "", err
	}
	rep = NewReport(len(probes), outs, skipped, opts.Budgets)
	if err := writeFiles(rep, outs, keep.Outcomes, keep.Plot); err != nil {
		return rep, "", err
	}
	if keep.SaveDir != "" {
		saved, err = SaveRun(keep.SaveDir, Run{Probes: keep.Probes, SummaryShare: opts.SummaryShare, Report: rep})
	}
	return rep, saved, err
}

// writeFiles writes what a budget run was asked to keep beside its report:
// every probe's outcome (JSON lines) to outcomes and the plot (SVG) to
// plot, each skipped when its name is "".
func writeFiles(rep Report, outs []Outcome, outcomes, plot string) error {
	if outcomes != "" {
		f, err := os.Create(outcomes)
		if err == nil {
			err = WriteOutcomes(f, outs)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return fmt.Errorf("eval: outcomes: %w", err)
		}
	}
	if plot != "" {
		if err := os.WriteFile(plot, []byte(Plot(rep)), 0o644); err != nil {
			return fmt.Errorf("eval: plot: %w", err)
		}
	}
	return nil
}
