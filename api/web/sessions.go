package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// sessionStats are the figures of a session that need its entries read.
type sessionStats struct {
	Tokens      int64
	Failures    int
	Compactions int
}

// statsCache keeps the figures of sessions already read, under the
// session's identity, entry count and last ID: a session that gained or
// lost an entry has another key, so a stale figure is never shown.
type statsCache struct {
	mu sync.Mutex
	m  map[SessionKey]sessionStats
}

// maxCachedStats bounds the cache; past it, it starts again empty.
const maxCachedStats = 20000

func newStatsCache() *statsCache { return &statsCache{m: map[SessionKey]sessionStats{}} }

func (c *statsCache) get(k SessionKey) (sessionStats, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.m[k]
	return s, ok
}

func (c *statsCache) put(k SessionKey, s sessionStats) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= maxCachedStats {
		c.m = map[SessionKey]sessionStats{}
	}
	c.m[k] = s
}

// sessionStatsOf reads the entries of k's session for its figures, or
// takes them from the cache.
func (v *Viewer) sessionStatsOf(ctx context.Context, k SessionKey) (sessionStats, error) {
	if st, ok := v.stats.get(k); ok {
		return st, nil
	}
	var st sessionStats
	err := v.opts.Store.Session(ctx, k.SessionRef, func(e memex.Entry) error {
		st.add(e)
		return nil
	})
	if err != nil {
		return st, err
	}
	v.stats.put(k, st)
	return st, nil
}

func (st *sessionStats) add(e memex.Entry) {
	st.Tokens += e.Tokens
	if deref.Failed(e) {
		st.Failures++
	}
	if e.IsCompaction() {
		st.Compactions++
	}
}

// sessionRow is one line of the sessions page.
type sessionRow struct {
	SessionKey
	sessionStats
	Start, End time.Time
	// Left and Width place the session's span on its day's timeline, in
	// percent of the day.
	Left, Width float64
	NewDay      bool // the first row of its day
}

type sessionsData struct {
	Rows               []sessionRow
	Total              int // sessions the filter admits
	Entries            int // their entries
	Page, Pages        int
	Project, Agent     string
	From, To           string // dates, YYYY-MM-DD
	Projects, Agents   []string
	Prev, Next         string // addresses of the neighbouring pages
	Problem            string // a filter that could not be read
	EntriesOnPage      int
	AllSessions, Empty bool
}

const dateForm = "2006-01-02"

// handleSessions lists the sessions, newest first, a page at a time:
// only the sessions of the page have their entries read (and then kept,
// see statsCache), so the first page of a large archive costs one scan
// of the session keys.
func (v *Viewer) handleSessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	d := sessionsData{Project: q.Get("project"), Agent: q.Get("agent"), From: q.Get("from"), To: q.Get("to"), Page: 1}
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 0 {
		d.Page = p
	}
	var from, to time.Time
	var err error
	if d.From != "" {
		if from, err = time.ParseInLocation(dateForm, d.From, time.Local); err != nil {
			d.Problem = fmt.Sprintf("from %q: want a date as 2026-11-29", d.From)
		}
	}
	if d.To != "" {
		if to, err = time.ParseInLocation(dateForm, d.To, time.Local); err != nil {
			d.Problem = fmt.Sprintf("to %q: want a date as 2026-11-29", d.To)
		} else {
			to = to.AddDate(0, 0, 1) // the whole day
		}
	}
	keys, err := v.opts.Catalog.SessionKeys(ctx)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	projects, agents := map[string]bool{}, map[string]bool{}
	var match []SessionKey
	for _, k := range keys {
		projects[k.Project], agents[k.Agent] = true, true
		if d.Project != "" && k.Project != d.Project || d.Agent != "" && k.Agent != d.Agent {
			continue
		}
		if !from.IsZero() && k.Last.Time().Before(from) || !to.IsZero() && !k.First.Time().Before(to) {
			continue
		}
		match = append(match, k)
		d.Entries += k.Entries
	}
	d.Projects, d.Agents = sortedKeys(projects), sortedKeys(agents)
	d.AllSessions, d.Empty = len(keys) > 0, len(keys) == 0
	// Newest first: by the first entry's time, then by identity.
	slices.SortFunc(match, func(a, b SessionKey) int {
		return cmp.Or(b.First.Compare(a.First), cmp.Compare(a.Session, b.Session), cmp.Compare(a.Project, b.Project), cmp.Compare(a.Agent, b.Agent))
	})
	size := cmp.Or(v.opts.PageSize, 50)
	d.Total = len(match)
	d.Pages = max(1, (len(match)+size-1)/size)
	d.Page = min(d.Page, d.Pages)
	lo := (d.Page - 1) * size
	hi := min(lo+size, len(match))
	lastDay := ""
	for _, k := range match[lo:hi] {
		st, err := v.sessionStatsOf(ctx, k)
		if err != nil {
			v.fail(w, r, err)
			return
		}
		row := sessionRow{SessionKey: k, sessionStats: st, Start: k.First.Time(), End: k.Last.Time()}
		day := row.Start.Local().Format(dateForm)
		row.NewDay = day != lastDay
		lastDay = day
		row.Left, row.Width = daySpan(row.Start, row.End)
		d.Rows = append(d.Rows, row)
		d.EntriesOnPage += k.Entries
	}
	page := func(n int) string {
		return "/" + queryString("project", d.Project, "agent", d.Agent, "from", d.From, "to", d.To, "page", strconv.Itoa(n))
	}
	if d.Page > 1 {
		d.Prev = page(d.Page - 1)
	}
	if d.Page < d.Pages {
		d.Next = page(d.Page + 1)
	}
	v.render(w, r, http.StatusOK, "sessions", "Sessions", d)
}

// daySpan places start..end on the timeline of start's day, in percent;
// a span that runs past midnight is cut there, and a short one stays
// visible.
func daySpan(start, end time.Time) (left, width float64) {
	s := start.Local()
	midnight := time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, time.Local)
	day := midnight.AddDate(0, 0, 1).Sub(midnight)
	if end.After(midnight.Add(day)) {
		end = midnight.Add(day)
	}
	left = 100 * float64(s.Sub(midnight)) / float64(day)
	width = max(0.4, 100*float64(end.Sub(s))/float64(day))
	return left, min(width, 100-left)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
