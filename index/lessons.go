package index

import (
	"slices"
	"strings"

	"github.com/memex-archive/memex"
)

// Lessons (entries of kind lesson, distilled by package memory) change a
// page of hits in two ways, after the page is ranked and before runs of
// one command are put newest first:
//
//   - a lesson whose approach failed and was left (status abandoned or
//     reverted) ranks below the approaches that worked: its score, and the
//     scores of the entries of the page it cites (the failed runs, the
//     edits that did not help), are multiplied by FailurePenalty, unless
//     the query asks for failures (a word such as failed, error, broken,
//     abandoned or reverted). The lesson's own line says which it is;
//   - a lesson comes before the entries it explains: when the page holds
//     an entry it cites above it, it moves just before the first of them.
//
// Both read the lesson's status and citations from its stored attributes,
// which the index does not keep: they cost nothing on pages without
// lessons, and need no reindex.

// FailurePenalty multiplies the score of a failed approach's lesson and
// of its evidence.
const FailurePenalty = 0.5

// lessonOf is what ranking reads of a hit that is a lesson.
type lessonOf struct {
	failed bool // abandoned or reverted
	cites  []memex.ID
}

// lessonInfo reads a lesson entry's attributes; nil for other entries.
func lessonInfo(e memex.Entry) *lessonOf {
	if e.Kind != memex.KindLesson {
		return nil
	}
	l := &lessonOf{}
	switch e.Attrs["status"] {
	case "abandoned", "reverted":
		l.failed = true
	}
	for _, s := range strings.Split(e.Attrs["cites"], ",") {
		if id, err := memex.ParseID(s); err == nil {
			l.cites = append(l.cites, id)
		}
	}
	return l
}

// failureWords are query words that ask for failures.
var failureWords = map[string]bool{"fail": true, "failed": true, "fails": true, "failing": true, "failure": true, "failures": true,
	"error": true, "errors": true, "broken": true, "broke": true, "abandoned": true, "reverted": true, "revert": true,
	"crash": true, "crashed": true, "exception": true, "panic": true}

// asksForFailures reports whether a query's words ask for failures.
func asksForFailures(p *parsed) bool {
	for _, w := range p.words {
		if failureWords[w.w.whole] {
			return true
		}
	}
	return false
}

// rankLessons applies the two rules above to a ranked page; lessons[i]
// is hits[i]'s lesson (nil for other hits), runs[i] its run key, both
// kept in step with hits. penalise is false when the query asks for
// failures or ranks by time alone.
func rankLessons(hits []Hit, lessons []*lessonOf, runs []string, penalise bool) {
	any := false
	for _, l := range lessons {
		if l != nil {
			any = true
			break
		}
	}
	if !any {
		return
	}
	type item struct {
		hit    Hit
		lesson *lessonOf
		run    string
	}
	items := make([]item, len(hits))
	for i := range hits {
		items[i] = item{hits[i], lessons[i], runs[i]}
	}
	if penalise {
		// An entry cited by a lesson that worked is no failed approach.
		worked := map[memex.ID]bool{}
		failed := map[memex.ID]bool{}
		for _, it := range items {
			if it.lesson == nil {
				continue
			}
			for _, id := range it.lesson.cites {
				if it.lesson.failed {
					failed[id] = true
				} else {
					worked[id] = true
				}
			}
		}
		changed := false
		for i := range items {
			l := items[i].lesson
			if l != nil && l.failed || l == nil && failed[items[i].hit.ID] && !worked[items[i].hit.ID] {
				items[i].hit.Score *= FailurePenalty
				changed = true
			}
		}
		if changed {
			slices.SortStableFunc(items, func(a, b item) int {
				switch {
				case a.hit.Score > b.hit.Score:
					return -1
				case a.hit.Score < b.hit.Score:
					return 1
				}
				return 0
			})
		}
	}
	// Each lesson before the first hit it cites.
	for j := 0; j < len(items); j++ {
		l := items[j].lesson
		if l == nil {
			continue
		}
		first := -1
		for i := 0; i < j; i++ {
			if slices.Contains(l.cites, items[i].hit.ID) {
				first = i
				break
			}
		}
		if first < 0 {
			continue
		}
		it := items[j]
		copy(items[first+1:j+1], items[first:j])
		items[first] = it
	}
	for i, it := range items {
		hits[i], lessons[i], runs[i] = it.hit, it.lesson, it.run
	}
}
