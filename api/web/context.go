package web

import (
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// Budgets of the context page's slider, in tokens.
const (
	minBudget     = 200
	maxBudget     = 20000
	defaultBudget = deref.DefaultContextBudget
)

type contextData struct {
	Session, Project, Before string
	Budget                   int
	Min, Max                 int
	Result                   *deref.ContextResult
	Text                     []piece // the rendering an agent is given, its IDs linked
	Problem                  string
	Projects                 []string
	Sessions                 []SessionKey // of the project chosen, newest first
}

// handleContext shows the IndexedSummary of a session or a project at a
// budget: what memex context prints, and what an agent holds after a
// compaction. Its slider asks for ?frag=1 at each budget.
func (v *Viewer) handleContext(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	d := contextData{Session: q.Get("session"), Project: q.Get("project"), Before: q.Get("before"), Budget: defaultBudget,
		Min: minBudget, Max: maxBudget}
	if b := q.Get("budget"); b != "" {
		n, err := strconv.Atoi(b)
		if err != nil || n <= 0 {
			d.Problem = "budget " + strconv.Quote(b) + ": want a positive number of tokens"
		} else {
			d.Budget = n
		}
	}
	keys, err := v.opts.Catalog.SessionKeys(ctx)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	projects := map[string]bool{}
	for _, k := range keys {
		projects[k.Project] = true
		if d.Project != "" && k.Project == d.Project {
			d.Sessions = append(d.Sessions, k)
		}
	}
	slices.SortFunc(d.Sessions, func(a, b SessionKey) int { return b.First.Compare(a.First) })
	if len(d.Sessions) > 50 {
		d.Sessions = d.Sessions[:50]
	}
	d.Projects = sortedKeys(projects)
	status := http.StatusOK
	if d.Problem == "" && (d.Session != "" || d.Project != "") {
		opts := deref.ContextOptions{Session: d.Session, Project: d.Project, Budget: d.Budget, Checkout: v.checkout()}
		if d.Before != "" {
			id, err := v.opts.Store.Resolve(ctx, d.Before, d.Project)
			if err != nil {
				v.fail(w, r, err)
				return
			}
			opts.Before = id
		}
		res, err := v.reader.Context(ctx, opts)
		switch {
		case err == nil:
			d.Result = &res
			d.Text = linkIDs(res.Text)
		case errors.Is(err, memex.ErrBudgetTooSmall), errors.Is(err, memex.ErrNotFound), errors.Is(err, memex.ErrInvalid):
			d.Problem = err.Error()
			status = statusOf(err)
		default:
			v.fail(w, r, err)
			return
		}
	}
	v.render(w, r, status, "context", "Context", d)
}
