package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/jsonerr"
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

// LoadDataset reads a LongMemEval or LoCoMo JSON file. A question without
// evidence (LongMemEval's abstention questions) is kept and scored as
// nothing to find: the metrics skip it. A file that is not the format's
// JSON array is memex.ErrInvalid with one line saying what was expected
// and what was found where; it names the file when r has a Name method
// (an *os.File does).
func LoadDataset(r io.Reader, format string) (Dataset, error) {
	var ds Dataset
	var err error
	switch format {
	case LongMemEval:
		ds, err = loadLongMemEval(r)
	case LoCoMo:
		ds, err = loadLoCoMo(r)
	default:
		return Dataset{}, fmt.Errorf("eval: retrieval format %q: want longmemeval or locomo: %w", format, memex.ErrInvalid)
	}
	if err == nil && len(ds.Questions) == 0 {
		// A file of the other format decodes too (unknown fields are
		// ignored), into nothing to ask: say so rather than score nothing.
		return Dataset{}, fmt.Errorf("eval: %s: %sno questions in it; is it a %s file? %w", format, fileOf(r), format, memex.ErrInvalid)
	}
	return ds, err
}

func loadLongMemEval(r io.Reader) (Dataset, error) {
	var items []struct {
		QuestionID  string   `json:"question_id"`
		Question    string   `json:"question"`
		RawSessions []string `json:"haystack_session_ids"`
		Haystack    [][]struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			HasAnswer bool   `json:"has_answer"`
		} `json:"haystack_sessions"`
		AnswerSessions []string `json:"answer_session_ids"`
	}
	if err := decodeArray(r, LongMemEval, "questions (question_id, question, haystack_session_ids, haystack_sessions, answer_session_ids)", &items); err != nil {
		return Dataset{}, err
	}
	var ds Dataset
	for _, it := range items {
		if len(it.RawSessions) != len(it.Haystack) {
			return Dataset{}, fmt.Errorf("eval: longmemeval %s: %d session ids for %d sessions: %w",
				it.QuestionID, len(it.RawSessions), len(it.Haystack), memex.ErrInvalid)
		}
		h := Haystack{ID: it.QuestionID, Turns: map[string][]Turn{}}
		q := Question{ID: it.QuestionID, Haystack: len(ds.Haystacks), Text: it.Question, EvidSessions: it.AnswerSessions}
		for i, sid := range it.RawSessions {
			h.Sessions = append(h.Sessions, sid)
			for j, t := range it.Haystack[i] {
				id := sid + "#" + strconv.Itoa(j)
				h.Turns[sid] = append(h.Turns[sid], Turn{ID: id, Text: t.Role + ": " + t.Content})
				if t.HasAnswer {
					q.EvidTurns = append(q.EvidTurns, id)
				}
			}
		}
		ds.Haystacks = append(ds.Haystacks, h)
		ds.Questions = append(ds.Questions, q)
	}
	return ds, nil
}

