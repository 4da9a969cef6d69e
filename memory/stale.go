package memory

import (
	"context"
	"fmt"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/summarize"
)

// StaleOptions configure Stale. Project and Checkout are required.
type StaleOptions struct {
	Project  string
	Checkout *deref.Checkout
	// Limit bounds the memories listed; 0 lists all.
	Limit int
}

// StaleItem is one memory whose file changed since it was archived.
type StaleItem struct {
	ID       string       `json:"id"`
	Summary  string       `json:"summary"`
	Session  string       `json:"session,omitempty"`
	Agent    string       `json:"agent,omitempty"`
	Created  time.Time    `json:"created"`
	Mark     string       `json:"mark"` // changed or gone
	Evidence []deref.Mark `json:"evidence"`
}

// StaleResult lists the stale memories of a project, newest first.
// Checked counts the entries whose evidence was checked; Partial says the
// checkout's time bound ended the check before every entry was seen (the
// oldest were left).
type StaleResult struct {
	Project string      `json:"project"`
	Checked int         `json:"checked"`
	Partial bool        `json:"partial,omitempty"`
	Items   []StaleItem `json:"items"`
}

// Stale checks every entry of the project that showed file lines against
// the checkout, newest first, and lists those whose lines changed or
// whose file is gone. It fails with memex.ErrInvalid without a project or
// checkout.
func Stale(ctx context.Context, s Store, opts StaleOptions) (StaleResult, error) {
	if opts.Project == "" || opts.Checkout == nil {
		return StaleResult{}, fmt.Errorf("memory: stale: give a project and a checkout: %w", memex.ErrInvalid)
	}
	entries, err := all(ctx, s, opts.Project)
	if err != nil {
		return StaleResult{}, err
	}
	res := StaleResult{Project: opts.Project, Items: []StaleItem{}}
	r := deref.New(s)
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if e.Kind != memex.KindTool || e.Attrs["shows"] == "" && !summarize.MayShow(e.Tool, e.Input) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if opts.Checkout.Expired() {
			res.Partial = true
			break
		}
		marks := r.CheckEntries(ctx, opts.Checkout, []memex.Entry{e})[0]
		if len(marks) == 0 {
			continue
		}
		res.Checked++
		var bad []deref.Mark
		for _, m := range marks {
			if m.State != deref.MarkCurrent {
				bad = append(bad, m)
			}
		}
		if len(bad) == 0 {
			continue
		}
		res.Items = append(res.Items, StaleItem{ID: e.ID.String(), Summary: e.DisplaySummary(), Session: e.Session, Agent: e.Agent,
			Created: e.Created, Mark: deref.Worst(bad), Evidence: bad})
		if opts.Limit > 0 && len(res.Items) >= opts.Limit {
			break
		}
	}
	return res, nil
}
