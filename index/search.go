package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// Hit is one search result (the domain type, see memex.Hit).
type Hit = memex.Hit

// Result is the answer to a Query.
type Result struct {
	Hits  []Hit  `json:"hits"`
	Total uint64 `json:"total"` // entries matching, before the limit (an estimate when phrases are checked)
	// Partial says the search ran out of its time bound (Options.Timeout):
	// hits may be missing, and some may lack a snippet.
	Partial bool `json:"partial,omitempty"`
	// Relaxed says no entry matched all words, so the hits match some.
	Relaxed bool `json:"relaxed,omitempty"`
	// Partly counts the hits at the end that match only some of the words:
	// when fewer than the limit match them all, the rest of the page is
	// filled with entries matching most of them, ranked after every entry
	// that matches all. Relaxed results count every hit here.
	Partly int           `json:"partly,omitempty"`
	Took   time.Duration `json:"took_ns"`
}

// Field weights of plain words: a match in the summary or the command says
// more about an entry than one somewhere in its output, and so does the
// definition of an identifier (see definitions).
const (
	boostSummary = 3.0
	boostInput   = 2.0
	boostPath    = 2.0
	boostContent = 1.0
	boostDef     = 3.0 // an identifier's definition weighs as much as a summary
	boostContext = 0.3 // the words before a message count for it, but far less than its own
)

// Snippet bounds.
const (
	snippetMax  = 200      // bytes of a snippet
	contentRead = 16 << 20 // bytes of content read for a snippet or phrase check
)

// Search runs q. A malformed query fails with an error wrapping
// memex.ErrInvalid. The search, snippets included, is bounded by
// Options.Timeout; past it the result is Partial rather than an error.
// Cancelling ctx fails the search with ctx's error.
func (ix *Index) Search(ctx context.Context, q Query) (Result, error) {
	start := time.Now()
	p, err := parse(q)
	if err != nil {
		return Result{}, err
	}
	if len(p.words) == 0 && len(p.phrases) == 0 && len(p.filters) == 0 && len(p.exits) == 0 &&
		p.before.IsZero() && p.after.IsZero() {
		return Result{}, fmt.Errorf("index: search: %w", memex.Errorf(memex.ErrInvalid, "empty query"))
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if limit > MaxLimit {
		limit = MaxLimit
	}

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return Result{}, fmt.Errorf("index: search: closed: %w", memex.ErrInvalid)
	}
	tctx, cancel := context.WithTimeout(ctx, ix.opts.Timeout)
	defer cancel()

	res, err := ix.run(tctx, p, limit)
	if err == nil && len(res.Hits) > 0 && len(p.scoring()) > 1 && len(p.phrases) == 0 && !res.Partial {
		err = ix.markPartly(tctx, p, &res)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("index: search: %w", ctx.Err())
		}
		return Result{}, err
	}
	res.Took = time.Since(start)
	return res, nil
}

// markPartly sets res.Relaxed when no hit holds every word of the query,
// and res.Partly to the number of hits at the end of the page that each
// lack one: the ranking weighs words by rarity, so an entry missing a
// common word may rank above one that has them all.
func (ix *Index) markPartly(ctx context.Context, p *parsed, res *Result) error {
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID.String()
	}
	var all []query.Query
	for _, w := range p.scoring() {
		all = append(all, wordQuery(w))
	}
	all = append(all, bleve.NewDocIDQuery(ids))
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(all...), len(ids), 0, false)
	req.Score = "none"
	sr, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			res.Partial = true
			return nil
		}
		return fmt.Errorf("index: search: %w", err)
	}
	full := make(map[string]bool, len(sr.Hits))
	for _, h := range sr.Hits {
		full[h.ID] = true
	}
	if len(full) == 0 {
		res.Relaxed, res.Partly = true, len(res.Hits)
		return nil
	}
	for i := len(ids) - 1; i >= 0 && !full[ids[i]]; i-- {
		res.Partly++
	}
	return nil
}

