package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/summarize"
)

// Strategies, in report order.
const (
	Truncate   = "truncate"   // the most recent raw transcript that fits
	Summary    = "summary"    // the IndexedSummary alone
	RAG        = "rag"        // search hits' raw content, packed in rank order
	Memex      = "memex"      // IndexedSummary, then search + deref
	MemexNoIdx = "memex-pick" // IndexedSummary, then deref of entries picked from its lines
)

// Strategies lists every strategy Budget runs.
var Strategies = []string{Truncate, Summary, RAG, Memex, MemexNoIdx}

// DefaultBudgets are the budgets of a run that names none.
var DefaultBudgets = []int{1000, 2000, 4000, 8000}

// SummaryShare is the least part of a memex budget set aside for the
// IndexedSummary before the derefs: none. The summary takes whatever the
// derefs leave; set aside first, a tenth of 1,000 tokens held the summary's
// header and a line or two, and cost the hits that rag's raw packing made
// (docs/eval.md).
const SummaryShare = 0.0

// searchHits is how many search hits rag and memex consider.
const searchHits = 10

// ErrOverBudget marks a strategy that assembled a context larger than its
// budget: the run is invalid.
var ErrOverBudget = errors.New("eval: context over budget")

// Env is what a budget run reads: the archive and its (caught-up) index.
type Env struct {
	Store *archive.Store
	Index *index.Index
}

// BudgetOptions configure Budget. Zero Budgets means DefaultBudgets.
type BudgetOptions struct {
	Budgets []int
	// SummaryShare sets aside a least share of memex's budget for the
	// IndexedSummary before the derefs (zero: none, the default), for
	// measuring how the result depends on it.
	SummaryShare float64
	Progress     func(done, total int) // called after every probe; may be nil
}

// Outcome is one probe under one strategy and budget.
type Outcome struct {
	Probe    string        `json:"probe"`
	Strategy string        `json:"strategy"`
	Budget   int           `json:"budget"`
	Hit      bool          `json:"hit"`
	Tokens   int           `json:"tokens"`
	Derefs   int           `json:"derefs"`
	Latency  time.Duration `json:"latency_ns"`
	// Distance of the evidence before the probe's point.
	StepsBack  int `json:"steps_back"`
	TokensBack int `json:"tokens_back"`
}

// probeCtx is a probe resolved against its session.
type probeCtx struct {
	p          Probe
	steps      []step
	at         int
	atID       memex.ID
	stepsBack  int
	tokensBack int
	// hits is the search for the probe's query, run once and shared by
	// rag and memex at every budget (a search bounded in time could
	// otherwise give them different pages on a loaded machine); took is
	// its time, counted in each one's latency.
	hits []index.Hit
	took time.Duration
}

// resolve finds the probe's point and its evidence. It fails with
// memex.ErrInvalid when the answer does not occur before the point.
func resolve(ctx context.Context, s *archive.Store, p Probe, steps []step) (*probeCtx, error) {
	at := -1
	if n, err := strconv.Atoi(p.At); err == nil {
		at = n
	} else if id, err := s.Resolve(ctx, p.At, p.Project); err == nil {
		for i, st := range steps {
			if st.e.ID == id {
				at = i
			}
		}
	}
	if at <= 0 || at >= len(steps) {
		return nil, fmt.Errorf("eval: probe %s: at %q is not a step after the first of session %s: %w", p.ID, p.At, p.Session, memex.ErrInvalid)
	}
	pc := &probeCtx{p: p, steps: steps, at: at, atID: steps[at].e.ID}
	for k := at - 1; k >= 0; k-- {
		pos := strings.LastIndex(steps[k].text, p.Answer)
		if pos < 0 {
			continue
		}
		pc.stepsBack = at - k
		pc.tokensBack = summarize.CountString(steps[k].text[pos+len(p.Answer):])
		for _, st := range steps[k+1 : at] {
			pc.tokensBack += summarize.CountString(st.text)
		}
		return pc, nil
	}
	return nil, fmt.Errorf("eval: probe %s: the answer does not occur before its point: %w", p.ID, memex.ErrInvalid)
}

