package index

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
)

// sumQuery matches the documents that match at least min of its clauses
// and scores each by the sum of its clauses' scores. bleve's disjunction
// multiplies that sum by the share of clauses matched (its coord), at every
// level of nesting: a word found in one of three fields lost two thirds of
// its score, and a question's function words ("what", "did", "the") counted
// for its coverage like its rarest word. sumQuery adds instead; with
// coverage set, the sum is multiplied by the share of the clauses' IDF that
// the document matches, so that matching the rare words of a query counts
// more than matching its common ones (see queryOf).
type sumQuery struct {
	clauses []query.Query
	min     int
	// df lists, per clause, the terms whose document frequency stands
	// for the clause's in the coverage (the most frequent is taken);
	// nil: no coverage factor.
	df [][]fieldTerm
	// ahead: the query is the whole search, no filter narrowing its
	// matches, so its large conjunctions, and those of the sumQueries
	// among its clauses, may be walked ahead (prefetching).
	ahead bool
}

// aheadKey marks the context of a sumQuery's searchers when ahead is set.
type aheadKey struct{}

// fieldTerm is a term of one field.
type fieldTerm struct{ field, term string }

var _ query.Query = (*sumQuery)(nil)

func (q *sumQuery) Searcher(ctx context.Context, i bindex.IndexReader, m mapping.IndexMapping,
	options search.SearcherOptions) (search.Searcher, error) {
	if q.ahead {
		ctx = context.WithValue(ctx, aheadKey{}, true)
	}
	ss, weights, total, err := q.clauseSearchers(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return searcher.NewMatchNoneSearcher(i)
	}
	prefetching(ctx, ss, options)
	return newSumSearcher(ss, q.min, weights, total), nil
}

// clauseSearchers opens the searchers of q's clauses that can match, with
// each one's coverage weight (nil without coverage) and their total.
func (q *sumQuery) clauseSearchers(ctx context.Context, i bindex.IndexReader, m mapping.IndexMapping,
	options search.SearcherOptions) (ss []search.Searcher, weights []float64, total float64, err error) {
	ss = make([]search.Searcher, 0, len(q.clauses))
	fail := func(err error) ([]search.Searcher, []float64, float64, error) {
		for _, s := range ss {
			_ = s.Close()
		}
		return nil, nil, 0, err
	}
	var n float64
	if q.df != nil {
		docs, err := i.DocCount()
		if err != nil {
			return fail(err)
		}
		n = float64(docs)
	}
	for k, c := range q.clauses {
		s, err := c.Searcher(ctx, i, m, options)
		if err != nil {
			return fail(err)
		}
		if _, none := s.(*searcher.MatchNoneSearcher); none {
			_ = s.Close()
			continue
		}
		ss = append(ss, s)
		if q.df != nil {
			df, err := maxDocFreq(ctx, i, q.df[k])
			if err != nil {
				return fail(err)
			}
			weights = append(weights, idf(n, df))
		}
	}
	for _, w := range weights {
		total += w
	}
	return ss, weights, total, nil
}