// run builds and runs the bleve query, then checks phrases and cuts
// snippets against the content. With phrases to check, candidates come in
// growing pages until limit hits pass or the candidates or the time run
// out: the index ranks by words, so the entries holding the phrase may lie
// deep among those holding its words.
func (ix *Index) run(ctx context.Context, p *parsed, limit int) (Result, error) {
	bq := p.build()
	c := checker{ix: ix, terms: p.snippetTerms(), check: len(p.phrases) > 0 && ix.opts.Content != nil}
	for _, ph := range p.phrases {
		c.phrases = append(c.phrases, newPhraseMatcher(ph))
	}
	res := Result{Hits: []Hit{}}
	var runs []string       // runs[i] is res.Hits[i]'s checked.run
	var lessons []*lessonOf // lessons[i] is res.Hits[i]'s checked.lesson
	var gone []memex.ID
	defer func() {
		if len(gone) > 0 {
			// Entries forgotten in the archive but still indexed (a crash
			// between the two deletes): drop them now. The answer does not
			// depend on this succeeding.
			b := ix.bi.NewBatch()
			for _, id := range gone {
				b.Delete(id.String())
			}
			_ = ix.bi.Batch(b)
		}
	}()
	from, size := 0, limit
	if c.check {
		// One search that brings enough candidates for most phrases
		// costs less than searching again for the next page. Candidates
		// that hold the phrase's pairs mostly hold the phrase: fewer do.
		size = max(limit*3+10, phrasePage)
		if p.paired() {
			size = limit*4 + 20
		}
	}
	for {
		var sr *bleve.SearchResult
		var err error
		if len(p.words) == 0 && len(p.phrases) == 0 {
			req := bleve.NewSearchRequestOptions(bq, size, from, false)
			req.SortBy([]string{"-_id"}) // filters only: newest first
			sr, err = ix.bi.SearchInContext(ctx, req)
		} else {
			sr, err = ix.ranked(ctx, bq, size, from)
		}
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
				res.Partial = true
				return res, nil
			}
			return Result{}, fmt.Errorf("index: search: %w", err)
		}
		res.Total = sr.Total
		// Check the page's candidates a few at a time, in parallel, and
		// take them in rank order until limit hits pass.
		hits := sr.Hits
		for len(hits) > 0 && len(res.Hits) < limit && !(c.check && res.Partial) {
			n := min(len(hits), max(limit-len(res.Hits), 2*runtime.GOMAXPROCS(0)))
			if !c.check {
				n = min(n, limit-len(res.Hits))
			}
			out := c.all(ctx, hits[:n])
			hits = hits[n:]
			for _, o := range out {
				if o.err != nil {
					return Result{}, o.err
				}
				switch {
				case len(res.Hits) == limit || (c.check && res.Partial):
					// an unchecked phrase hit is no hit
				case o.outcome == hitGone:
					gone = append(gone, o.hit.ID)
				case o.outcome == hitPartial:
					res.Partial = true
					if !c.check {
						res.Hits = append(res.Hits, o.hit)
						runs = append(runs, o.run)
						lessons = append(lessons, o.lesson)
					}
				case o.outcome == hitKeep:
					res.Hits = append(res.Hits, o.hit)
					runs = append(runs, o.run)
					lessons = append(lessons, o.lesson)
				}
			}
		}
		from += len(sr.Hits)
		if !c.check || len(res.Hits) == limit || res.Partial || len(sr.Hits) < size || uint64(from) >= sr.Total {
			break
		}
		size = min(size*4, 4000)
	}
	if c.check && !res.Partial && len(res.Hits) < limit {
		// Every candidate was checked: the count is exact.
		res.Total = uint64(len(res.Hits))
	}
	rankLessons(res.Hits, lessons, runs, len(p.words) > 0 && !asksForFailures(p))
	newestRunsFirst(res.Hits, runs)
	return res, nil
}

// ranked runs bq for size hits from from, by score and, among equal
// scores, newest first. bleve breaks ties by ID only by loading the ID of
// every entry that matches (its collector does so for each match when the
// sort names _id): about a third more CPU for a query of plain words.
// ranked asks bleve for the hits by score alone, with a margin, and orders
// equal scores by ID itself; only when equal scores reach the end of the
// margin, where bleve's choice among them is not the newest, does it ask
// again with bleve's sort.
func (ix *Index) ranked(ctx context.Context, bq query.Query, size, from int) (*bleve.SearchResult, error) {
	n := from + size + size/4 + 8
	req := bleve.NewSearchRequestOptions(bq, n, 0, false)
	sr, err := ix.bi.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	hits := sr.Hits
	if len(hits) == n && from+size > 0 && hits[n-1].Score == hits[from+size-1].Score {
		req := bleve.NewSearchRequestOptions(bq, size, from, false)
		req.SortBy([]string{"-_score", "-_id"})
		return ix.bi.SearchInContext(ctx, req)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID > hits[j].ID // IDs sort as they were made
	})
	sr.Hits = hits[min(from, len(hits)):min(from+size, len(hits))]
	return sr, nil
}