// Budget runs every probe under every strategy and budget. Probes that do
// not resolve (the answer absent before the point) are returned as
// skipped, not run. A context over its budget stops the run with an error
// wrapping ErrOverBudget.
func Budget(ctx context.Context, env Env, probes []Probe, opts BudgetOptions) (outs []Outcome, skipped []string, err error) {
	budgets := opts.Budgets
	if len(budgets) == 0 {
		budgets = DefaultBudgets
	}
	for _, b := range budgets {
		if b <= 0 {
			return nil, nil, fmt.Errorf("eval: budget %d: want a positive number: %w", b, memex.ErrInvalid)
		}
	}
	if opts.SummaryShare < 0 || opts.SummaryShare >= 1 {
		opts.SummaryShare = SummaryShare
	}
	r := deref.New(env.Store)
	sessions := map[string][]step{}
	for i, p := range probes {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		steps, ok := sessions[p.Session]
		if !ok {
			if steps, err = loadSession(ctx, env.Store, p.Session); err != nil {
				return nil, nil, err
			}
			sessions[p.Session] = steps
		}
		pc, err := resolve(ctx, env.Store, p, steps)
		if err != nil {
			if errors.Is(err, memex.ErrInvalid) {
				skipped = append(skipped, p.ID)
				continue
			}
			return nil, nil, err
		}
		start := time.Now()
		if pc.hits, err = search(ctx, env, pc); err != nil {
			return nil, nil, err
		}
		pc.took = time.Since(start)
		for _, b := range budgets {
			for _, strat := range Strategies {
				start := time.Now()
				text, derefs, err := assemble(ctx, env, r, pc, strat, b, opts)
				took := time.Since(start)
				if strat == RAG || strat == Memex {
					took += pc.took
				}
				if err != nil {
					return nil, nil, fmt.Errorf("eval: probe %s: %s at %d: %w", p.ID, strat, b, err)
				}
				used := summarize.CountString(text)
				if used > b {
					return nil, nil, fmt.Errorf("probe %s: %s used %d tokens of %d: %w", p.ID, strat, used, b, ErrOverBudget)
				}
				outs = append(outs, Outcome{
					Probe: p.ID, Strategy: strat, Budget: b, Hit: strings.Contains(text, p.Answer),
					Tokens: used, Derefs: derefs, Latency: took, StepsBack: pc.stepsBack, TokensBack: pc.tokensBack,
				})
			}
		}
		if opts.Progress != nil {
			opts.Progress(i+1, len(probes))
		}
	}
	return outs, skipped, nil
}

// assemble builds one strategy's context for a probe within budget tokens.
func assemble(ctx context.Context, env Env, r *deref.Reader, pc *probeCtx, strat string, budget int, opts BudgetOptions) (string, int, error) {
	switch strat {
	case Truncate:
		return truncate(pc.steps[:pc.at], budget), 0, nil
	case Summary:
		text, _, err := summary(ctx, r, pc, budget)
		return text, 0, err
	case RAG:
		return rag(ctx, env, pc, budget)
	case Memex, MemexNoIdx:
		return memexContext(ctx, env, r, pc, budget, strat == MemexNoIdx, opts)
	}
	return "", 0, fmt.Errorf("eval: unknown strategy %q: %w", strat, memex.ErrInvalid)
}

// truncate keeps the longest run of whole lines at the end of the raw
// transcript that fits the budget.
func truncate(steps []step, budget int) string {
	var lines []string
	for k := len(steps) - 1; k >= 0; k-- {
		ls := strings.SplitAfter(steps[k].text, "\n")
		if ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		for j := len(ls) - 1; j >= 0; j-- {
			lines = append(lines, ls[j])
		}
	}
	return tailFit(lines, budget)
}

