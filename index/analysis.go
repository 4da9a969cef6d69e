package index

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	index "github.com/blevesearch/bleve_index_api"
)

// Bounds of the code tokenizer. A run of word characters longer than
// maxRunBytes is base64, a minified bundle or a hex dump: nothing a person
// types into a search box, and a large share of an index's terms if kept.
// Terms longer than maxTermBytes are dropped for the same reason.
const (
	maxRunBytes  = 256
	maxTermBytes = 128
)

// scan splits text the way people search code and tool output. A word is
// a run of letters, digits and the joiners _ . / - : \ ; for each word scan
// emits the whole word (trimmed of edge punctuation, lower-cased), then its
// parts: pieces between joiners, with camelCase and PascalCase split
// (parseConfigFile → parse, config, file; HTTPServer → http, server), then
// for paths the base name and the word without a trailing :line[:col]. So
// `parse config`, `parseConfigFile`, `middleware.go` and
// `auth/middleware.go` all find `src/auth/middleware.go:42`. Each term is
// emitted once per word; letters says it is all letters (a term the
// stemmer may change). No term is ever dropped as a stop word (short code
// tokens such as "if", "go", "on" matter here).
//
// Terms are slices of input where the word is plain lower-case, else of a
// lower-cased copy; emit must not keep them past the life of input nor
// write to them.
//
// piece, when set, is given in the same pass the pieces of every word, in
// order, as the pair field takes them (see pairsOf): the word's parts, or
// the word itself when it has one part. A piece is only valid during the
// call.
func scan(input []byte, emit func(term []byte, letters bool), piece func([]byte)) {
	var seen [][]byte // terms of the current word, for emitting each once
	i := 0
	for i < len(input) {
		c := input[i]
		if c < utf8.RuneSelf && !asciiWord[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if r, n := utf8.DecodeRune(input[i:]); !isWordRune(r) {
				i += n
				continue
			}
		}
		start := i
		simple, letters, ascii := true, true, true
		for i < len(input) {
			c = input[i]
			if c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				switch {
				case 'a' <= c && c <= 'z':
				case '0' <= c && c <= '9':
					letters = false
				default: // upper case, joiner, underscore
					simple, letters = false, false
				}
				i++
				continue
			}
			r, n := utf8.DecodeRune(input[i:])
			if !isWordRune(r) {
				break
			}
			simple, ascii = false, false
			i += n
		}
		if i-start > maxRunBytes {
			// A deep path is looked for by its directories and name.
			for _, seg := range pathSegments(input[start:i]) {
				scan(seg, emit, piece)
			}
			continue
		}
		if simple {
			if i-start <= maxTermBytes {
				emit(input[start:i:i], letters)
				if piece != nil {
					piece(input[start:i:i])
				}
			}
			continue
		}
		if ascii {
			seen = seen[:0]
			asciiTerms(input[start:i], piece, func(term []byte) {
				for _, t := range seen {
					if bytes.Equal(t, term) {
						return
					}
				}
				seen = append(seen, term)
				if len(term) <= maxTermBytes {
					emit(term, isASCIILetters(term))
				}
			})
			continue
		}
		w := wordOf(string(input[start:i]))
		for _, t := range w.terms() {
			if len(t) <= maxTermBytes {
				emit([]byte(t), isAllLetters(t))
			}
		}
		if piece == nil || w.whole == "" {
			continue
		}
		if len(w.parts) == 0 {
			if len(w.whole) <= maxTermBytes {
				piece([]byte(w.whole))
			}
			continue
		}
		for _, pc := range w.parts {
			piece([]byte(pc))
		}
	}
}

// Bounds of a run longer than maxRunBytes that is taken as a path.
const (
	maxPathRun     = 4096 // Linux's PATH_MAX
	maxPathSegment = 80
)

// pathSegments splits a run longer than maxRunBytes at its slashes when it
// is a deep path: at most maxPathRun bytes, with a slash at least every
// maxPathSegment bytes. Base64 has a slash once in 64 characters on
// average, so a long run of it has a longer stretch without one; a
// minified bundle or a hex dump has few or none. Otherwise nil.
func pathSegments(run []byte) [][]byte {
	if len(run) > maxPathRun {
		return nil
	}
	var segs [][]byte
	from := 0
	for k := 0; k <= len(run); k++ {
		if k < len(run) && run[k] != '/' && run[k] != '\\' {
			continue
		}
		if k-from > maxPathSegment {
			return nil
		}
		if k > from {
			segs = append(segs, run[from:k:k])
		}
		from = k + 1
	}
	return segs
}