// newestRunsFirst reorders the hits that are runs of one command (same
// tool, same input, same outcome: failed or not) newest first, in the
// places the ranking gave them: a
// command asked about is most often wanted as it last ran, and BM25 ranks
// its runs by incidental differences of their outputs. The other hits keep
// their places. runs[i] names hits[i]'s command, "" for no tool run.
func newestRunsFirst(hits []Hit, runs []string) {
	var groups map[string][]int
	for i, r := range runs {
		if r == "" {
			continue
		}
		if groups == nil {
			groups = map[string][]int{}
		}
		groups[r] = append(groups[r], i)
	}
	for _, at := range groups {
		if len(at) < 2 {
			continue
		}
		g := make([]Hit, len(at))
		for k, i := range at {
			g[k] = hits[i]
		}
		slices.SortStableFunc(g, func(a, b Hit) int { return b.ID.Compare(a.ID) })
		for k, i := range at {
			hits[i] = g[k]
		}
	}
}

// paired reports whether every phrase of p has a pair term (see pairsOf).
func (p *parsed) paired() bool {
	for _, ph := range p.phrases {
		if len(phrasePairs(ph)) == 0 {
			return false
		}
	}
	return len(p.phrases) > 0
}

// phrasePage is the least number of candidates fetched at once for a
// search with a phrase to check.
const phrasePage = 400

// What became of a candidate.
type outcome int

const (
	hitKeep    outcome = iota // a hit
	hitDrop                   // the phrase is not in it
	hitGone                   // no longer in the archive
	hitPartial                // out of time: unchecked, no snippet
)

// checked is a candidate after checker.one.
type checked struct {
	hit     Hit
	run     string // the tool, command and outcome of a tool run, for newestRunsFirst
	lesson  *lessonOf
	outcome outcome
	err     error
}

// checker turns bleve hits into Hits: metadata from Options.Entry (none
// without it), phrase check and snippet from Options.Content.
type checker struct {
	ix      *Index
	terms   []string // what snippets show
	check   bool     // phrases to check
	phrases []phraseMatcher
}

// all checks candidates concurrently, at most one per CPU at a time, and
// returns them in order.
func (c *checker) all(ctx context.Context, dhs []*search.DocumentMatch) []checked {
	out := make([]checked, len(dhs))
	if len(dhs) == 1 {
		out[0] = c.one(ctx, dhs[0])
		return out
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(len(dhs), runtime.GOMAXPROCS(0)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = c.one(ctx, dhs[i])
			}
		}()
	}
	for i := range dhs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// one makes a Hit of a bleve hit. Past the deadline it returns the hit