// tailFit joins lines (given last first) from the end for as long as the
// sum of their counts stays within budget, then drops lines from the front
// until the exact count of the joined text fits.
func tailFit(rev []string, budget int) string {
	sum, n := 0, 0
	for n < len(rev) {
		c := summarize.CountString(rev[n])
		if sum+c > budget {
			break
		}
		sum += c
		n++
	}
	keep := make([]string, n)
	for i := range n {
		keep[n-1-i] = rev[i]
	}
	text := strings.Join(keep, "")
	for len(keep) > 0 && summarize.CountString(text) > budget {
		keep = keep[1:]
		text = strings.Join(keep, "")
	}
	return text
}

// headFit keeps the longest run of whole lines at the start of s that fits.
func headFit(s string, budget int) string {
	ls := strings.SplitAfter(s, "\n")
	sum, n := 0, 0
	for n < len(ls) {
		c := summarize.CountString(ls[n])
		if sum+c > budget {
			break
		}
		sum += c
		n++
	}
	text := strings.Join(ls[:n], "")
	for n > 0 && summarize.CountString(text) > budget {
		n--
		text = strings.Join(ls[:n], "")
	}
	return text
}

// summary is the session's IndexedSummary before the probe's point; a
// budget too small for its header, none included, yields nothing.
func summary(ctx context.Context, r *deref.Reader, pc *probeCtx, budget int) (string, deref.ContextResult, error) {
	if budget < 0 {
		return "", deref.ContextResult{}, nil
	}
	res, err := r.Context(ctx, deref.ContextOptions{Session: pc.p.Session, Budget: budget, Before: pc.atID})
	if errors.Is(err, memex.ErrBudgetTooSmall) || errors.Is(err, memex.ErrNotFound) {
		return "", res, nil
	}
	if err != nil {
		return "", res, err
	}
	return res.Text, res, nil
}

// search returns the session's entries before the point that match the
// probe's query, best first.
func search(ctx context.Context, env Env, pc *probeCtx) ([]index.Hit, error) {
	res, err := env.Index.Search(ctx, index.Query{
		Text: pc.p.Query, Literal: true, Limit: 2 * searchHits, Session: pc.p.Session, Before: pc.atID,
	})
	if err != nil {
		return nil, err
	}
	hits := orderTies(res.Hits)
	return hits[:min(len(hits), searchHits)], nil
}

// orderTies puts hits of equal score newest first, leaving the rest where
// the search put them. Hits of equal score come back in no fixed order,
// their scores differing in the last bits from one search to the next (a
// path asked for scores its views alike); newest first, as among runs of
// one command, a run measures the same page every time. The search asks
// for twice the page, so that ties across its end are ordered too.
func orderTies(hits []index.Hit) []index.Hit {
	for i := 0; i < len(hits); {
		j := i + 1
		for j < len(hits) && sameScore(hits[j].Score, hits[i].Score) {
			j++
		}
		sort.Slice(hits[i:j], func(a, b int) bool { return hits[i+a].ID.Compare(hits[i+b].ID) > 0 })
		i = j
	}
	return hits
}

// sameScore reports scores equal but for the rounding of their sums.
func sameScore(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(math.Abs(a), math.Abs(b)) }

// rag packs the raw content of the search hits in rank order; the first
// hit that does not fit whole is cut to the lines of its head that fit,
// and packing stops there.
func rag(ctx context.Context, env Env, pc *probeCtx, budget int) (string, int, error) {
	var sb strings.Builder
	used, n := 0, 0
	for _, h := range pc.hits {
		body, err := env.Store.ReadAll(ctx, h.ID)
		if err != nil {
			return "", 0, err
		}
		chunk := string(body)
		if !strings.HasSuffix(chunk, "\n") {
			chunk += "\n"
		}
		c := summarize.CountString(chunk)
		if used+c > budget {
			part := headFit(chunk, budget-used)
			if part != "" {
				sb.WriteString(part)
				n++
			}
			break
		}
		sb.WriteString(chunk)
		used += c
		n++
	}
	text := sb.String()
	// Counts of parts add up to at least the count of the whole in
	// practice; should they not, cut the end.
	if summarize.CountString(text) > budget {
		text = headFit(text, budget)
	}
	return text, n, nil
}

