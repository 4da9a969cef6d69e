package index

import (
	"context"
	"math"

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
}

// fieldTerm is a term of one field.
type fieldTerm struct{ field, term string }

var _ query.Query = (*sumQuery)(nil)

func (q *sumQuery) Searcher(ctx context.Context, i bindex.IndexReader, m mapping.IndexMapping,
	options search.SearcherOptions) (search.Searcher, error) {
	ss := make([]search.Searcher, 0, len(q.clauses))
	var weights []float64
	closeAll := func() {
		for _, s := range ss {
			_ = s.Close()
		}
	}
	var n float64
	if q.df != nil {
		docs, err := i.DocCount()
		if err != nil {
			return nil, err
		}
		n = float64(docs)
	}
	for k, c := range q.clauses {
		s, err := c.Searcher(ctx, i, m, options)
		if err != nil {
			closeAll()
			return nil, err
		}
		if _, none := s.(*searcher.MatchNoneSearcher); none {
			_ = s.Close()
			continue
		}
		ss = append(ss, s)
		if q.df != nil {
			df, err := maxDocFreq(ctx, i, q.df[k])
			if err != nil {
				closeAll()
				return nil, err
			}
			weights = append(weights, idf(n, df))
		}
	}
	if len(ss) == 0 {
		return searcher.NewMatchNoneSearcher(i)
	}
	total := 0.0
	for _, w := range weights {
		total += w
	}
	// The disjunction hands each match's clause scores over as a
	// breakdown (by clause position) instead of combining them.
	bctx := context.WithValue(ctx, search.IncludeScoreBreakdownKey, true)
	ds, err := searcher.NewDisjunctionSearcher(bctx, i, ss, float64(q.min), options)
	if err != nil {
		closeAll()
		return nil, err
	}
	return &sumSearcher{Searcher: ds, weights: weights, total: total}, nil
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

// sumSearcher scores the matches of a disjunction run for its breakdown.
type sumSearcher struct {
	search.Searcher
	weights []float64 // per clause, for coverage; nil for none
	total   float64
}

func (s *sumSearcher) score(dm *search.DocumentMatch) *search.DocumentMatch {
	if dm == nil {
		return nil
	}
	sum, got := 0.0, 0.0
	for k, v := range dm.ScoreBreakdown {
		sum += v
		if s.weights != nil {
			got += s.weights[k]
		}
	}
	if s.weights != nil && s.total > 0 {
		sum *= got / s.total
	}
	dm.Score = sum
	// The match may be a clause of an enclosing sumQuery, whose
	// breakdown it then holds: leave it empty.
	clear(dm.ScoreBreakdown)
	return dm
}

func (s *sumSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Next(ctx)
	return s.score(dm), err
}

func (s *sumSearcher) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Advance(ctx, id)
	return s.score(dm), err
}
