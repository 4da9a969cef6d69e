package eval

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/summarize"
)

// Retrieval benchmark formats.
const (
	LongMemEval = "longmemeval"
	LoCoMo      = "locomo"
)

// Turn is one turn of a haystack session.
type Turn struct {
	ID   string // dataset id (LoCoMo dia_id) or session id + "#" + index
	Text string // "role: content"
}

// Haystack is the conversation one or more questions are asked over.
type Haystack struct {
	ID       string
	Sessions []string          // session ids in order
	Turns    map[string][]Turn // by session id
}

// Question is one retrieval question with its evidence.
type Question struct {
	ID           string
	Haystack     int // index into the loaded haystacks
	Text         string
	EvidSessions []string
	EvidTurns    []string
}

// Dataset is a benchmark file loaded: haystacks and the questions on them.
type Dataset struct {
	Haystacks []Haystack
	Questions []Question
}

// RecallAny is 1 when any relevant id is among the first k ranked.
func RecallAny(ranked []string, relevant []string, k int) float64 {
	top := topSet(ranked, k)
	for _, r := range relevant {
		if top[r] {
			return 1
		}
	}
	return 0
}

// RecallAll is 1 when every relevant id is among the first k ranked.
func RecallAll(ranked []string, relevant []string, k int) float64 {
	top := topSet(ranked, k)
	for _, r := range relevant {
		if !top[r] {
			return 0
		}
	}
	return 1
}