// decodeArray decodes the JSON array r holds into items (a pointer to a
// slice). what names the array's elements and their main fields, for the
// error when r holds something else: encoding/json would name the Go type
// of items, which is of no use to whoever wrote the file.
func decodeArray(r io.Reader, format, what string, items any) error {
	file := fileOf(r)
	// Read whole, as the decoder would buffer the whole array anyway, so
	// that the first byte can be looked at and offsets count from the
	// start of the file.
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("eval: %s: %s%w", format, file, err)
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	if start == len(data) || data[start] != '[' {
		found := "nothing (an empty file)"
		if start < len(data) {
			found = jsonStart(data[start]) + fmt.Sprintf(" at offset %d", start)
		}
		return fmt.Errorf("eval: %s: %swant a JSON array of %s: found %s: %w", format, file, what, found, memex.ErrInvalid)
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(items); err != nil {
		return fmt.Errorf("eval: %s: %s%s: %w", format, file, jsonerr.Describe(err), memex.ErrInvalid)
	}
	return nil
}

// fileOf is "NAME: " for a reader with a name (an *os.File), else "".
func fileOf(r io.Reader) string {
	if n, ok := r.(interface{ Name() string }); ok {
		return n.Name() + ": "
	}
	return ""
}

// jsonStart names the JSON value that begins with b.
func jsonStart(b byte) string {
	switch {
	case b == '{':
		return "an object"
	case b == '"':
		return "a string"
	case b == '-' || b >= '0' && b <= '9':
		return "a number"
	case b == 't' || b == 'f':
		return "a boolean"
	case b == 'n':
		return "null"
	}
	return fmt.Sprintf("no JSON (%q)", b)
}

var locomoSession = regexp.MustCompile(`^session_(\d+)$`)

func loadLoCoMo(r io.Reader) (Dataset, error) {
	var items []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string          `json:"question"`
			Answer   json.RawMessage `json:"answer"`
			Evidence []string        `json:"evidence"`
			Category int             `json:"category"`
		} `json:"qa"`
	}
	if err := decodeArray(r, LoCoMo, "samples (sample_id, conversation, qa)", &items); err != nil {
		return Dataset{}, err
	}
	var ds Dataset
	for n, it := range items {
		id := it.SampleID
		if id == "" {
			id = "sample-" + strconv.Itoa(n)
		}
		h := Haystack{ID: id, Turns: map[string][]Turn{}}
		var nums []int
		for k := range it.Conversation {
			if m := locomoSession.FindStringSubmatch(k); m != nil {
				v, _ := strconv.Atoi(m[1])
				nums = append(nums, v)
			}
		}
		sort.Ints(nums)
		for _, v := range nums {
			sid := "session_" + strconv.Itoa(v)
			var turns []struct {
				Speaker string `json:"speaker"`
				DiaID   string `json:"dia_id"`
				Text    string `json:"text"`
			}
			if err := json.Unmarshal(it.Conversation[sid], &turns); err != nil {
				return Dataset{}, fmt.Errorf("eval: locomo %s %s: turns: %s: %w", id, sid, jsonerr.Describe(err), memex.ErrInvalid)
			}
			h.Sessions = append(h.Sessions, sid)
			for _, t := range turns {
				h.Turns[sid] = append(h.Turns[sid], Turn{ID: t.DiaID, Text: t.Speaker + ": " + t.Text})
			}
		}
		hi := len(ds.Haystacks)
		ds.Haystacks = append(ds.Haystacks, h)
		for j, qa := range it.QA {
			q := Question{ID: id + "#" + strconv.Itoa(j), Haystack: hi, Text: qa.Question}
			seen := map[string]bool{}
			for _, ev := range qa.Evidence {
				// dia_id "D3:7" is turn 7 of session_3.
				q.EvidTurns = append(q.EvidTurns, ev)
				if d, _, ok := strings.Cut(strings.TrimPrefix(ev, "D"), ":"); ok && !seen[d] {
					seen[d] = true
					q.EvidSessions = append(q.EvidSessions, "session_"+d)
				}
			}
			ds.Questions = append(ds.Questions, q)
		}
	}
	return ds, nil
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
	System string  `json:"system"` // memex or bm25
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