// unchecked and without snippet, as partial.
func (c *checker) one(ctx context.Context, dh *search.DocumentMatch) checked {
	ix := c.ix
	id, err := memex.ParseID(dh.ID)
	if err != nil {
		return checked{outcome: hitDrop}
	}
	h := Hit{ID: id, Score: dh.Score, Created: id.Time()}
	late := func(err error) checked {
		if ctx.Err() != nil {
			return checked{hit: h, outcome: hitPartial}
		}
		return checked{err: err}
	}
	e := memex.Entry{ID: id, Created: id.Time()}
	if ix.opts.Entry != nil {
		if ctx.Err() != nil {
			return late(nil)
		}
		e, err = ix.opts.Entry(ctx, id)
		if errors.Is(err, memex.ErrNotFound) {
			return checked{hit: h, outcome: hitGone}
		}
		if err != nil {
			return late(fmt.Errorf("index: search: entry %s: %w", id, err))
		}
	}
	h.Summary, h.Tokens, h.Session, h.Project, h.Agent = e.DisplaySummary(), e.Tokens, e.Session, e.Project, e.Agent
	h.Kind, h.Tool, h.Exit, h.Created, h.Aliases = e.Kind, e.Tool, e.Exit, e.Created, e.Aliases
	lesson := lessonInfo(e)
	var run string
	if e.Kind == memex.KindTool && strings.TrimSpace(e.Input) != "" {
		run = e.Tool + "\x00" + strings.TrimSpace(e.Input)
		if e.Exit != nil && *e.Exit != 0 {
			run += "\x00failed"
		}
	}
	input := []byte(firstLine(e.Input))
	if ix.opts.Content == nil || (len(c.terms) == 0 && !c.check) {
		h.Snippet = snippetOf(input, c.terms)
		return checked{hit: h, run: run, lesson: lesson, outcome: hitKeep}
	}
	if ctx.Err() != nil {
		return late(nil)
	}
	buf := buffers.Get().(*buffer)
	defer buffers.Put(buf)
	content, err := ix.content(ctx, id, &buf.content)
	if errors.Is(err, memex.ErrNotFound) {
		return checked{hit: h, outcome: hitGone}
	}
	if err != nil {
		return late(fmt.Errorf("index: search: content of %s: %w", id, err))
	}
	if c.check {
		buf.lower = toLower(buf.lower[:0], content)
		if !matchesAll(c.phrases, [][]byte{buf.lower, []byte(strings.ToLower(e.Summary)),
			[]byte(strings.ToLower(e.AgentSummary)), []byte(strings.ToLower(e.Input))}) {
			return checked{hit: h, outcome: hitDrop}
		}
	}
	h.Snippet = snippetOf(content, c.terms)
	if h.Snippet == "" {
		h.Snippet = snippetOf(input, c.terms)
	}
	return checked{hit: h, run: run, lesson: lesson, outcome: hitKeep}
}

// buffer holds one candidate's content while it is checked; buffers are
// reused across candidates and searches (most contents are small, and
// reading each into a fresh, growing slice cost more than checking it).
type buffer struct {
	content, lower []byte
}

var buffers = sync.Pool{New: func() any { return new(buffer) }}

// maxPooled bounds the buffers kept for reuse.
const maxPooled = 1 << 20

