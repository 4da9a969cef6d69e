package summarize

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// joinFieldsReference is what joinFields replaces.
func joinFieldsReference(s string) string { return strings.Join(strings.Fields(s), " ") }

func TestJoinFieldsAsStringsFields(t *testing.T) {
	cases := []string{"", " ", "a", " a", "a ", "a b", "a  b", "a\tb", "a\nb", " a b ", "a \u00a0b", "\u0085a",
		"a\u2003b", "ä ö", "ä  ö ", "\u3000", "x\u3000", "\u00a0\u00a0", "a b c d", "a\r\nb", "a\vb\fc", "ünïcödé ✓ x"}
	pieces := []string{"a", "bc", " ", "  ", "\t", "\n", "\r", "\v", "\f", "\u00a0", "\u0085", "\u2003", "\u3000", "é", "✓", "\u200b", "\ufeff", "x y"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		if got, want := joinFields(s), joinFieldsReference(s); got != want {
			t.Fatalf("joinFields(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzJoinFields(f *testing.F) {
	for _, s := range []string{"", "a  b", " x\u00a0y\t", "ä\u2003ö"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		if !utf8.ValidString(s) {
			t.Skip()
		}
		if got, want := joinFields(s), joinFieldsReference(s); got != want {
			t.Fatalf("joinFields(%q) = %q, want %q", s, got, want)
		}
	})
}
