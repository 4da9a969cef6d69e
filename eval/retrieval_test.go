package eval

import (
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRankingMetricsMatchHandComputed(t *testing.T) {
	ranked := []string{"a", "b", "c", "d"}
	rel := []string{"b", "c"}
	for _, c := range []struct {
		k              int
		any, all, ndcg float64
	}{
		{1, 0, 0, 0},
		// DCG = 1/log2(3) = 0.63093; ideal = 1 + 1/log2(3) = 1.63093.
		{2, 1, 0, 0.63093 / 1.63093},
		// DCG = 1/log2(3) + 1/log2(4) = 1.13093.
		{3, 1, 1, 1.13093 / 1.63093},
		{10, 1, 1, 1.13093 / 1.63093},
	} {
		if got := RecallAny(ranked, rel, c.k); got != c.any {
			t.Errorf("recall_any@%d = %v, want %v", c.k, got, c.any)
		}
		if got := RecallAll(ranked, rel, c.k); got != c.all {
			t.Errorf("recall_all@%d = %v, want %v", c.k, got, c.all)
		}
		if got := NDCG(ranked, rel, c.k); math.Abs(got-c.ndcg) > 1e-4 {
			t.Errorf("ndcg@%d = %v, want %v", c.k, got, c.ndcg)
		}
	}
	if NDCG([]string{"b"}, []string{"b"}, 5) != 1 || NDCG(nil, nil, 5) != 0 {
		t.Error("ndcg of a perfect or an empty ranking")
	}
	if got := sessionsOf([]string{"t3", "t1", "t2"}, map[string]string{"t1": "s1", "t2": "s2", "t3": "s1"}); !reflect.DeepEqual(got, []string{"s1", "s2"}) {
		t.Errorf("sessions ranked by best turn = %v", got)
	}
}

func loadFixture(t *testing.T, name, format string) Dataset {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := LoadDataset(f, format)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestLoadDatasets(t *testing.T) {
	lm := loadFixture(t, "longmemeval.json", LongMemEval)
	if len(lm.Questions) != 2 || !reflect.DeepEqual(lm.Questions[0].EvidTurns, []string{"s-b#0"}) ||
		!reflect.DeepEqual(lm.Questions[0].EvidSessions, []string{"s-b"}) || len(lm.Questions[1].EvidSessions) != 0 {
		t.Fatalf("longmemeval: %+v", lm.Questions)
	}
	lc := loadFixture(t, "locomo.json", LoCoMo)
	if len(lc.Questions) != 2 || !reflect.DeepEqual(lc.Questions[1].EvidSessions, []string{"session_1", "session_2"}) ||
		!reflect.DeepEqual(lc.Haystacks[0].Sessions, []string{"session_1", "session_2"}) {
		t.Fatalf("locomo: %+v %+v", lc.Questions, lc.Haystacks)
	}
	if _, err := LoadDataset(strings.NewReader("{"), LoCoMo); err == nil {
		t.Error("malformed file accepted")
	}
	if _, err := LoadDataset(strings.NewReader("[]"), "other"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestRetrievalOnFixtures(t *testing.T) {
	ctx := context.Background()
	lm, err := Retrieval(ctx, loadFixture(t, "longmemeval.json", LongMemEval), RetrievalOptions{Ks: []int{1, 5}, Budget: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if lm.Questions != 1 || lm.NoEvidence != 1 || lm.Fits != 1 {
		t.Fatalf("report %+v", lm)
	}
	systems := map[string]int{}
	for _, s := range lm.Scores {
		// "dog Biscuit breed" names one turn only: every system finds it first.
		systems[s.System]++
		if s.Any != 1 || s.All != 1 || s.NDCG != 1 {
			t.Errorf("longmemeval %+v", s)
		}
	}
	if want := map[string]int{"memex": 4, "bm25": 4, "fts5": 4}; !reflect.DeepEqual(systems, want) {
		t.Errorf("scores by system %v, want %v (two levels, two k)", systems, want)
	}
	lc, err := Retrieval(ctx, loadFixture(t, "locomo.json", LoCoMo), RetrievalOptions{Ks: []int{1, 5}, Budget: 5})
	if err != nil {
		t.Fatal(err)
	}
	if lc.Questions != 2 || lc.Fits != 0 {
		t.Fatalf("report %+v", lc)
	}
	for _, s := range lc.Scores {
		if s.K == 5 && s.Any != 1 {
			t.Errorf("locomo at 5 (four turns in all): %+v", s)
		}
		if s.Any < s.All || s.NDCG > 1 {
			t.Errorf("locomo %+v", s)
		}
	}
	var sb strings.Builder
	if err := WriteRetrievalTable(&sb, lc); err != nil || !strings.Contains(sb.String(), "session") || !strings.Contains(sb.String(), "fts5 any") {
		t.Errorf("table %q, %v", sb.String(), err)
	}
}

// TestRetrievalRanksSessionsByJointEvidence: memex's session level is
// index.Sessions, not the session of its best turn: the session whose two
// turns between them hold the question's words ranks first although the
// best turn is another session's.
func TestRetrievalRanksSessionsByJointEvidence(t *testing.T) {
	ds := Dataset{
		Haystacks: []Haystack{{ID: "h", Sessions: []string{"one", "trip", "other"}, Turns: map[string][]Turn{
			"one":  {{ID: "one#0", Text: "user: The hotel."}},
			"trip": {{ID: "trip#0", Text: "user: We booked the hotel by the station for three nights."}, {ID: "trip#1", Text: "user: The flight left two hours late, so we missed dinner."}},
			"other": {{ID: "other#0", Text: "user: My brother took a flight to Lisbon for a conference last spring."},
				{ID: "other#1", Text: "user: Nothing about travel in this one at all."}},
		}}},
		Questions: []Question{{ID: "q", Text: "Which hotel did we stay at after the flight?",
			EvidSessions: []string{"trip"}, EvidTurns: []string{"trip#0", "trip#1"}}},
	}
	rep, err := Retrieval(context.Background(), ds, RetrievalOptions{Ks: []int{1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rep.Scores {
		if s.System != "memex" {
			continue
		}
		if want := map[string]float64{"session": 1, "turn": 0}[s.Level]; s.Any != want {
			t.Errorf("memex %s recall_any@1 = %v, want %v", s.Level, s.Any, want)
		}
	}
}

// TestLoadDatasetSaysWhatItWants: a file of another shape fails with one
// line naming the file, what the format wants and what was found where,
// never a Go type.
func TestLoadDatasetSaysWhatItWants(t *testing.T) {
	open := func(name string) *os.File {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	for _, c := range []struct {
		format string
		r      io.Reader
		want   string
	}{
		{LongMemEval, open("notes.jsonl"), "eval: longmemeval: " + filepath.Join("testdata", "notes.jsonl") +
			": want a JSON array of questions (question_id, question, haystack_session_ids, haystack_sessions, answer_session_ids): found an object at offset 0: invalid input"},
		{LoCoMo, open("notes.jsonl"), "eval: locomo: " + filepath.Join("testdata", "notes.jsonl") +
			": want a JSON array of samples (sample_id, conversation, qa): found an object at offset 0: invalid input"},
		// Another format's array decodes into no questions: said, not scored.
		{LoCoMo, open("longmemeval.json"), "eval: locomo: " + filepath.Join("testdata", "longmemeval.json") +
			": no questions in it; is it a locomo file? invalid input"},
		{LongMemEval, strings.NewReader("\n  \"q1\""), "eval: longmemeval: want a JSON array of questions (question_id, question, haystack_session_ids, haystack_sessions, answer_session_ids): found a string at offset 3: invalid input"},
		{LoCoMo, strings.NewReader(""), "eval: locomo: want a JSON array of samples (sample_id, conversation, qa): found nothing (an empty file): invalid input"},
		{LongMemEval, strings.NewReader(`[{"question_id":"q1","haystack_sessions":[[{"role":1}]]}]`),
			`eval: longmemeval: field "haystack_sessions.role": found a number, want a string (near byte 52): invalid input`},
		{LoCoMo, strings.NewReader(`[{"sample_id":"c1","conversation":{"session_1":{"text":"hi"}}}]`),
			`eval: locomo c1 session_1: turns: found an object, want an array (near byte 1): invalid input`},
		{LoCoMo, strings.NewReader("["), "eval: locomo: JSON cut short: invalid input"},
	} {
		_, err := LoadDataset(c.r, c.format)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.format, got, c.want)
		}
		if strings.Contains(got, "Go ") || strings.Contains(got, "struct") {
			t.Errorf("%s: names Go types: %s", c.format, got)
		}
	}
}

// TestFTS5Query: a question is the OR of its distinct words, quoted, so
// that FTS5's syntax (AND, NEAR, quotes, a colon) in a question is text.
func TestFTS5Query(t *testing.T) {
	for q, want := range map[string]string{
		`What did I say about Paris's "weather" AND NEAR: it?`: `"what" OR "did" OR "i" OR "say" OR "about" OR "paris" OR "s" OR "weather" OR "and" OR "near" OR "it"`,
		"  ?! ":           "",
		"Café, café 2024": `"café" OR "2024"`,
	} {
		if got := fts5Query(q); got != want {
			t.Errorf("fts5Query(%q) = %s, want %s", q, got, want)
		}
	}
}