// NDCG is the normalised discounted cumulative gain at k with binary
// relevance: sum of 1/log2(rank+1) over relevant ids in the first k, over
// the same sum for an ideal ranking.
func NDCG(ranked []string, relevant []string, k int) float64 {
	rel := map[string]bool{}
	for _, r := range relevant {
		rel[r] = true
	}
	var dcg, ideal float64
	for i := 0; i < k && i < len(ranked); i++ {
		if rel[ranked[i]] {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	for i := 0; i < k && i < len(rel); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	if ideal == 0 {
		return 0
	}
	return dcg / ideal
}

func topSet(ranked []string, k int) map[string]bool {
	top := map[string]bool{}
	for i := 0; i < k && i < len(ranked); i++ {
		top[ranked[i]] = true
	}
	return top
}

// sessionsOf ranks sessions by their best-ranked turn.
func sessionsOf(turns []string, sessionOf map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range turns {
		if s := sessionOf[t]; s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// RetrievalOptions configure Retrieval. Zero Ks means 1, 5, 10; zero
// Budget means 1,000 tokens.
type RetrievalOptions struct {
	Ks       []int
	Budget   int
	Progress func(done, total int)
}

// Score is the mean of a metric over the questions with evidence.
type Score struct {
	System string  `json:"system"` // memex, bm25 or fts5
	Level  string  `json:"level"`  // session or turn
	K      int     `json:"k"`
	Any    float64 `json:"recall_any"`
	All    float64 `json:"recall_all"`
	NDCG   float64 `json:"ndcg"`
}

// RetrievalReport is the result of a retrieval run.
type RetrievalReport struct {
	Questions  int     `json:"questions"`   // questions with evidence, the ones scored
	NoEvidence int     `json:"no_evidence"` // questions without evidence, not scored
	Budget     int     `json:"budget"`
	Fits       float64 `json:"evidence_fits"` // share of scored questions whose evidence turns fit the budget
	Scores     []Score `json:"scores"`
}

// Retrieval scores ds: see RetrievalScan.
func Retrieval(ctx context.Context, ds Dataset, opts RetrievalOptions) (RetrievalReport, error) {
	sc := newScorer(opts)
	byHay := make([][]Question, len(ds.Haystacks))
	for _, q := range ds.Questions {
		byHay[q.Haystack] = append(byHay[q.Haystack], q)
	}
	done := 0
	for hi, h := range ds.Haystacks {
		if err := sc.haystack(ctx, h, byHay[hi]); err != nil {
			return RetrievalReport{}, err
		}
		done += len(byHay[hi])
		if opts.Progress != nil {
			opts.Progress(done, len(ds.Questions))
		}
	}
	return sc.report(), nil
}

// RetrievalScan reads a LongMemEval or LoCoMo file (see ScanDataset) and
// scores it one haystack at a time: each haystack is archived into a
// store and an index of its own (sessions and turns keep their dataset ids
// as aliases), its questions are asked of memex's index and of a plain BM25
// index of the raw turns (bleve's default mapping): memex's sessions are
// ranked by index.Sessions, BM25's by their best turn (sessionsOf). Both
// indexes are dropped before the next haystack is read, so that memory
// holds one haystack whatever the file's size. Progress, when set, is called after every
// haystack with the questions scored so far and 0 for a total unknown.
func RetrievalScan(ctx context.Context, r io.Reader, format string, opts RetrievalOptions) (RetrievalReport, error) {
	sc := newScorer(opts)
	done := 0
	err := ScanDataset(r, format, func(one Dataset) error {
		if err := sc.haystack(ctx, one.Haystacks[0], one.Questions); err != nil {
			return err
		}
		done += len(one.Questions)
		if opts.Progress != nil {
			opts.Progress(done, 0)
		}
		return nil
	})
	if err != nil {
		return RetrievalReport{}, err
	}
	return sc.report(), nil
}

// scorer sums the metrics over the haystacks scored so far.
type scorer struct {
	ks     []int
	budget int
	limit  int                // hits asked of each system
	sums   map[[3]string]*acc // system, level, k
	rep    RetrievalReport
	fits   int
}

type acc struct{ any, all, ndcg float64 }

func newScorer(opts RetrievalOptions) *scorer {
	ks := opts.Ks
	if len(ks) == 0 {
		ks = []int{1, 5, 10}
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = 1000
	}
	maxK := 0
	for _, k := range ks {
		maxK = max(maxK, k)
	}
	return &scorer{ks: ks, budget: budget, limit: max(maxK*5, 50), sums: map[[3]string]*acc{},
		rep: RetrievalReport{Budget: budget}}
}

// retrievalProject is the project a haystack's entries are archived under.
const retrievalProject = "bench"

// haystack archives h into a store and an index of its own, asks qs of
// memex and of BM25, and adds their scores.
func (sc *scorer) haystack(ctx context.Context, h Haystack, qs []Question) error {
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := index.Open("", &index.Options{InMemory: true, Content: s.Body, Entry: s.Get, Timeout: 10 * time.Second})
	if err != nil {
		return err
	}
	defer ix.Close()
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	bm25, err := bleve.NewMemOnly(im)
	if err != nil {
		return fmt.Errorf("eval: bm25 index: %w", err)
	}
	defer bm25.Close()
	fts, err := newFTS5(ctx)
	if err != nil {
		return err
	}
	defer fts.close()
	turnOfID := map[memex.ID]string{}
	sessionOf := map[string]string{}
	tokens := map[string]int{}
	batch := bm25.NewBatch()
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for _, sid := range h.Sessions {
		for _, t := range h.Turns[sid] {
			if err := ctx.Err(); err != nil {
				return err
			}
			e := memex.Entry{Project: retrievalProject, Session: sid, Kind: memex.KindMessage,
				Created: t0.Add(time.Duration(n) * time.Second), Aliases: []string{t.ID},
				Attrs: map[string]string{"session": sid}}
			n++
			got, err := s.Add(ctx, e, strings.NewReader(t.Text))
			if err != nil {
				return fmt.Errorf("eval: retrieval %s: %w", h.ID, err)
			}
			turnOfID[got.ID] = t.ID
			sessionOf[t.ID] = sid
			tokens[t.ID] = summarize.CountString(t.Text)
			if err := batch.Index(t.ID, map[string]string{"text": t.Text}); err != nil {
				return fmt.Errorf("eval: bm25 index: %w", err)
			}
			if err := fts.add(ctx, t.ID, t.Text); err != nil {
				return err
			}
		}
	}
	if err := bm25.Batch(batch); err != nil {
		return fmt.Errorf("eval: bm25 index: %w", err)
	}
	if err := fts.commit(); err != nil {
		return err
	}
	if _, err := catchup.CatchUp(ctx, s, ix); err != nil {
		return err
	}
	// Every turn must be searchable in both systems, or the scores
	// compare different haystacks.
	indexed, err := ix.Count()
	if err != nil {
		return err
	}
	plain, err := bm25.DocCount()
	if err != nil {
		return fmt.Errorf("eval: bm25 index: %w", err)
	}
	inFTS, err := fts.count(ctx)
	if err != nil {
		return fmt.Errorf("eval: fts5: %w", err)
	}
	if indexed != uint64(n) || len(turnOfID) != n || plain != uint64(len(sessionOf)) || inFTS != n {
		return fmt.Errorf("eval: retrieval %s: %d turns, %d archived, %d indexed, %d distinct turn ids in bm25 (%d), %d in fts5",
			h.ID, n, len(turnOfID), indexed, len(sessionOf), plain, inFTS)
	}
	for _, q := range qs {
		if len(q.EvidTurns) == 0 && len(q.EvidSessions) == 0 {
			sc.rep.NoEvidence++
			continue
		}
		sc.rep.Questions++
		need := 0
		for _, t := range q.EvidTurns {
			need += tokens[t]
		}
		if need <= sc.budget {
			sc.fits++
		}
		res, err := ix.Search(ctx, index.Query{Text: q.Text, Literal: true, Limit: sc.limit})
		if err != nil {
			return err
		}
		var memexTurns []string
		for _, hit := range res.Hits {
			if t, ok := turnOfID[hit.ID]; ok {
				memexTurns = append(memexTurns, t)
			}
		}
		// memex ranks sessions itself, by the evidence their turns hold
		// together (index.Sessions).
		ss, err := ix.Sessions(ctx, index.Query{Text: q.Text, Literal: true, Limit: sc.limit})
		if err != nil {
			return err
		}
		var memexSessions []string
		for _, s := range ss.Sessions {
			memexSessions = append(memexSessions, s.Session)
		}
		sr, err := bm25.SearchInContext(ctx, bleve.NewSearchRequestOptions(bleve.NewMatchQuery(q.Text), sc.limit, 0, false))
		if err != nil {
			return fmt.Errorf("eval: bm25 search: %w", err)
		}
		var bmTurns []string
		for _, hit := range sr.Hits {
			bmTurns = append(bmTurns, hit.ID)
		}
		ftsTurns, err := fts.search(ctx, q.Text, sc.limit)
		if err != nil {
			return err
		}
		sc.add("memex", memexTurns, memexSessions, q)
		sc.add("bm25", bmTurns, sessionsOf(bmTurns, sessionOf), q)
		sc.add("fts5", ftsTurns, sessionsOf(ftsTurns, sessionOf), q)
	}
	return nil
}

// add scores one system's rankings of one question's turns and sessions.
func (sc *scorer) add(system string, turns, sessions []string, q Question) {
	for _, lv := range []struct {
		name     string
		ranked   []string
		relevant []string
	}{{"session", sessions, q.EvidSessions}, {"turn", turns, q.EvidTurns}} {
		for _, k := range sc.ks {
			key := [3]string{system, lv.name, strconv.Itoa(k)}
			a := sc.sums[key]
			if a == nil {
				a = &acc{}
				sc.sums[key] = a
			}
			a.any += RecallAny(lv.ranked, lv.relevant, k)
			a.all += RecallAll(lv.ranked, lv.relevant, k)
			a.ndcg += NDCG(lv.ranked, lv.relevant, k)
		}
	}
}

// report turns the sums into means.
func (sc *scorer) report() RetrievalReport {
	rep := sc.rep
	if rep.Questions > 0 {
		rep.Fits = float64(sc.fits) / float64(rep.Questions)
	}
	for _, sys := range []string{"memex", "bm25", "fts5"} {
		for _, lv := range []string{"session", "turn"} {
			for _, k := range sc.ks {
				s := Score{System: sys, Level: lv, K: k}
				if a := sc.sums[[3]string{sys, lv, strconv.Itoa(k)}]; a != nil {
					n := float64(rep.Questions)
					s.Any, s.All, s.NDCG = a.any/n, a.all/n, a.ndcg/n
				}
				rep.Scores = append(rep.Scores, s)
			}
		}
	}
	return rep
}

// WriteRetrievalTable prints a retrieval report, memex, BM25 and FTS5
// side by side per level and k.
func WriteRetrievalTable(w io.Writer, rep RetrievalReport) error {
	fmt.Fprintf(w, "%d questions scored (%d without evidence skipped); evidence fits in %d tokens for %.1f%%\n\n",
		rep.Questions, rep.NoEvidence, rep.Budget, 100*rep.Fits)
	by := map[string]Score{}
	for _, s := range rep.Scores {
		by[s.System+"/"+s.Level+"/"+strconv.Itoa(s.K)] = s
	}
	fmt.Fprintf(w, "%-8s %4s  %-28s  %-28s  %-28s\n", "level", "k", "memex any / all / nDCG", "bm25 any / all / nDCG", "fts5 any / all / nDCG")
	for _, s := range rep.Scores {
		if s.System != "memex" {
			continue
		}
		b := by["bm25/"+s.Level+"/"+strconv.Itoa(s.K)]
		f := by["fts5/"+s.Level+"/"+strconv.Itoa(s.K)]
		fmt.Fprintf(w, "%-8s %4d  %6.3f / %6.3f / %6.3f      %6.3f / %6.3f / %6.3f      %6.3f / %6.3f / %6.3f\n",
			s.Level, s.K, s.Any, s.All, s.NDCG, b.Any, b.All, b.NDCG, f.Any, f.All, f.NDCG)
	}
	return nil
}

// RetrievalScanFile is RetrievalScan of the open file f, whose name its
// errors give; progress, when set, is told after every haystack how many
// of the file's bytes are read.
func RetrievalScanFile(ctx context.Context, f *os.File, format string, opts RetrievalOptions, progress func(read, size int64)) (RetrievalReport, error) {
	cr := &countingReader{r: f}
	if progress != nil {
		size := int64(0)
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		opts.Progress = func(int, int) { progress(cr.n, max(size, cr.n)) }
	}
	return RetrievalScan(ctx, nameReader{cr, f.Name()}, format, opts)
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// nameReader is a reader that keeps the name of the file it reads, for
// the errors that name it (see ScanDataset).
type nameReader struct {
	io.Reader
	name string
}

func (n nameReader) Name() string { return n.name }