// memexContext spends the budget as rag does, on the best entries in
// rank order, but through deref: each entry with all the budget still
// free, whole when it fits, else its windows (lines with query words,
// error lines, head and tail; the head alone when no line holds a query
// word), until nothing is left; hits of equal score, when the first is
// not shown whole, share what is left in one deref (deref's fair split);
// an entry whose body is that of one already shown, or lies whole in the
// query (a file search that printed the path asked for), or a lesson that
// cites an entry of the page, is passed over (pageOf). The derefs are
// brief (deref.Options.Brief):
// the agent holds each hit's summary from the search, so headers and
// markers do not repeat it. The IndexedSummary then takes what the derefs
// left, when that holds at least one of its lines, and goes first. The
// entries come from a search of the session before the point, or (pick)
// from the summary's own lines ranked by the words they share with the
// query, as an agent would choose without a search tool. A SummaryShare
// above zero sets that part of the budget aside for the summary first.
func memexContext(ctx context.Context, env Env, r *deref.Reader, pc *probeCtx, budget int, pick bool, opts BudgetOptions) (string, int, error) {
	// A least share is reserved at what it really takes (whole lines,
	// often less than the share).
	minSum, _, err := summary(ctx, r, pc, int(float64(budget)*opts.SummaryShare))
	if err != nil {
		return "", 0, err
	}
	var refs []string
	var scores []float64 // per ref; nil when picked from the summary
	if pick {
		// The agent picks from the summary it would hold with the whole
		// budget, then gives up the lines the derefs need.
		_, sumRes, err := summary(ctx, r, pc, budget)
		if err != nil {
			return "", 0, err
		}
		refs = pickFromSummary(sumRes.Entries, pc.p.Query)
	} else {
		for _, h := range pc.hits {
			refs = append(refs, h.ID.String())
			scores = append(scores, h.Score)
		}
	}
	page, err := pageOf(ctx, env.Store, refs, scores, pc.p.Query)
	if err != nil {
		return "", 0, err
	}
	var derefs strings.Builder
	left, n := budget-summarize.CountString(minSum), 0
	opt := deref.Options{Query: pc.p.Query, Project: pc.p.Project, Brief: true}
	for i := 0; i < len(page) && left > 0; {
		opt.Budget = left
		res, err := r.Deref(ctx, []string{page[i].ref}, opt)
		if errors.Is(err, memex.ErrBudgetTooSmall) {
			break
		}
		if err != nil {
			return "", 0, err
		}
		// Hits of one score (a file's views asked for by its path, runs
		// of one command) are ones the search cannot tell apart: when
		// the first is not shown whole, they share what is left, by
		// deref's own split, instead of the first taking it all.
		j := i + 1
		for j < len(page) && page[j].tied(page[i]) {
			j++
		}
		if j > i+1 && len(res.Items) == 1 && !res.Items[0].Complete {
			shared, err := r.Deref(ctx, refsOf(page[i:j]), opt)
			switch {
			case err == nil:
				res = shared
			case errors.Is(err, memex.ErrBudgetTooSmall):
				j = i + 1 // no room for each one's best line: the first alone
			default:
				return "", 0, err
			}
		} else {
			j = i + 1
		}
		derefs.WriteString(res.Text)
		left -= res.Used
		n += j - i
		i = j
	}
	dtext := derefs.String()
	sumText, sres, err := summary(ctx, r, pc, budget-summarize.CountString(dtext))
	if err != nil {
		return "", 0, err
	}
	if len(sres.Entries) == 0 {
		// A header and a footer that list no entry tell the agent
		// nothing it can dereference.
		sumText = ""
	}
	text := sumText + dtext
	// Counts of parts add up to at least the count of the whole in
	// practice; should they not, cut the end.
	if summarize.CountString(text) > budget {
		text = headFit(text, budget)
	}
	return text, n, nil
}

