package index

import (
	"context"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	bindex "github.com/blevesearch/bleve_index_api"
)

// prefetchAt is the count (the sum of its clauses' postings) from which a
// conjunction among a sumQuery's clauses is walked on a goroutine of its
// own: the parts of a path (`db`, `models`, `query`, `py`) in each text
// field, each one a walk of tens of thousands of postings, go on side by
// side with one another and with the rest of the search. A variable for
// the tests.
var prefetchAt uint64 = 20000

// prefetchBatch is how many matches a prefetching walk hands over at a time.
const prefetchBatch = 256

// prefetched are matches of a searcher walked ahead: their internal IDs,
// one after another, and their scores.
type prefetched struct {
	ids    []byte
	ends   []int // ids[ends[k-1]:ends[k]] is match k's ID
	scores []float64
	err    error
}

// prefetcher walks a searcher with Next on a goroutine, ahead of its
// reader, and hands over each match's internal ID and score: the same
// matches in the same order with the same scores as the searcher itself.
// It serves Next and Advance (by passing matches over), and only IDs and
// scores: not for term vectors or explanations.
type prefetcher struct {
	s    search.Searcher
	out  chan *prefetched
	back chan *prefetched // batches read, for reuse
	done chan struct{}
	quit chan struct{} // closed by the goroutine when it returns

	cur     *prefetched
	at      int
	started bool
	ended   bool
	closed  bool
}

var _ search.Searcher = (*prefetcher)(nil)

// prefetchers counts the prefetchers made, for the tests.
var prefetchers atomic.Int64

func newPrefetcher(s search.Searcher) *prefetcher {
	prefetchers.Add(1)
	return &prefetcher{s: s, out: make(chan *prefetched, 4), back: make(chan *prefetched, 4),
		done: make(chan struct{}), quit: make(chan struct{})}
}

// walk runs on its own goroutine, with a pool of its own.
func (p *prefetcher) walk() {
	defer close(p.quit)
	defer close(p.out)
	ctx := &search.SearchContext{DocumentMatchPool: search.NewDocumentMatchPool(p.s.DocumentMatchPoolSize()+1, 0)}
	for {
		var b *prefetched
		select {
		case b = <-p.back:
			b.ids, b.ends, b.scores = b.ids[:0], b.ends[:0], b.scores[:0]
		default:
			b = &prefetched{ids: make([]byte, 0, 8*prefetchBatch), ends: make([]int, 0, prefetchBatch),
				scores: make([]float64, 0, prefetchBatch)}
		}
		last := false
		for len(b.scores) < prefetchBatch {
			d, err := p.s.Next(ctx)
			if err != nil {
				b.err, last = err, true
				break
			}
			if d == nil {
				last = true
				break
			}
			b.ids = append(b.ids, d.IndexInternalID...)
			b.ends = append(b.ends, len(b.ids))
			b.scores = append(b.scores, d.Score)
			ctx.DocumentMatchPool.Put(d)
		}
		select {
		case p.out <- b:
		case <-p.done:
			return
		}
		if last {
			return
		}
	}
}

func (p *prefetcher) id(k int) bindex.IndexInternalID {
	lo := 0
	if k > 0 {
		lo = p.cur.ends[k-1]
	}
	return p.cur.ids[lo:p.cur.ends[k]]
}

// next is the next match, from the pool of ctx.
func (p *prefetcher) next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	if !p.started {
		p.started = true
		go p.walk()
	}
	for p.cur == nil || p.at >= len(p.cur.scores) {
		if p.ended {
			return nil, nil
		}
		if p.cur != nil {
			if p.cur.err != nil {
				p.ended = true
				return nil, p.cur.err
			}
			select {
			case p.back <- p.cur:
			default:
			}
		}
		b, ok := <-p.out
		if !ok {
			p.cur, p.ended = nil, true
			return nil, nil
		}
		p.cur, p.at = b, 0
		if len(b.scores) == 0 && b.err != nil {
			p.ended = true
			return nil, b.err
		}
	}
	d := ctx.DocumentMatchPool.Get()
	d.IndexInternalID = append(d.IndexInternalID[:0], p.id(p.at)...)
	d.Score = p.cur.scores[p.at]
	p.at++
	return d, nil
}

func (p *prefetcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	return p.next(ctx)
}

func (p *prefetcher) Advance(ctx *search.SearchContext, id bindex.IndexInternalID) (*search.DocumentMatch, error) {
	for {
		d, err := p.next(ctx)
		if d == nil || err != nil {
			return d, err
		}
		if d.IndexInternalID.Compare(id) >= 0 {
			return d, nil
		}
		ctx.DocumentMatchPool.Put(d)
	}
}

// Close stops the walk (after the batch it is reading, if any) and closes
// the searcher; a second Close does nothing.
func (p *prefetcher) Close() error {
	if p.closed {
		return nil
	}
	p.closed = true
	if p.started {
		close(p.done)
		<-p.quit
	}
	return p.s.Close()
}

func (p *prefetcher) Weight() float64            { return p.s.Weight() }
func (p *prefetcher) SetQueryNorm(qnorm float64) { p.s.SetQueryNorm(qnorm) }
func (p *prefetcher) Count() uint64              { return p.s.Count() }
func (p *prefetcher) Min() int                   { return p.s.Min() }
func (p *prefetcher) Size() int                  { return p.s.Size() }
func (p *prefetcher) DocumentMatchPoolSize() int { return 1 }

// prefetching wraps the conjunctions among ss that are worth walking
// ahead, unless the search asks for more of a match than its ID and score,
// or a filter narrows the matches (ctx holds no aheadKey): a walk ahead
// reads every match, where the search's own walk would skip to the
// entries the filter leaves in.
func prefetching(ctx context.Context, ss []search.Searcher, options search.SearcherOptions) {
	if options.IncludeTermVectors || options.Explain || options.Score == "none" || ctx.Value(aheadKey{}) == nil {
		return
	}
	for k, s := range ss {
		if _, ok := s.(*searcher.ConjunctionSearcher); ok && s.Count() >= prefetchAt {
			ss[k] = newPrefetcher(s)
		}
	}
}
