package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memex-archive/memex"
)

// SessionHit is one session found by Sessions: the session, its score
// and its entries among the hits the sessions were ranked from.
type SessionHit struct {
	Project string  `json:"project"`
	Session string  `json:"session"`
	Score   float64 `json:"score"`
	// Cover is the share of the query's IDF that the session's hits hold
	// together (1 when the query has one word).
	Cover float64 `json:"cover"`
	Hits  []Hit   `json:"hits"` // best first
}

// SessionResult is the answer to Sessions.
type SessionResult struct {
	Sessions []SessionHit `json:"sessions"`
	// Partial says the search ran out of its time bound: sessions may be
	// missing or ranked by their best hit alone.
	Partial bool          `json:"partial,omitempty"`
	Took    time.Duration `json:"took_ns"`
}

// SessionPool is how many of a query's best hits Sessions ranks the
// sessions of.
const SessionPool = 200

// Sessions ranks the sessions that hold evidence for q: the SessionPool
// best hits of q (as Search ranks them) grouped by project and session,
// each session scored by its best hit's score times the share of the
// query's IDF that its hits hold together. A session whose entries
// between them hold every word of a question (one turn names the trip,
// another the hotel) ranks above a session whose best entry scores a
// little higher but holds only some of the words: the evidence for an
// answer often spans several entries of one session. q.Limit is the
// number of sessions (0 means 10, at most MaxLimit; there are no more than
// the pool's). An entry without a session is a session of its own. A
// query of one word, or a search out of time, ranks the sessions by their
// best hits alone.
func (ix *Index) Sessions(ctx context.Context, q Query) (SessionResult, error) {
	start := time.Now()
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	pq := q
	pq.Limit = SessionPool
	res, err := ix.Search(ctx, pq)
	if err != nil {
		return SessionResult{}, err
	}
	out := SessionResult{Partial: res.Partial}
	groups := map[[2]string]int{} // project, session → index in out.Sessions
	var members [][]int           // out.Sessions[i]'s hits, as indexes of res.Hits
	for i, h := range res.Hits {
		key := [2]string{h.Project, h.Session}
		if h.Session == "" {
			key = [2]string{h.Project, "\x00" + h.ID.String()}
		}
		g, ok := groups[key]
		if !ok {
			g = len(out.Sessions)
			groups[key] = g
			out.Sessions = append(out.Sessions, SessionHit{Project: h.Project, Session: h.Session, Score: h.Score, Cover: 1})
			members = append(members, nil)
		}
		out.Sessions[g].Hits = append(out.Sessions[g].Hits, h)
		members[g] = append(members[g], i)
	}
	p, err := parse(q)
	if err != nil {
		return SessionResult{}, err
	}
	if words := p.scoring(); len(words) > 1 && len(res.Hits) > 0 && !res.Partial {
		held, weights, partial, err := ix.wordsHeld(ctx, start, words, res.Hits)
		if err != nil {
			if ctx.Err() != nil {
				return SessionResult{}, fmt.Errorf("index: sessions: %w", ctx.Err())
			}
			return SessionResult{}, err
		}
		out.Partial = out.Partial || partial
		total := 0.0
		for _, w := range weights {
			total += w
		}
		if !partial && total > 0 {
			for g := range out.Sessions {
				got := 0.0
				for k, w := range weights {
					for _, i := range members[g] {
						if held[k][i] {
							got += w
							break
						}
					}
				}
				s := &out.Sessions[g]
				s.Cover = got / total
				s.Score *= s.Cover
			}
		}
	}
	// Equal scores keep the order of their best hits.
	slices.SortStableFunc(out.Sessions, func(a, b SessionHit) int { return cmp.Compare(b.Score, a.Score) })
	if len(out.Sessions) > limit {
		out.Sessions = out.Sessions[:limit]
	}
	out.Took = time.Since(start)
	return out, nil
}

// wordsHeld says, for each word, which of hits hold it (held[k][i]: word k
// in hits[i], in any field a search looks in), and each word's IDF, as
// the ranking's coverage weighs it (see sumQuery). partial: the search's
// time bound (Options.Timeout from start, the search included) ran out.
func (ix *Index) wordsHeld(ctx context.Context, start time.Time, words []qword, hits []Hit) (held [][]bool, weights []float64, partial bool, err error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, nil, false, fmt.Errorf("index: sessions: closed: %w", memex.ErrInvalid)
	}
	tctx, cancel := context.WithDeadline(ctx, start.Add(ix.opts.Timeout))
	defer cancel()
	adv, err := ix.bi.Advanced()
	if err != nil {
		return nil, nil, false, fmt.Errorf("index: sessions: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, nil, false, fmt.Errorf("index: sessions: %w", err)
	}
	defer r.Close()
	docs, err := r.DocCount()
	if err != nil {
		return nil, nil, false, fmt.Errorf("index: sessions: %w", err)
	}
	ids := make([]string, len(hits))
	at := make(map[string]int, len(hits))
	for i, h := range hits {
		ids[i] = h.ID.String()
		at[ids[i]] = i
	}
	for _, w := range words {
		df, err := maxDocFreq(tctx, r, dfTerms(w))
		if err != nil {
			return nil, nil, false, fmt.Errorf("index: sessions: %w", err)
		}
		weights = append(weights, idf(float64(docs), df))
		req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery([]query.Query{wordQuery(w), bleve.NewDocIDQuery(ids)}...), len(ids), 0, false)
		req.Score = "none"
		sr, err := ix.bi.SearchInContext(tctx, req)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(tctx.Err(), context.DeadlineExceeded) {
				return nil, nil, true, nil
			}
			return nil, nil, false, fmt.Errorf("index: sessions: %w", err)
		}
		in := make([]bool, len(hits))
		for _, h := range sr.Hits {
			if i, ok := at[h.ID]; ok {
				in[i] = true
			}
		}
		held = append(held, in)
	}
	return held, weights, false, nil
}
