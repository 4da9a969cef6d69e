package api

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
)

// scanIndex is a test Index: every entry whose body contains the query
// text, newest first, with the Query's filters applied.
type scanIndex struct{ st *archive.Store }

func (x scanIndex) Search(ctx context.Context, q Query) (SearchResult, error) {
	var res SearchResult
	err := x.st.Scan(ctx, timeZero, timeZero, func(e memex.Entry) error {
		if q.Session != "" && e.Session != q.Session || q.Project != "" && e.Project != q.Project ||
			q.Agent != "" && e.Agent != q.Agent || q.Kind != "" && string(e.Kind) != q.Kind || q.Tool != "" && e.Tool != q.Tool {
			return nil
		}
		b, err := x.st.ReadAll(ctx, e.ID)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte(q.Text)) {
			return nil
		}
		res.Hits = append([]Hit{{ID: e.ID, Score: 1, Summary: e.DisplaySummary(), Tokens: e.Tokens,
			Session: e.Session, Project: e.Project, Agent: e.Agent, Kind: e.Kind, Created: e.Created}}, res.Hits...)
		res.Total++
		return nil
	})
	if q.Sessions {
		// Sessions in the order of their newest hit, each covering the query.
		at := map[string]int{}
		for _, h := range res.Hits {
			i, ok := at[h.Session]
			if !ok {
				i, at[h.Session] = len(res.Sessions), len(res.Sessions)
				res.Sessions = append(res.Sessions, SessionHit{Project: h.Project, Session: h.Session, Score: h.Score, Cover: 1})
			}
			res.Sessions[i].Hits = append(res.Sessions[i].Hits, h)
		}
		res.Hits, res.Total = nil, uint64(len(res.Sessions))
		if q.Limit > 0 && len(res.Sessions) > q.Limit {
			res.Sessions = res.Sessions[:q.Limit]
		}
		return res, err
	}
	if q.Limit > 0 && len(res.Hits) > q.Limit {
		res.Hits = res.Hits[:q.Limit]
	}
	return res, err
}

type catalog struct{ st *archive.Store }

// Sessions lists the sessions in the order of their first entry, with the
// project and agent of that entry and the count of entries f admits.
func (c catalog) Sessions(ctx context.Context, f SessionFilter) ([]SessionInfo, error) {
	var out []SessionInfo
	at := map[string]int{}
	err := c.st.Scan(ctx, timeZero, timeZero, func(e memex.Entry) error {
		if e.Session == "" || f.Project != "" && e.Project != f.Project || f.Agent != "" && e.Agent != f.Agent {
			return nil
		}
		i, ok := at[e.Session]
		if !ok {
			i, at[e.Session] = len(out), len(out)
			out = append(out, SessionInfo{Session: e.Session, Project: e.Project, Agent: e.Agent, Start: e.Created})
		}
		out[i].Entries++
		out[i].End = e.Created
		return nil
	})
	return out, err
}

func (c catalog) Stats(ctx context.Context) (Stats, error) {
	st, err := c.st.Stats(ctx)
	return Stats{Entries: st.Entries, Sessions: st.Sessions, Bodies: st.Bodies, RawBytes: st.RawBytes,
		StoredBytes: st.StoredBytes, Tokens: st.Tokens}, err
}

var timeZero time.Time

// newTestServer returns a Server over an in-memory (or on-disk, with dir)
// archive.
func newTestServer(t testing.TB, dir string, opts Options) (*Server, *archive.Store) {
	t.Helper()
	st, err := archive.Open(dir, &archive.Options{InMemory: dir == "", MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts.Store = st
	opts.Index = scanIndex{st}
	opts.Catalog = catalog{st}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

func mustAdd(t testing.TB, st *archive.Store, e memex.Entry, body string) memex.Entry {
	t.Helper()
	got, err := st.Add(context.Background(), e, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func newBenchServer(b *testing.B) (*Server, *archive.Store) { return newTestServer(b, "", Options{}) }
