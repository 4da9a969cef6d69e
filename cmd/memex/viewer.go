package main

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/memex-archive/memex/api/web"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/eval"
)

// sessionKeys adapts the archive's session listing to web.Catalog.
type sessionKeys struct{ s *archive.Store }

func (k sessionKeys) SessionKeys(ctx context.Context) ([]web.SessionKey, error) {
	list, err := k.s.Sessions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]web.SessionKey, len(list))
	for i, si := range list {
		out[i] = web.SessionKey{SessionRef: si.SessionRef, Entries: si.Entries, First: si.First, Last: si.Last}
	}
	return out, nil
}

// evalRuns are the folders whose saved eval runs the viewer shows.
type evalRuns []string

// EvalRuns reads the runs of every folder, newest first, each with the
// plot and the table that memex eval budget writes of it. A file that is
// not a run is skipped.
func (dirs evalRuns) EvalRuns(ctx context.Context) ([]web.EvalRun, error) {
	var out []web.EvalRun
	seen := map[string]bool{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		runs, _, err := eval.LoadRuns(abs)
		if err != nil {
			return nil, err
		}
		for _, r := range runs {
			var table bytes.Buffer
			if err := eval.WriteTable(&table, r.Report); err != nil {
				return nil, err
			}
			out = append(out, web.EvalRun{Name: r.Name, Source: abs, Created: r.Created, Probes: r.Report.Probes,
				File: r.Probes, Plot: []byte(eval.Plot(r.Report)), Table: table.String()})
		}
	}
	slices.SortStableFunc(out, func(a, b web.EvalRun) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out, ctx.Err()
}
