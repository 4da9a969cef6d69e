package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/memex-archive/memex"
)

// randomCorpus is a random corpus: words of a Zipf-distributed vocabulary
// (a few common, many rare), some compound (snake_case, camelCase, paths),
// in fields of random lengths, with some entries repeated exactly so that
// scores tie.
func randomCorpus(r *rand.Rand, n int) ([]entry, []string) {
	vocab := make([]string, 300)
	for i := range vocab {
		var b strings.Builder
		for range 3 + r.IntN(6) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
		vocab[i] = b.String()
		switch r.IntN(12) {
		case 0:
			vocab[i] += "_" + vocab[r.IntN(i+1)]
		case 1:
			vocab[i] += strings.ToUpper(vocab[r.IntN(i+1)][:1]) + vocab[r.IntN(i+1)][1:]
		case 2:
			vocab[i] = vocab[r.IntN(i+1)] + "/" + vocab[i] + ".go"
		}
	}
	z := rand.NewZipf(r, 1.1, 3, uint64(len(vocab)-1))
	words := func(max int) string {
		var ws []string
		for range r.IntN(max + 1) {
			ws = append(ws, vocab[z.Uint64()])
		}
		return strings.Join(ws, " ")
	}
	tools := []string{"Bash", "Read", "Edit"}
	var es []entry
	for i := range n {
		if i > 0 && r.IntN(8) == 0 {
			e := es[r.IntN(len(es))]
			e.name = fmt.Sprintf("e%d", i)
			es = append(es, e)
			continue
		}
		long := 30
		if r.IntN(5) == 0 {
			long = 400
		}
		es = append(es, entry{name: fmt.Sprintf("e%d", i), project: "p", session: "s", tool: tools[r.IntN(len(tools))],
			kind: memex.KindTool, summary: words(6), input: words(4), content: words(long)})
	}
	return es, vocab
}

// randomQueries draws queries of 1 to 5 words, mostly from the vocabulary
// (common and rare alike), sometimes one the corpus lacks, some with a
// filter or a phrase (so that the words' searcher is advanced, not only
// walked).
func randomQueries(r *rand.Rand, vocab []string, n int) []string {
	var qs []string
	for range n {
		var ws []string
		for range 1 + r.IntN(5) {
			switch {
			case r.IntN(10) == 0:
				ws = append(ws, "zzqx")
			case r.IntN(2) == 0:
				ws = append(ws, vocab[r.IntN(10)]) // common
			default:
				ws = append(ws, vocab[r.IntN(len(vocab))])
			}
		}
		switch r.IntN(6) {
		case 0:
			ws = append(ws, "tool:Bash")
		case 1:
			ws = append(ws, `"`+vocab[r.IntN(10)]+" "+vocab[r.IntN(10)]+`"`)
		}
		qs = append(qs, strings.Join(ws, " "))
	}
	return qs
}

// TestSumSearcherExact compares sumSearcher with the searcher it replaced
// (bleve's disjunction asked for each match's clause scores, added in
// clause order) on random corpora and queries: the same hits in the same
// order with the same scores to the bit, and the same count, for several
// limits.
func TestSumSearcherExact(t *testing.T) {
	sumSearcherExact(t)
}

// TestPrefetchExact is TestSumSearcherExact with every conjunction among
// a sumQuery's clauses walked ahead on a goroutine of its own (prefetcher):
// the same hits, order, scores and counts as bleve's disjunction walking
// them itself.
func TestPrefetchExact(t *testing.T) {
	old := prefetchAt
	prefetchAt = 0
	defer func() { prefetchAt = old }()
	sumSearcherExact(t)
}

