package index

import (
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

func TestRankLessonsUnit(t *testing.T) {
	ids := make([]memex.ID, 5)
	for i := range ids {
		ids[i] = memex.NewID(t0)
	}
	// fail (cited by the abandoned lesson), work, lesson(abandoned), other
	page := func() ([]Hit, []*lessonOf, []string) {
		hits := []Hit{{ID: ids[0], Score: 4}, {ID: ids[1], Score: 3}, {ID: ids[2], Score: 2.5}, {ID: ids[3], Score: 1}}
		lessons := []*lessonOf{nil, nil, {failed: true, cites: []memex.ID{ids[0]}}, nil}
		return hits, lessons, []string{"a", "b", "", "c"}
	}
	order := func(hits []Hit) string {
		var s []string
		for _, h := range hits {
			for i, id := range ids {
				if h.ID == id {
					s = append(s, string(rune('0'+i)))
				}
			}
		}
		return strings.Join(s, "")
	}
	// Penalised: the failed approach (2 and the run it cites, 0) sinks
	// below 1, and the lesson comes before its evidence.
	hits, lessons, runs := page()
	rankLessons(hits, lessons, runs, true)
	if got := order(hits); got != "1203" {
		t.Fatalf("penalised order %s, want 1203", got)
	}
	if runs[0] != "b" || runs[1] != "" || runs[2] != "a" || lessons[1] == nil {
		t.Fatalf("runs and lessons not kept in step: %q %v", runs, lessons)
	}
	// Asked for failures: no penalty, the lesson still leads its evidence.
	hits, lessons, runs = page()
	rankLessons(hits, lessons, runs, false)
	if got := order(hits); got != "2013" {
		t.Fatalf("order %s, want 2013", got)
	}
	// A page without lessons is left alone.
	hits = []Hit{{ID: ids[0], Score: 1}, {ID: ids[1], Score: 2}}
	rankLessons(hits, []*lessonOf{nil, nil}, []string{"", ""}, true)
	if got := order(hits); got != "01" {
		t.Fatalf("order %s, want 01", got)
	}
}

// TestSearchShowsLessonBeforeItsFailure: through a real index, a lesson
// comes before the failing run it explains, and a failed approach ranks
// below the run that worked unless the query asks for failures.
func TestSearchShowsLessonBeforeItsFailure(t *testing.T) {
	f := newFixture(t, nil)
	f.add(t,
		entry{name: "fail", project: "l", session: "l1", tool: "bash", kind: memex.KindTool, exit: memex.IntPtr(127),
			input: "pytest sympy/core/tests/test_symbol.py", summary: "bash: pytest sympy/core/tests/test_symbol.py · exit 127 · pytest: command not found",
			content: "bash: line 1: pytest: command not found\nbash: line 1: pytest: command not found\n"},
		entry{name: "pass", project: "l", session: "l1", tool: "bash", kind: memex.KindTool, exit: memex.IntPtr(0),
			input: "bin/test sympy/core/tests/test_symbol.py", summary: "bash: bin/test sympy/core/tests/test_symbol.py · exit 0 · sympy test: 13 passed",
			content: "sympy/core/tests/test_symbol.py[13] .............  [OK]\n"},
		entry{name: "lesson", project: "l", session: "l1", kind: memex.KindLesson, input: "pytest sympy/core/tests/test_symbol.py",
			summary: "lesson (abandoned): pytest sympy/core/tests/test_symbol.py failed: pytest: command not found; abandoned: never passed in the session",
			content: "lesson (abandoned): pytest sympy/core/tests/test_symbol.py failed\n"},
	)
	f.c.mu.Lock()
	e := f.c.e[f.ids["lesson"]]
	e.Attrs = map[string]string{"status": "abandoned", "cites": f.ids["fail"].String()}
	f.c.e[f.ids["lesson"]] = e
	f.c.mu.Unlock()

	got := f.names(t, Query{Text: "pytest failed: command not found", Project: "l"})
	if len(got) < 2 || got[0] != "lesson" || got[1] != "fail" {
		t.Fatalf("asking for the failure: %v, want the lesson, then the failure", got)
	}
	got = f.names(t, Query{Text: "test_symbol", Project: "l"})
	if len(got) != 3 || got[0] != "pass" || got[1] != "lesson" || got[2] != "fail" {
		t.Fatalf("test_symbol: %v, want the run that worked first, then the lesson and its failure", got)
	}
}
