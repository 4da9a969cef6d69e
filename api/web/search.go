package web

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
)

// maxHits bounds how many hits a search page grows to ("more" adds a
// page's worth each time).
const maxHits = 500

type hitRow struct {
	api.Hit
	Summary []piece
	Snippet []piece
	Failed  bool
}

type searchData struct {
	Q                api.Query
	Hits             []hitRow
	Total            uint64
	Relaxed, Partial bool
	Partly           int
	Took             string
	More             string // the address of a longer list
	Problem          string
	Unavailable      bool
	Advanced         bool // a filter besides the words is set
	Searched         bool
	Limit            int
}

// handleSearch searches as memex search does: the query's words and
// field:value filters, and the form's filters (project, session, agent,
// kind, tool, before, after). Its script asks for ?frag=1 as the user
// types.
func (v *Viewer) handleSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	size := cmp.Or(v.opts.PageSize, 20)
	d := searchData{Q: api.Query{Text: strings.TrimSpace(q.Get("q")), Project: q.Get("project"), Session: q.Get("session"),
		Agent: q.Get("agent"), Kind: q.Get("kind"), Tool: q.Get("tool"), Before: q.Get("before"), After: q.Get("after")}}
	d.Limit = size
	if n, err := strconv.Atoi(q.Get("limit")); err == nil && n > 0 {
		d.Limit = min(n, maxHits)
	}
	d.Q.Limit = d.Limit
	d.Advanced = d.Q.Project != "" || d.Q.Session != "" || d.Q.Agent != "" || d.Q.Kind != "" || d.Q.Tool != "" || d.Q.Before != "" || d.Q.After != ""
	status := http.StatusOK
	switch {
	case v.opts.Index == nil:
		d.Unavailable = true
	case d.Q.Text == "" && !d.Advanced:
	default:
		d.Searched = true
		res, err := v.opts.Index.Search(r.Context(), d.Q)
		if err != nil {
			if !errors.Is(err, memex.ErrInvalid) && !errors.Is(err, memex.ErrNotFound) && !errors.Is(err, memex.ErrAmbiguous) {
				v.fail(w, r, err)
				return
			}
			// A query being typed is often malformed for a moment
			// (an open quote): say what is wrong where the hits go.
			d.Problem = err.Error()
			status = http.StatusBadRequest
			break
		}
		d.Total, d.Relaxed, d.Partial, d.Partly = res.Total, res.Relaxed, res.Partial, res.Partly
		d.Took = res.Took.Round(100_000).String()
		for _, h := range res.Hits {
			d.Hits = append(d.Hits, hitRow{Hit: h, Summary: markTerms(h.Summary, d.Q.Text), Snippet: markTerms(h.Snippet, d.Q.Text),
				Failed: deref.Failed(memex.Entry{Kind: h.Kind, Exit: h.Exit, Summary: h.Summary})})
		}
		if uint64(len(res.Hits)) < res.Total && len(res.Hits) == d.Limit && d.Limit < maxHits {
			d.More = "/search" + queryString("q", d.Q.Text, "project", d.Q.Project, "session", d.Q.Session, "agent", d.Q.Agent,
				"kind", d.Q.Kind, "tool", d.Q.Tool, "before", d.Q.Before, "after", d.Q.After, "limit", strconv.Itoa(min(d.Limit+size, maxHits)))
		}
	}
	title := "Search"
	if d.Q.Text != "" {
		title = d.Q.Text + " · Search"
	}
	v.render(w, r, status, "search", title, d)
}

// Ref is the identity of the hit's session.
func (h hitRow) Ref() memex.SessionRef {
	return memex.SessionRef{Session: h.Session, Project: h.Project, Agent: h.Agent}
}