// TestPrefetchClose closes prefetching searchers before, during and after
// their walk: Close waits for the walk to stop, whatever was read.
func TestPrefetchClose(t *testing.T) {
	old := prefetchAt
	prefetchAt = 0
	defer func() { prefetchAt = old }()
	f := newFixture(t, nil)
	var es []entry
	for i := range 3 * prefetchBatch {
		es = append(es, entry{name: fmt.Sprintf("e%d", i), project: "p", session: "s", kind: memex.KindTool,
			tool: "Read", summary: "read db/models/query.py", input: "db/models/query.py"})
	}
	f.add(t, es...)
	p, err := parse(Query{Text: "models/query.py"})
	if err != nil {
		t.Fatal(err)
	}
	adv, err := f.ix.bi.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, reads := range []int{0, 1, prefetchBatch + 1, 10 * prefetchBatch} {
		s, err := p.build().Searcher(t.Context(), r, f.ix.bi.Mapping(), search.SearcherOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !hasPrefetcher(s) {
			t.Fatalf("no prefetcher in %#v", s)
		}
		ctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(s.DocumentMatchPoolSize(), 0)}
		n := 0
		for range reads {
			d, err := s.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if d == nil {
				break
			}
			n++
			ctx.DocumentMatchPool.Put(d)
		}
		if want := min(reads, len(es)); n != want {
			t.Errorf("%d reads: %d matches, want %d", reads, n, want)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil { // a second time
			t.Fatal(err)
		}
	}
}

// TestPrefetchOnlyUnfiltered: a search that a filter narrows walks its
// conjunctions itself, skipping to the entries the filter leaves in; a
// walk ahead would read every match.
func TestPrefetchOnlyUnfiltered(t *testing.T) {
	old := prefetchAt
	prefetchAt = 0
	defer func() { prefetchAt = old }()
	f := newFixture(t, nil)
	f.add(t, entry{name: "e", project: "p", session: "s", kind: memex.KindTool,
		tool: "Read", summary: "read db/models/query.py", input: "db/models/query.py"})
	for _, c := range []struct {
		q    Query
		want bool
	}{
		{Query{Text: "models/query.py"}, true},
		{Query{Text: "models/query.py", Project: "p"}, false},
		{Query{Text: "models/query.py kind:tool"}, false},
		{Query{Text: "models/query.py", Session: "s"}, false},
	} {
		before := prefetchers.Load()
		res, err := f.ix.Search(t.Context(), c.q)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 {
			t.Fatalf("%+v: %d hits, want 1", c.q, len(res.Hits))
		}
		if got := prefetchers.Load() > before; got != c.want {
			t.Errorf("%+v: prefetching %v, want %v", c.q, got, c.want)
		}
	}
}

func hasPrefetcher(s search.Searcher) bool {
	switch s := s.(type) {
	case *prefetcher:
		return true
	case *sumSearcher:
		for _, c := range s.ss {
			if hasPrefetcher(c) {
				return true
			}
		}
	}
	return false
}

func sumSearcherExact(t *testing.T) {
	runs := 0
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 7))
		f := newFixture(t, nil)
		es, vocab := randomCorpus(r, 300+r.IntN(700))
		f.add(t, es...)
		for _, text := range randomQueries(r, vocab, 60) {
			p, err := parse(Query{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			if len(p.scoring()) == 0 {
				continue
			}
			bq := p.build()
			ref := refOf(bq)
			if _, ok := ref.(*query.BooleanQuery); !ok {
				// As build made it before: the words a boolean's one must.
				b := bleve.NewBooleanQuery()
				b.AddMust(ref)
				ref = b
			}
			for _, limit := range []int{1, 3, 10, 40, MaxLimit} {
				want, err := f.ix.ranked(t.Context(), ref, limit, 0)
				if err != nil {
					t.Fatal(err)
				}
				got, err := f.ix.ranked(t.Context(), bq, limit, 0)
				if err != nil {
					t.Fatal(err)
				}
				runs++
				where := fmt.Sprintf("seed %d, %q, limit %d", seed, text, limit)
				if got.Total != want.Total {
					t.Errorf("%s: total %d, want %d", where, got.Total, want.Total)
				}
				if len(got.Hits) != len(want.Hits) {
					t.Errorf("%s: %d hits, want %d", where, len(got.Hits), len(want.Hits))
					continue
				}
				for i := range got.Hits {
					if got.Hits[i].ID != want.Hits[i].ID || got.Hits[i].Score != want.Hits[i].Score {
						t.Errorf("%s: hit %d is %s (%v), want %s (%v)", where, i,
							got.Hits[i].ID, got.Hits[i].Score, want.Hits[i].ID, want.Hits[i].Score)
						break
					}
				}
			}
		}
	}
	if runs < 1000 {
		t.Errorf("only %d searches compared", runs)
	}
}

// refOf is q with every sumQuery run by refSum.
func refOf(q query.Query) query.Query {
	switch q := q.(type) {
	case *sumQuery:
		c := *q
		c.clauses = make([]query.Query, len(q.clauses))
		for i, cl := range q.clauses {
			c.clauses[i] = refOf(cl)
		}
		return &refSum{c}
	case *query.BooleanQuery:
		c := *q
		if q.Must != nil {
			c.Must = refOf(q.Must)
		}
		return &c
	case *query.ConjunctionQuery:
		c := *q
		c.Conjuncts = make([]query.Query, len(q.Conjuncts))
		for i, cl := range q.Conjuncts {
			c.Conjuncts[i] = refOf(cl)
		}
		return &c
	case *query.DisjunctionQuery:
		c := *q
		c.Disjuncts = make([]query.Query, len(q.Disjuncts))
		for i, cl := range q.Disjuncts {
			c.Disjuncts[i] = refOf(cl)
		}
		return &c
	}
	return q
}

// refSum is a sumQuery run as before sumSearcher: bleve's disjunction
// hands each match's clause scores over in a map, added here in clause
// order.
type refSum struct{ sumQuery }

func (q *refSum) Searcher(ctx context.Context, i bindex.IndexReader, m mapping.IndexMapping,
	options search.SearcherOptions) (search.Searcher, error) {
	ss, weights, total, err := q.clauseSearchers(ctx, i, m, options)
	if err != nil {
		return nil, err
	}
	if len(ss) == 0 {
		return searcher.NewMatchNoneSearcher(i)
	}
	bctx := context.WithValue(ctx, search.IncludeScoreBreakdownKey, true)
	ds, err := searcher.NewDisjunctionSearcher(bctx, i, ss, float64(q.min), options)
	if err != nil {
		return nil, err
	}
	return &refSumSearcher{Searcher: ds, weights: weights, total: total, n: len(ss)}, nil
}

type refSumSearcher struct {
	search.Searcher
	weights []float64
	total   float64
	n       int
}

func (s *refSumSearcher) score(dm *search.DocumentMatch) *search.DocumentMatch {
	if dm == nil {
		return nil
	}
	sum, got := 0.0, 0.0
	for k := range s.n {
		v, ok := dm.ScoreBreakdown[k]
		if !ok {
			continue
		}
		sum += v
		if s.weights != nil {
			got += s.weights[k]
		}
	}
	if s.weights != nil && s.total > 0 {
		sum *= got / s.total
	}
	dm.Score = sum
	clear(dm.ScoreBreakdown)
	return dm
}

func (s *refSumSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Next(ctx)
	return s.score(dm), err
}

func (s *refSumSearcher) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	dm, err := s.Searcher.Advance(ctx, id)
	return s.score(dm), err
}