// idf is BM25's inverse document frequency.
func idf(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// maxDocFreq is the largest document frequency among terms.
func maxDocFreq(ctx context.Context, i bindex.IndexReader, terms []fieldTerm) (float64, error) {
	best := uint64(0)
	for _, t := range terms {
		r, err := i.TermFieldReader(ctx, []byte(t.term), t.field, false, false, false)
		if err != nil {
			return 0, err
		}
		best = max(best, r.Count())
		_ = r.Close()
	}
	return float64(best), nil
}

// sumSearcher is the disjunction of a sumQuery's clauses: it matches the
// entries that at least min of them match, in index order, and scores
// each by the sum of its clauses' scores (times the coverage share with
// weights). bleve's disjunction, asked for each match's clause scores,
// handed them over in a map per match, which cost more than the scoring.
type sumSearcher struct {
	ss      []search.Searcher
	min     int
	weights []float64 // per clause, for coverage; nil for none
	total   float64
	// order is the order in which bleve's disjunction would add the
	// clauses' weights: the query norm comes from their sum, and so
	// stays the same to the bit.
	order   []int
	cur     []*search.DocumentMatch // each clause's current match
	started bool
	at      []int // the clauses matching the least current entry
}

var _ search.Searcher = (*sumSearcher)(nil)

func newSumSearcher(ss []search.Searcher, min int, weights []float64, total float64) *sumSearcher {
	s := &sumSearcher{ss: ss, min: max(min, 1), weights: weights, total: total,
		cur: make([]*search.DocumentMatch, len(ss)), at: make([]int, 0, len(ss))}
	s.order = make([]int, len(ss))
	for k := range s.order {
		s.order[k] = k
	}
	if len(ss) <= searcher.DisjunctionHeapTakeover {
		// bleve's slice disjunction sorts its clauses by count first.
		sort.Sort(byCount{ss: slices.Clone(ss), pos: s.order})
	}
	// As bleve's disjunction does: its own norm, until an enclosing
	// searcher sets the query's.
	s.SetQueryNorm(1 / math.Sqrt(s.Weight()))
	return s
}

// byCount sorts searchers as bleve's OrderedPositionalSearcherList does,
// carrying their positions along.
type byCount struct {
	ss  []search.Searcher
	pos []int
}

func (b byCount) Len() int           { return len(b.ss) }
func (b byCount) Less(i, j int) bool { return b.ss[i].Count() < b.ss[j].Count() }
func (b byCount) Swap(i, j int) {
	b.ss[i], b.ss[j] = b.ss[j], b.ss[i]
	b.pos[i], b.pos[j] = b.pos[j], b.pos[i]
}

func (s *sumSearcher) Weight() float64 {
	w := 0.0
	for _, k := range s.order {
		w += s.ss[k].Weight()
	}
	return w
}

func (s *sumSearcher) SetQueryNorm(qnorm float64) {
	for _, c := range s.ss {
		c.SetQueryNorm(qnorm)
	}
}

func (s *sumSearcher) Count() uint64 {
	n := uint64(0)
	for _, c := range s.ss {
		n += c.Count()
	}
	return n
}

func (s *sumSearcher) Min() int { return s.min }

func (s *sumSearcher) Size() int {
	n := 0
	for _, c := range s.ss {
		n += c.Size()
	}
	return n
}

func (s *sumSearcher) DocumentMatchPoolSize() int {
	n := len(s.ss)
	for _, c := range s.ss {
		n += c.DocumentMatchPoolSize()
	}
	return n
}

func (s *sumSearcher) Close() error {
	var first error
	for _, c := range s.ss {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (s *sumSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	if !s.started {
		s.started = true
		for k, c := range s.ss {
			d, err := c.Next(ctx)
			if err != nil {
				return nil, err
			}
			s.cur[k] = d
		}
	}
	return s.next(ctx)
}

func (s *sumSearcher) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	for k, c := range s.ss {
		d := s.cur[k]
		if s.started && (d == nil || d.IndexInternalID.Compare(id) >= 0) {
			continue
		}
		if d != nil {
			ctx.DocumentMatchPool.Put(d)
		}
		d, err := c.Advance(ctx, id)
		if err != nil {
			return nil, err
		}
		s.cur[k] = d
	}
	s.started = true
	return s.next(ctx)
}

// next returns the first entry from the clauses' current matches on
// that at least min of them match, and moves those clauses on.
func (s *sumSearcher) next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	for {
		at := s.at[:0]
		var least bindex.IndexInternalID
		for k, d := range s.cur {
			if d == nil {
				continue
			}
			if len(at) > 0 {
				cmp := d.IndexInternalID.Compare(least)
				if cmp > 0 {
					continue
				}
				if cmp < 0 {
					at = at[:0]
				}
			}
			if len(at) == 0 {
				least = d.IndexInternalID
			}
			at = append(at, k)
		}
		s.at = at
		if len(at) == 0 {
			return nil, nil
		}
		var rv *search.DocumentMatch
		if len(at) >= s.min {
			// In clause order: the same sum to the bit for the same
			// entry, whatever else matched.
			sum, got := 0.0, 0.0
			for _, k := range at {
				sum += s.cur[k].Score
				if s.weights != nil {
					got += s.weights[k]
				}
			}
			if s.weights != nil && s.total > 0 {
				sum *= got / s.total
			}
			rv = s.cur[at[0]]
			rv.Score = sum
			s.mergeLocations(rv, at[1:])
		}
		for _, k := range at {
			if s.cur[k] != rv {
				ctx.DocumentMatchPool.Put(s.cur[k])
			}
			d, err := s.ss[k].Next(ctx)
			if err != nil {
				return nil, err
			}
			s.cur[k] = d
		}
		if rv != nil {
			return rv, nil
		}
	}
}

// mergeLocations adds the term locations of the clauses at (asked for
// with term vectors) to rv's, as bleve's disjunction does.
func (s *sumSearcher) mergeLocations(rv *search.DocumentMatch, at []int) {
	var others []*search.DocumentMatch
	for _, k := range at {
		if len(s.cur[k].FieldTermLocations) > 0 {
			others = append(others, s.cur[k])
		}
	}
	if len(others) > 0 {
		rv.FieldTermLocations = search.MergeFieldTermLocations(rv.FieldTermLocations, others)
	}
}
