package index

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// phraseRegexpOf is the expression phraseMatcher stands for: the pieces
// in order, separated by anything but letters and digits.
func phraseRegexpOf(m phraseMatcher) *regexp.Regexp {
	var quoted []string
	for _, p := range m.pieces {
		quoted = append(quoted, regexp.QuoteMeta(string(p)))
	}
	return regexp.MustCompile(strings.Join(quoted, `[^\pL\pN]*`))
}

func matcherOf(pieces ...string) phraseMatcher {
	var ph qphrase
	for _, p := range pieces {
		ph.words = append(ph.words, qword{w: word{whole: p}})
	}
	return newPhraseMatcher(ph)
}

func TestPhraseMatcher(t *testing.T) {
	for _, c := range []struct {
		pieces []string
		text   string
		want   bool
	}{
		{[]string{"parse", "config"}, "we parse config files", true},
		{[]string{"parse", "config"}, "call parseconfig()", true},
		{[]string{"parse", "config"}, "parse_config and parse-config", true},
		{[]string{"parse", "config"}, "parse the config", false},
		{[]string{"parse", "config"}, "config parse", false},
		{[]string{"of", "the", "file"}, "the end of the file", true},
		{[]string{"of", "the", "file"}, "of the files", true},
		{[]string{"of", "the", "file"}, "of theme file", false},
		{[]string{"of", "the", "file"}, "of the\u00a0file", true},
		{[]string{"of", "the", "file"}, "of the é file", false},
		{[]string{"no", "such"}, "no\xffsuch", true},
		{[]string{"no", "such"}, "no ² such", false}, // ² is a number
		{[]string{"aa", "ab"}, "aaa ab", true},       // a later start of the first piece
		{[]string{"a"}, "", false},
	} {
		m := matcherOf(c.pieces...)
		if got := m.match([]byte(c.text)); got != c.want {
			t.Errorf("%q in %q: %v, want %v", c.pieces, c.text, got, c.want)
		}
		if ref := phraseRegexpOf(m).MatchString(c.text); ref != c.want {
			t.Errorf("%q in %q: the expression says %v", c.pieces, c.text, ref)
		}
	}
}

// TestPhraseMatcherAgreesWithItsExpression checks the matcher against
// the regular expression it replaces on random texts and phrases over a
// small alphabet of letters, digits, separators and invalid bytes.
func TestPhraseMatcherAgreesWithItsExpression(t *testing.T) {
	alphabet := []string{"a", "b", "1", " ", "-", "_", ".", "é", "²", "\u00a0", "\xff", "!"}
	pieceAlphabet := []string{"a", "b", "1", "é", "!", "-"}
	r := rand.New(rand.NewPCG(1, 2))
	draw := func(from []string, n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteString(from[r.IntN(len(from))])
		}
		return sb.String()
	}
	matched := 0
	for range 20000 {
		pieces := make([]string, 1+r.IntN(3))
		for k := range pieces {
			pieces[k] = draw(pieceAlphabet, 1+r.IntN(2))
		}
		text := draw(alphabet, r.IntN(14))
		m := matcherOf(pieces...)
		got, want := m.match([]byte(text)), phraseRegexpOf(m).MatchString(text)
		if got != want {
			t.Fatalf("%q in %q: %v, the expression %v", pieces, text, got, want)
		}
		if got {
			matched++
		}
	}
	if matched < 500 {
		t.Fatalf("only %d of the random texts matched: the check says little", matched)
	}
}

func FuzzPhraseMatcher(f *testing.F) {
	f.Add("parse", "config", "parse_config")
	f.Add("of", "the", "of\u00a0the")
	f.Fuzz(func(t *testing.T, a, b, text string) {
		a, b = strings.ToLower(a), strings.ToLower(b)
		// A query's pieces are words: never empty, never U+FFFD, which
		// the expression would also find in place of a byte that is not
		// UTF-8 (ToLower makes such bytes U+FFFD).
		if a == "" || b == "" || strings.ContainsRune(a+b, utf8.RuneError) {
			return
		}
		m := matcherOf(a, b)
		if got, want := m.match([]byte(text)), phraseRegexpOf(m).MatchString(text); got != want {
			t.Fatalf("%q %q in %q: %v, the expression %v", a, b, text, got, want)
		}
	})
}