// codeTokenizer is scan as a bleve tokenizer, for tests and benchmarks
// that look at the token stream (the index itself counts terms with
// termFreqs).
type codeTokenizer struct{}

func (codeTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	scan(input, func(term []byte, letters bool) {
		out = append(out, &analysis.Token{Term: term, Position: len(out) + 1,
			Type: analysis.AlphaNumeric, KeyWord: !letters})
	}, nil)
	return out
}

// termFreqs analyses one text field: its terms (stemmed when stem is set,
// as the query side stems them, see analyzeTerm) with their frequencies,
// and the number of terms, which BM25 takes as the field's length. Terms
// are counted as they are scanned and stemmed once per distinct term, not
// once per occurrence. piece, when set, takes the text's pieces from the
// same scan (see scan).
func termFreqs(text []byte, stem bool, piece func([]byte)) (index.TokenFrequencies, int) {
	guess := len(text)/16 + 1
	freqs := make(index.TokenFrequencies, guess)
	slab := make([]index.TokenFreq, 0, guess)
	var stemmable []string // distinct all-letter terms, in order
	n := 0
	scan(text, func(term []byte, letters bool) {
		n++
		if tf, ok := freqs[string(term)]; ok {
			tf.SetFrequency(tf.Frequency() + 1)
			return
		}
		if len(slab) == cap(slab) {
			slab = make([]index.TokenFreq, 0, cap(slab)*2)
		}
		slab = append(slab, index.TokenFreq{Term: term})
		tf := &slab[len(slab)-1]
		tf.SetFrequency(1)
		key := string(term)
		freqs[key] = tf
		if stem && letters && len(key) > 2 { // Porter keeps words of two letters
			stemmable = append(stemmable, key)
		}
	}, piece)
	// Take every term that stems to another out first, then put each back
	// under its stem: a stem may itself be a term of the text that stems
	// further (Porter is not idempotent), and must not be stemmed twice.
	type move struct {
		to string
		tf *index.TokenFreq
	}
	var moves []move
	for _, t := range stemmable {
		if s := stemmed(t); s != t {
			moves = append(moves, move{s, freqs[t]})
			delete(freqs, t)
		}
	}
	for _, m := range moves {
		if to, ok := freqs[m.to]; ok {
			to.SetFrequency(to.Frequency() + m.tf.Frequency())
			continue
		}
		m.tf.Term = []byte(m.to)
		freqs[m.to] = m.tf
	}
	return freqs, n
}

// The stems of recent terms: stemming is a large share of analysis, and
// the words of tool output repeat. At most maxStems are kept; past that,
// new words are stemmed each time.
var (
	stemsMu sync.RWMutex
	stems   = map[string]string{}
)

const maxStems = 1 << 17

// stemmed is the Porter stem of an all-letter, lower-case term.
func stemmed(term string) string {
	stemsMu.RLock()
	s, ok := stems[term]
	stemsMu.RUnlock()
	if ok {
		return s
	}
	ts := stemFilter.Filter(analysis.TokenStream{{Term: []byte(term)}})
	s = string(ts[0].Term)
	if s == term {
		s = term // one string for both
	}
	stemsMu.Lock()
	if len(stems) < maxStems {
		stems[term] = s
	}
	stemsMu.Unlock()
	return s
}

// stemFilter is bleve's Porter stemmer (English).
var stemFilter = porter.NewPorterStemmer()