// Retrieval archives every haystack into its own project (sessions and
// turns keep their dataset ids as aliases), asks each question of memex's
// index restricted to its project and of a plain BM25 index of the raw
// turns (bleve's default mapping), and scores both rankings.
func Retrieval(ctx context.Context, ds Dataset, opts RetrievalOptions) (RetrievalReport, error) {
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
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		return RetrievalReport{}, err
	}
	defer s.Close()
	ix, err := index.Open("", &index.Options{InMemory: true, Content: s.Body, Entry: s.Get, Timeout: 10 * time.Second})
	if err != nil {
		return RetrievalReport{}, err
	}
	defer ix.Close()
	type hay struct {
		project   string
		turnOfID  map[memex.ID]string
		sessionOf map[string]string
		tokens    map[string]int
		bm25      bleve.Index
	}
	hays := make([]hay, len(ds.Haystacks))
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for hi, h := range ds.Haystacks {
		im := bleve.NewIndexMapping()
		im.ScoringModel = "bm25"
		bi, err := bleve.NewMemOnly(im)
		if err != nil {
			return RetrievalReport{}, fmt.Errorf("eval: bm25 index: %w", err)
		}
		defer bi.Close()
		hy := hay{project: "bench/" + h.ID, turnOfID: map[memex.ID]string{}, sessionOf: map[string]string{},
			tokens: map[string]int{}, bm25: bi}
		batch := bi.NewBatch()
		n := 0
		for _, sid := range h.Sessions {
			for _, t := range h.Turns[sid] {
				if err := ctx.Err(); err != nil {
					return RetrievalReport{}, err
				}
				e := memex.Entry{Project: hy.project, Session: hy.project + "/" + sid, Kind: memex.KindMessage,
					Created: t0.Add(time.Duration(n) * time.Second), Aliases: []string{t.ID, hy.project + "/" + t.ID},
					Attrs: map[string]string{"session": sid}}
				n++
				got, err := s.Add(ctx, e, strings.NewReader(t.Text))
				if err != nil {
					return RetrievalReport{}, fmt.Errorf("eval: retrieval: %w", err)
				}
				hy.turnOfID[got.ID] = t.ID
				hy.sessionOf[t.ID] = sid
				hy.tokens[t.ID] = summarize.CountString(t.Text)
				if err := batch.Index(t.ID, map[string]string{"text": t.Text}); err != nil {
					return RetrievalReport{}, fmt.Errorf("eval: bm25 index: %w", err)
				}
			}
		}
		if err := bi.Batch(batch); err != nil {
			return RetrievalReport{}, fmt.Errorf("eval: bm25 index: %w", err)
		}
		hays[hi] = hy
	}
	if _, err := catchup.CatchUp(ctx, s, ix); err != nil {
		return RetrievalReport{}, err
	}
	limit := max(maxK*5, 50)
	type acc struct{ any, all, ndcg float64 }
	sums := map[[3]string]*acc{} // system, level, k
	rep := RetrievalReport{Budget: budget}
	fits := 0
	for qi, q := range ds.Questions {
		if opts.Progress != nil {
			opts.Progress(qi+1, len(ds.Questions))
		}
		if len(q.EvidTurns) == 0 && len(q.EvidSessions) == 0 {
			rep.NoEvidence++
			continue
		}
		rep.Questions++
		hy := hays[q.Haystack]
		need := 0
		for _, t := range q.EvidTurns {
			need += hy.tokens[t]
		}
		if need <= budget {
			fits++
		}
		res, err := ix.Search(ctx, index.Query{Text: q.Text, Literal: true, Project: hy.project, Limit: limit})
		if err != nil {
			return RetrievalReport{}, err
		}
		var memexTurns []string
		for _, h := range res.Hits {
			if t, ok := hy.turnOfID[h.ID]; ok {
				memexTurns = append(memexTurns, t)
			}
		}
		sr, err := hy.bm25.SearchInContext(ctx, bleve.NewSearchRequestOptions(bleve.NewMatchQuery(q.Text), limit, 0, false))
		if err != nil {
			return RetrievalReport{}, fmt.Errorf("eval: bm25 search: %w", err)
		}
		var bmTurns []string
		for _, h := range sr.Hits {
			bmTurns = append(bmTurns, h.ID)
		}
		for _, sys := range []struct {
			name  string
			turns []string
		}{{"memex", memexTurns}, {"bm25", bmTurns}} {
			for _, lv := range []struct {
				name     string
				ranked   []string
				relevant []string
			}{{"session", sessionsOf(sys.turns, hy.sessionOf), q.EvidSessions}, {"turn", sys.turns, q.EvidTurns}} {
				for _, k := range ks {
					key := [3]string{sys.name, lv.name, strconv.Itoa(k)}
					a := sums[key]
					if a == nil {
						a = &acc{}
						sums[key] = a
					}
					a.any += RecallAny(lv.ranked, lv.relevant, k)
					a.all += RecallAll(lv.ranked, lv.relevant, k)
					a.ndcg += NDCG(lv.ranked, lv.relevant, k)
				}
			}
		}
	}
	if rep.Questions > 0 {
		rep.Fits = float64(fits) / float64(rep.Questions)
	}
	for _, sys := range []string{"memex", "bm25"} {
		for _, lv := range []string{"session", "turn"} {
			for _, k := range ks {
				sc := Score{System: sys, Level: lv, K: k}
				if a := sums[[3]string{sys, lv, strconv.Itoa(k)}]; a != nil {
					n := float64(rep.Questions)
					sc.Any, sc.All, sc.NDCG = a.any/n, a.all/n, a.ndcg/n
				}
				rep.Scores = append(rep.Scores, sc)
			}
		}
	}
	return rep, nil
}

// WriteRetrievalTable prints a retrieval report, memex and BM25 side by
// side per level and k.
func WriteRetrievalTable(w io.Writer, rep RetrievalReport) error {
	fmt.Fprintf(w, "%d questions scored (%d without evidence skipped); evidence fits in %d tokens for %.1f%%\n\n",
		rep.Questions, rep.NoEvidence, rep.Budget, 100*rep.Fits)
	by := map[string]Score{}
	for _, s := range rep.Scores {
		by[s.System+"/"+s.Level+"/"+strconv.Itoa(s.K)] = s
	}
	fmt.Fprintf(w, "%-8s %4s  %-28s  %-28s\n", "level", "k", "memex any / all / nDCG", "bm25 any / all / nDCG")
	for _, s := range rep.Scores {
		if s.System != "memex" {
			continue
		}
		b := by["bm25/"+s.Level+"/"+strconv.Itoa(s.K)]
		fmt.Fprintf(w, "%-8s %4d  %6.3f / %6.3f / %6.3f      %6.3f / %6.3f / %6.3f\n",
			s.Level, s.K, s.Any, s.All, s.NDCG, b.Any, b.All, b.NDCG)
	}
	return nil
}