// content reads at most contentRead bytes of an entry's content into
// *buf, which it may grow (and replace when it grows past maxPooled).
func (ix *Index) content(ctx context.Context, id memex.ID, buf *[]byte) ([]byte, error) {
	rc, err := ix.opts.Content(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b := bytes.NewBuffer((*buf)[:0])
	_, err = b.ReadFrom(io.LimitReader(rc, contentRead))
	if b.Cap() <= maxPooled {
		*buf = b.Bytes()
	} else {
		*buf = nil
	}
	return b.Bytes(), err
}

// toLower appends the lower-cased src to dst: ASCII by table, anything
// else as bytes.ToLower does.
func toLower(dst, src []byte) []byte {
	for _, c := range src {
		if c >= utf8.RuneSelf {
			return append(dst[:0], bytes.ToLower(src)...)
		}
	}
	return lowerASCII(dst, src)
}

// matchesAll reports whether every phrase is in one of hay (lower-cased
// texts).
func matchesAll(phrases []phraseMatcher, hay [][]byte) bool {
	for _, ph := range phrases {
		found := false
		for _, h := range hay {
			if ph.match(h) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// phraseMatcher finds one quoted phrase in lower-cased text: its pieces
// (each word's parts, or the word) in order, separated by anything but
// letters and digits, so that "parse config" also matches parseConfig and
// parse_config (lower-cased: parseconfig, parse_config).
type phraseMatcher struct {
	pieces  [][]byte // in phrase order
	literal [][]byte // the same, longest first
}

func newPhraseMatcher(ph qphrase) phraseMatcher {
	var m phraseMatcher
	for _, w := range ph.words {
		parts := w.w.parts
		if len(parts) == 0 {
			parts = []string{w.w.whole}
		}
		for _, pc := range parts {
			m.pieces = append(m.pieces, []byte(pc))
		}
	}
	m.literal = slices.Clone(m.pieces)
	sort.SliceStable(m.literal, func(i, j int) bool { return len(m.literal[i]) > len(m.literal[j]) })
	return m
}

// match reports whether the phrase is in text. Most candidates lack one
// of its pieces altogether: looking for each piece (a vectorised byte
// search) rejects them before the pieces' order is checked.
func (m phraseMatcher) match(text []byte) bool {
	if len(m.pieces) == 0 {
		return true
	}
	for _, l := range m.literal {
		if !bytes.Contains(text, l) {
			return false
		}
	}
	first := m.pieces[0]
	for off := 0; off < len(text); {
		i := bytes.Index(text[off:], first)
		if i < 0 {
			return false
		}
		if piecesAt(text[off+i:], m.pieces) {
			return true
		}
		off += i + 1
	}
	return false
}

// piecesAt reports whether text starts with pieces in order, each
// separated from the next by a run (maybe empty) of runes that are neither
// letters nor digits; a rune that is not valid UTF-8 separates.
func piecesAt(text []byte, pieces [][]byte) bool {
	if !bytes.HasPrefix(text, pieces[0]) {
		return false
	}
	rest := text[len(pieces[0]):]
	if len(pieces) == 1 {
		return true
	}
	for {
		if piecesAt(rest, pieces[1:]) {
			return true
		}
		r, n := utf8.DecodeRune(rest)
		if n == 0 || unicode.IsLetter(r) || unicode.IsNumber(r) {
			return false
		}
		rest = rest[n:]
	}
}

// build makes the bleve query: the words, scored by queryOf; every
// phrase's words; every filter.
func (p *parsed) build() query.Query {
	var must, filters []query.Query
	if ws := p.scoring(); len(ws) > 0 {
		must = append(must, queryOf(ws))
	}
	for _, ph := range p.phrases {
		must = append(must, phraseQuery(ph))
		// Every pair of the phrase's pieces, from the index: the
		// candidates hold the phrase, but for the order of three pieces
		// or more, which the content confirms.
		for _, t := range phrasePairs(ph) {
			filters = append(filters, termQuery(fPair, t, 1))
		}
	}
	for f, vs := range p.filters {
		var alts []query.Query
		for _, v := range vs {
			alts = append(alts, termQuery(fKey, keyTerm(f, v), 1))
		}
		filters = append(filters, orOf(alts))
	}
	if len(p.exits) > 0 {
		var alts []query.Query
		for _, x := range p.exits {
			alts = append(alts, termQuery(fKey, keyTerm(fExit, strconv.Itoa(x)), 1))
		}
		filters = append(filters, orOf(alts))
	}
	if !p.before.IsZero() {
		filters = append(filters, idBound(p.before, true))
	}
	if !p.after.IsZero() {
		filters = append(filters, idBound(p.after, false))
	}
	if len(must) == 0 {
		must = append(must, bleve.NewMatchAllQuery())
	}
	if len(must) == 1 && len(filters) == 0 {
		// No filters: a conjunction of one would only pass the scores
		// on (adding each to 0, which leaves it as it is) at a cost per
		// match.
		if sq, ok := must[0].(*sumQuery); ok {
			// Nothing narrows the words' matches: walking their large
			// conjunctions ahead reads no posting the search would skip.
			sq.ahead = true
		}
		return must[0]
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(must...)
	if len(filters) > 0 {
		// Filters must hold but do not score.
		fq := bleve.NewConjunctionQuery(filters...)
		fq.SetBoost(0)
		bq.AddMust(fq)
	}
	return bq
}

// queryOf matches the entries holding any of the words and ranks them by
// BM25: each word scores the sum of its fields' scores (weighted, see
// textFieldsOf), and an entry's score is the sum of its words' times the
// share of the query's IDF that it holds. Every word counts, but a rare
// word counts for more than a common one, and an entry holding every word
// is not put above all others whatever its scores.
func queryOf(ws []qword) query.Query {
	q := &sumQuery{min: 1}
	for _, w := range ws {
		q.clauses = append(q.clauses, wordQuery(w))
		q.df = append(q.df, dfTerms(w))
	}
	return q
}

// dfTerms are the terms whose document frequency stands for a word's: its
// whole form in each field it may be in.
func dfTerms(w qword) []fieldTerm {
	var ts []fieldTerm
	for _, f := range textFieldsOf {
		if (w.field == "" || w.field == f.name) && len(w.w.whole) <= maxTermBytes {
			ts = append(ts, fieldTerm{f.name, analyzeTerm(f.stem, w.w.whole)})
		}
	}
	return ts
}

// wordQuery matches one query word in its field (or any text field): the
// whole word as a term, or all of its parts. The fields' scores add up.
func wordQuery(w qword) query.Query {
	var alts []query.Query
	for _, f := range textFieldsOf {
		if w.field != "" && w.field != f.name {
			continue
		}
		alts = append(alts, fieldWordQuery(w.w, f.name, f.stem, f.boost)...)
	}
	if w.field == "" && (strings.ContainsAny(w.w.whole, "/") || len(w.w.extra) > 0 || strings.Contains(w.w.whole, ".")) {
		// The exact path keyword field holds paths as written.
		if pth, ok := pathOf(w.w.whole); ok && pathTerm(pth) != "" {
			pth = pathTerm(pth)
			alts = append(alts, termQuery(fKey, keyTerm(fPath, pth), boostPath))
		}
	}
	if w.field == "" && isIdent(w.w.whole) {
		// Where the identifier is defined says the most about it.
		alts = append(alts, termQuery(fDef, w.w.whole, boostDef))
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return &sumQuery{clauses: alts, min: 1}
}

// textFieldsOf are the text fields a word is looked for in, with their
// analysis and weight.
var textFieldsOf = []struct {
	name  string
	stem  bool
	boost float64
}{
	{fSummary, true, boostSummary},
	{fInput, false, boostInput},
	{fContent, true, boostContent},
	{fContext, true, boostContext},
}

// fieldWordQuery are the ways field holds w: the whole word as a term, or
// all of its parts.
func fieldWordQuery(w word, field string, stem bool, boost float64) []query.Query {
	whole := termQuery(field, analyzeTerm(stem, w.whole), boost)
	if len(w.parts) == 0 {
		return []query.Query{whole}
	}
	var alts []query.Query
	if len(w.whole) <= maxTermBytes { // longer terms are not indexed
		alts = append(alts, whole)
	}
	// All the parts together are one word: each scores its share of
	// the word's weight, so that `html` and `generator` apart do not
	// outweigh `generate_html` itself. A part that recurs (`loop` in
	// loop/loop/…/loop, or `tests` and `test` stemmed alike) is one term
	// with the shares of all its places: the same score, where a term
	// query per place walked the same postings once per place.
	var terms []string
	shares := map[string]int{}
	for _, pc := range w.parts {
		t := analyzeTerm(stem, pc)
		if shares[t] == 0 {
			terms = append(terms, t)
		}
		shares[t]++
	}
	var parts []query.Query
	for _, t := range terms {
		parts = append(parts, termQuery(field, t, boost*float64(shares[t])/float64(len(w.parts))))
	}
	return append(alts, andOf(parts))
}

// phraseQuery finds the candidates for a phrase: entries with all its
// words in one text field (a phrase does not span fields), which the
// content then confirms. Asking for the words field by field, rather than
// each word in any field, leaves fewer candidates to rank and check.
func phraseQuery(ph qphrase) query.Query {
	var alts []query.Query
	for _, f := range textFieldsOf {
		if f.name == fContext {
			continue // a phrase is checked against the entry's own text
		}
		if len(ph.words) > 0 && ph.words[0].field != "" && ph.words[0].field != f.name {
			continue
		}
		var all []query.Query
		for _, w := range ph.words {
			all = append(all, orOf(fieldWordQuery(w.w, f.name, f.stem, f.boost)))
		}
		alts = append(alts, andOf(all))
	}
	return orOf(alts)
}

func termQuery(field, term string, boost float64) query.Query {
	tq := bleve.NewTermQuery(term)
	tq.SetField(field)
	tq.SetBoost(boost)
	return tq
}

func orOf(qs []query.Query) query.Query {
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewDisjunctionQuery(qs...)
}

func andOf(qs []query.Query) query.Query {
	if len(qs) == 1 {
		return qs[0]
	}
	return bleve.NewConjunctionQuery(qs...)
}

// idBound restricts to IDs before (or after) id, exactly. An ID's first
// characters name ever shorter spans of time (timeLevels), each kept as a
// term: the entries before id are those of the earlier 12-day spans, of
// the earlier 9-hour spans within id's 12 days, and so on down to the
// one-second span, and within id's own second those whose ID sorts before
// id (bleve's _id term). That is at most a few dozen terms per level,
// where a range over the IDs themselves would be one term per entry.
func idBound(id memex.ID, before bool) query.Query {
	s := id.String()
	t, f := true, false
	var alts []query.Query
	span := func(field, lo, hi string) {
		var rq *query.TermRangeQuery
		if before {
			rq = bleve.NewTermRangeInclusiveQuery(lo, hi, &t, &f)
		} else {
			rq = bleve.NewTermRangeInclusiveQuery(hi, lo+"\xff", &f, &t)
		}
		rq.SetField(field)
		alts = append(alts, rq)
	}
	prev := 0
	for _, n := range timeLevels {
		// The level-n terms inside id's level-prev span, up to id's own.
		level := timeTerm(s, n)
		span(fKey, level[:len(level)-n]+s[:prev], level)
		prev = n
	}
	span("_id", s[:prev], s) // bleve's _id term: the ID itself
	return bleve.NewDisjunctionQuery(alts...)
}

// snippetTerms are the lower-cased strings a snippet should show.
func (p *parsed) snippetTerms() []string {
	var ts []string
	seen := map[string]bool{}
	add := func(w word) {
		for _, t := range append([]string{w.whole}, w.parts...) {
			if len(t) >= 2 && !seen[t] {
				seen[t] = true
				ts = append(ts, t)
			}
		}
	}
	for _, w := range p.words {
		add(w.w)
	}
	for _, ph := range p.phrases {
		for _, w := range ph.words {
			add(w.w)
		}
	}
	return ts
}

// snippetOf returns a short exact fragment of content: from the line that
// holds the most distinct terms (whole words count double), up to
// snippetMax bytes around the first match in it. "" when no line matches.
func snippetOf(content []byte, terms []string) string {
	if len(terms) == 0 || len(content) == 0 {
		return ""
	}
	bestScore, bestLine, bestAt := 0, []byte(nil), 0
	var low []byte
	for len(content) > 0 {
		line := content
		if k := bytes.IndexByte(content, '\n'); k >= 0 {
			line, content = content[:k], content[k+1:]
		} else {
			content = nil
		}
		if len(line) == 0 {
			continue
		}
		low = lowerASCII(low[:0], line)
		score, at := 0, -1
		for i, t := range terms {
			if k := bytes.Index(low, []byte(t)); k >= 0 {
				score++
				if i == 0 || len(t) > 3 {
					score++
				}
				if at < 0 || k < at {
					at = k
				}
			}
		}
		if score > bestScore {
			bestScore, bestLine, bestAt = score, line, at
		}
	}
	if bestLine == nil {
		return ""
	}
	// A snippet shows the line as a terminal showed it: no colour codes
	// or control characters (the content itself stays exact).
	if clean := summarize.Clean(string(bestLine)); len(clean) != len(bestLine) {
		bestLine, bestAt = []byte(clean), 0
		low = lowerASCII(low[:0], bestLine)
		for _, t := range terms {
			if k := bytes.Index(low, []byte(t)); k >= 0 && (bestAt == 0 || k < bestAt) {
				bestAt = k
			}
		}
	}
	return cutAround(bestLine, bestAt)
}

// cutAround returns up to snippetMax bytes of line around offset at, at
// rune boundaries, trimmed of surrounding space. A cut falls between words
// where the window holds a space to cut at (before at, after it): a word
// cut in two, an ID above all, reads as another (the reader copies IDs
// from snippets).
func cutAround(line []byte, at int) string {
	if len(line) > snippetMax {
		from := at - snippetMax/4
		if from < 0 {
			from = 0
		}
		to := from + snippetMax
		if to > len(line) {
			to = len(line)
			from = to - snippetMax
		}
		if from > 0 && !isSpaceASCII(line[from-1]) {
			if k := bytes.IndexAny(line[from:max(at, from)], " \t"); k >= 0 {
				from += k + 1
			}
		}
		if to < len(line) && !isSpaceASCII(line[to]) {
			if k := bytes.LastIndexAny(line[max(at, from):to], " \t"); k > 0 {
				to = max(at, from) + k
			}
		}
		for from > 0 && !isRuneStart(line[from]) {
			from++
		}
		for to < len(line) && !isRuneStart(line[to]) {
			to--
		}
		line = line[from:to]
	}
	return string(bytes.TrimSpace(line))
}

func lowerASCII(dst, src []byte) []byte {
	for _, c := range src {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