// pageEntry is a hit memex dereferences, with its search score (NaN when
// it was picked from the summary).
type pageEntry struct {
	ref   string
	score float64
}

// tied reports two hits the search scored alike.
func (p pageEntry) tied(q pageEntry) bool { return sameScore(p.score, q.score) }

// refsOf lists the entries' references.
func refsOf(page []pageEntry) []string {
	out := make([]string, len(page))
	for i, p := range page {
		out[i] = p.ref
	}
	return out
}

// pageOf passes over, in rank order, an entry whose body is that of one
// before it (a command run again with the same output: the agent holds its
// hit, and the budget goes to the next one), a lesson that cites an entry
// of the page (a lesson is the summary lines of the entries it cites,
// under its own line, which the agent holds from the search; the deref of
// the cited entry shows that entry's bytes), and an entry whose whole body
// is in the query (a file search that printed the path asked for holds
// nothing the agent did not write itself: its header would only cost lines
// of the next one). scores, when not nil, holds each ref's score.
func pageOf(ctx context.Context, s *archive.Store, refs []string, scores []float64, query string) ([]pageEntry, error) {
	var page []pageEntry
	shown := map[string]bool{}
	for i, ref := range refs {
		p := pageEntry{ref: ref, score: math.NaN()}
		if scores != nil {
			p.score = scores[i]
		}
		if id, err := memex.ParseID(ref); err == nil {
			e, err := s.Get(ctx, id)
			if err != nil {
				return nil, err
			}
			if e.Hash != "" && shown[e.Hash] {
				continue
			}
			shown[e.Hash] = true
			if e.Kind == memex.KindLesson && citesAny(e, refs) {
				continue
			}
			if held, err := inQuery(ctx, s, e, query); err != nil {
				return nil, err
			} else if held {
				continue
			}
		}
		page = append(page, p)
	}
	return page, nil
}

// inQuery reports an entry whose body, spaces trimmed, is not empty and
// occurs in query.
func inQuery(ctx context.Context, s *archive.Store, e memex.Entry, query string) (bool, error) {
	if e.Bytes <= 0 || e.Bytes > int64(len(query))+64 {
		return false, nil
	}
	body, err := s.ReadAll(ctx, e.ID)
	if err != nil {
		return false, err
	}
	b := strings.TrimSpace(string(body))
	return b != "" && strings.Contains(query, b), nil
}

// pickFromSummary ranks summary lines by the query words they contain
// (most first, the most recent first among equals) and returns the IDs of
// those that share any.
func pickFromSummary(entries []deref.ContextEntry, query string) []string {
	words := strings.Fields(strings.ToLower(query))
	type scored struct {
		id    string
		score int
		pos   int
	}
	var ss []scored
	for i, e := range entries {
		sum := strings.ToLower(e.Summary)
		score := 0
		for _, w := range words {
			if len(w) > 1 && strings.Contains(sum, w) {
				score++
			}
		}
		if score > 0 {
			ss = append(ss, scored{e.ID, score, i})
		}
	}
	sort.SliceStable(ss, func(a, b int) bool {
		if ss[a].score != ss[b].score {
			return ss[a].score > ss[b].score
		}
		return ss[a].pos > ss[b].pos
	})
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.id
	}
	return out
}

// citesAny reports whether lesson e cites an entry whose ID is in refs.
func citesAny(e memex.Entry, refs []string) bool {
	for _, c := range strings.Split(e.Attrs["cites"], ",") {
		if c = strings.TrimSpace(c); c != "" && slices.Contains(refs, c) {
			return true
		}
	}
	return false
}
