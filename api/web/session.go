package web

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// step is one entry of a session's replay.
type step struct {
	N          int // 0-based position in the session
	E          memex.Entry
	Summary    string
	Failed     bool
	Compaction bool
}

type sessionData struct {
	Ref         memex.SessionRef
	Steps       []step
	Entries     int
	Start, End  time.Time
	Stats       sessionStats
	Page, Pages int
	Prev, Next  string
	First, Last string // addresses of the first and last pages
	// Live is set on the last page: its script asks for the entries
	// after After every Poll milliseconds.
	Live  bool
	After int
	Poll  int64
	Self  string // this session's address
}

// errStop ends a walk of a session early.
var errStop = errors.New("stop")

func newStep(n int, e memex.Entry) step {
	return step{N: n, E: e, Summary: e.DisplaySummary(), Failed: deref.Failed(e), Compaction: e.IsCompaction()}
}

// handleSession replays a session a page of steps at a time. With
// ?after=N&frag=1 it answers the steps after the N-th alone (what the
// page's script polls for while hooks add entries), with the count of
// entries in X-Memex-Entries.
func (v *Viewer) handleSession(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	ref := memex.SessionRef{Session: r.PathValue("name"), Project: q.Get("project"), Agent: q.Get("agent")}
	if ref.Session == "" {
		v.fail(w, r, errors.New("no session named: want /s/NAME"))
		return
	}
	size := cmp.Or(v.opts.PageSize, 200)
	if a := q.Get("after"); a != "" {
		after, err := strconv.Atoi(a)
		if err != nil || after < 0 {
			v.fail(w, r, errors.New("after: want a number of entries: "+strconv.Quote(a)))
			return
		}
		var d sessionData
		d.Ref = ref
		err = v.opts.Store.Session(ctx, ref, func(e memex.Entry) error {
			if d.Entries >= after {
				d.Steps = append(d.Steps, newStep(d.Entries, e))
			}
			d.Entries++
			return nil
		})
		if err != nil {
			v.fail(w, r, err)
			return
		}
		w.Header().Set("X-Memex-Entries", strconv.Itoa(d.Entries))
		v.render(w, r, http.StatusOK, "session", ref.Session, d)
		return
	}
	d := sessionData{Ref: ref, Page: 1, Poll: v.opts.Poll.Milliseconds(), Self: sessionURL(ref)}
	if p, err := strconv.Atoi(q.Get("page")); err == nil && p > 0 {
		d.Page = p
	}
	last := q.Get("page") == "last"
	pageStart := (d.Page - 1) * size
	// Only the page's steps are kept, and the last page's, in case the
	// page asked for is past the end.
	var window, tail []step
	err := v.opts.Store.Session(ctx, ref, func(e memex.Entry) error {
		if d.Entries == 0 {
			d.Start = e.Created
		}
		d.End = e.Created
		d.Stats.add(e)
		if d.Ref.Project == "" {
			d.Ref.Project = e.Project
		}
		if d.Ref.Agent == "" {
			d.Ref.Agent = e.Agent
		}
		n := d.Entries
		if !last && n >= pageStart && n < pageStart+size {
			window = append(window, newStep(n, e))
		}
		if tail = append(tail, newStep(n, e)); len(tail) > size {
			tail = tail[1:]
		}
		d.Entries++
		return nil
	})
	if err != nil {
		v.fail(w, r, err)
		return
	}
	d.Pages = max(1, (d.Entries+size-1)/size)
	d.Steps = window
	if last || d.Page > d.Pages {
		d.Page = d.Pages
		d.Steps = nil
		for _, st := range tail {
			if st.N >= (d.Pages-1)*size {
				d.Steps = append(d.Steps, st)
			}
		}
	}
	pageAddr := func(n int) string {
		return d.Self + joinQuery(d.Self, "page="+strconv.Itoa(n))
	}
	if d.Page > 1 {
		d.Prev, d.First = pageAddr(d.Page-1), pageAddr(1)
	}
	if d.Page < d.Pages {
		d.Next, d.Last = pageAddr(d.Page+1), pageAddr(d.Pages)
	}
	d.Live = d.Page == d.Pages
	d.After = d.Entries
	v.render(w, r, http.StatusOK, "session", ref.Session, d)
}

// joinQuery is what to append to addr to add the query pair kv.
func joinQuery(addr, kv string) string {
	for i := 0; i < len(addr); i++ {
		if addr[i] == '?' {
			return "&" + kv
		}
	}
	return "?" + kv
}
