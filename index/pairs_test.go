package index

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// FuzzPairsAgreeWithQueries: the pairs indexed of a text are the adjacent
// pieces of its query words, so that a phrase typed from the text asks
// for pairs the text has.
func FuzzPairsAgreeWithQueries(f *testing.F) {
	for _, s := range []string{"to and run", "parseConfigFile(path) returns", "src/auth/middleware.go:42:7 failed",
		"HTTPServer_v2 --flag=value", "naïveCafé/x.go ÉTÉ", "a..b//c " + strings.Repeat("deep_dir/", 40) + "x.py end",
		strings.Repeat("x", 300) + " after", "aB1Cd __init__ ..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got []string
		pairsOf([]byte(s), func(p []byte) { got = append(got, string(p)) })
		var want []string
		var prev string
		has := false
		for _, w := range wordsOf(s) {
			pieces := w.parts
			if len(pieces) == 0 {
				pieces = []string{w.whole}
			}
			for _, pc := range pieces {
				if has && len(prev)+1+len(pc) <= maxPairBytes && (stopWords[prev] || stopWords[pc]) {
					want = append(want, prev+" "+pc)
				}
				prev, has = pc, true
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("pairsOf(%q) = %q, query words give %q", s, got, want)
		}
	})
}

// TestPhraseOfCommonWordsComplete: a phrase of words that many entries
// hold in other orders finds every entry that holds it, and counts them
// exactly, however deep the ranking of its words puts them. Its
// candidates come from the index (the entries holding each pair of its
// words), not from checking every entry that holds the words.
func TestPhraseOfCommonWordsComplete(t *testing.T) {
	f := newFixture(t, nil)
	var es []entry
	for i := 0; i < 300; i++ {
		// The words, often, never in the phrase's order: these rank first.
		es = append(es, entry{name: fmt.Sprintf("decoy%d", i), project: "p", session: "s", tool: "Bash", kind: memex.KindTool,
			input: "make", summary: "make", content: strings.Repeat("run and to, and to run. ", 4)})
	}
	for i := 0; i < 40; i++ {
		es = append(es, entry{name: fmt.Sprintf("hit%d", i), project: "p", session: "s", tool: "Bash", kind: memex.KindTool,
			input: "make", summary: "make", content: fmt.Sprintf("step %d: we had to and run it over and over again, then some more words\n", i)})
	}
	f.add(t, es...)
	for _, limit := range []int{10, 100} {
		res, err := f.ix.Search(t.Context(), Query{Text: `"to and run"`, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if res.Partial || res.Total != 40 || len(res.Hits) != min(limit, 40) {
			t.Errorf("limit %d: total %d, %d hits, partial %v; want total 40, %d hits", limit, res.Total, len(res.Hits), res.Partial, min(limit, 40))
		}
		for _, h := range res.Hits {
			if !strings.HasPrefix(h.Aliases[0], "hit") {
				t.Errorf("limit %d: %s holds no phrase", limit, h.Aliases[0])
			}
		}
	}
	// Three pieces whose pairs are all there but not in a row: the
	// content rules it out.
	f.add(t, entry{name: "pairs-apart", project: "p", session: "s", tool: "Bash", kind: memex.KindTool,
		input: "make", summary: "make", content: "alpha beta; then beta gamma\n"})
	if got := f.names(t, Query{Text: `"alpha beta gamma"`}); len(got) != 0 {
		t.Errorf(`"alpha beta gamma": %v, want none`, got)
	}
	if got := f.names(t, Query{Text: `"beta gamma"`}); !reflect.DeepEqual(got, []string{"pairs-apart"}) {
		t.Errorf(`"beta gamma": %v`, got)
	}
}