// asciiTerms is wordOf(run).terms() for an ASCII run, without a string per
// term: every term is a slice of one lower-cased copy of the run (parts,
// the word without :line and the base name all lie inside the whole).
// emit may see a term twice; the caller drops repeats. piece, when set,
// is given the run's pieces, as scan's.
func asciiTerms(run []byte, piece, emit func([]byte)) {
	lo, hi := 0, len(run)
	for lo < hi && isJoiner(rune(run[lo])) {
		lo++
	}
	for hi > lo && isJoiner(rune(run[hi-1])) {
		hi--
	}
	if lo == hi {
		return
	}
	orig := run[lo:hi]
	low := make([]byte, len(orig))
	for k, c := range orig {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[k] = c
	}
	emit(low)
	parts := false
	part := func(a, b int) {
		if a > 0 || b < len(low) {
			parts = true
			if piece != nil {
				piece(low[a:b])
			}
			emit(low[a:b])
		}
	}
	seg := -1
	for k := 0; k <= len(orig); k++ {
		if k == len(orig) || orig[k] == '_' || isJoiner(rune(orig[k])) {
			if seg >= 0 {
				part(seg, k)
				seg = -1
			}
			continue
		}
		if seg < 0 {
			seg = k
			continue
		}
		prev, cur := orig[k-1], orig[k]
		if isUpperASCII(cur) && (isLowerASCII(prev) || isDigitASCII(prev)) ||
			isUpperASCII(prev) && isUpperASCII(cur) && k+1 < len(orig) && isLowerASCII(orig[k+1]) {
			part(seg, k)
			seg = k
		}
	}
	if !parts && piece != nil && len(low) <= maxTermBytes {
		piece(low) // one piece, the whole
	}
	base := low
	if b := stripLineSuffix(string(low)); len(b) < len(low) {
		base = low[:len(b)]
		emit(base)
	}
	if k := bytes.LastIndexAny(base, `/\`); k >= 0 && k+1 < len(base) {
		if name := base[k+1:]; bytes.ContainsAny(name, "._-") {
			emit(name)
		}
	}
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigitASCII(c byte) bool { return '0' <= c && c <= '9' }

func isASCIILetters(b []byte) bool {
	for _, c := range b {
		if !isLowerASCII(c) && !isUpperASCII(c) {
			return false
		}
	}
	return true
}

// asciiWord marks the ASCII bytes that belong to words (see isWordRune).
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

// word is one run of word characters and what it stands for.
type word struct {
	whole string   // lower-cased, trimmed of edge joiners
	parts []string // lower-cased pieces; nil when the whole has one piece
	extra []string // base name, whole without :line
}

// wordOf analyses one run of word characters (as found by the tokenizer
// or typed by a user in a query).
func wordOf(run string) word {
	trimmed := strings.TrimFunc(run, isJoiner)
	if trimmed == "" {
		return word{}
	}
	w := word{whole: strings.ToLower(trimmed)}
	pieces := splitPieces(trimmed)
	if len(pieces) > 1 || (len(pieces) == 1 && pieces[0] != w.whole) {
		w.parts = pieces
	}
	base := stripLineSuffix(w.whole)
	if base != w.whole {
		w.extra = append(w.extra, base)
	}
	if k := strings.LastIndexAny(base, `/\`); k >= 0 && k+1 < len(base) {
		if name := base[k+1:]; name != base && strings.ContainsAny(name, "._-") {
			w.extra = append(w.extra, name)
		}
	}
	return w
}

// terms lists what the tokenizer emits for w: whole, parts, extras, each
// once.
func (w word) terms() []string {
	ts := make([]string, 0, 1+len(w.parts)+len(w.extra))
	ts = append(ts, w.whole)
	for _, group := range [][]string{w.parts, w.extra} {
	next:
		for _, t := range group {
			for _, seen := range ts {
				if seen == t {
					continue next
				}
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// splitPieces splits s at joiners and at case changes, lower-casing each
// piece.
func splitPieces(s string) []string {
	var pieces []string
	for _, seg := range strings.FieldsFunc(s, func(r rune) bool { return isJoiner(r) || r == '_' }) {
		pieces = append(pieces, splitCamel(seg)...)
	}
	return pieces
}

// splitCamel splits an identifier at lower→Upper changes and before the
// last capital of an upper-case run followed by a lower-case letter
// (HTTPServer → http, server). Digits stay with what precedes them
// (int64, utf8, sha256).
func splitCamel(s string) []string {
	runes := []rune(s)
	var out []string
	start := 0
	for k := 1; k < len(runes); k++ {
		prev, cur := runes[k-1], runes[k]
		split := false
		switch {
		case unicode.IsUpper(cur) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			split = true
		case unicode.IsUpper(prev) && unicode.IsUpper(cur) && k+1 < len(runes) && unicode.IsLower(runes[k+1]):
			split = true
		}
		if split {
			out = append(out, strings.ToLower(string(runes[start:k])))
			start = k
		}
	}
	return append(out, strings.ToLower(string(runes[start:])))
}

// stripLineSuffix cuts s at its first colon followed by a digit
// (file.go:12:5 → file.go, src/a.py:88:def → src/a.py), where compiler
// and grep output put line numbers.
func stripLineSuffix(s string) string {
	for k := 1; k+1 < len(s); k++ {
		if s[k] == ':' && s[k+1] >= '0' && s[k+1] <= '9' {
			return s[:k]
		}
	}
	return s
}

func isWordRune(r rune) bool {
	return r == '_' || isJoiner(r) || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isJoiner(r rune) bool {
	switch r {
	case '.', '/', '-', ':', '\\':
		return true
	}
	return false
}

func isAllLetters(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// analyzeTerm returns the single term the index makes of one already
// split piece (lower-cased, stemmed when the field stems and the piece is
// all letters).
func analyzeTerm(stem bool, piece string) string {
	if !stem || !isAllLetters(piece) {
		return piece
	}
	return stemmed(piece)
}
