package deref

import (
	"bytes"
	"sort"
	"strings"
	"sync"
)

// anchor is a line worth showing: it matches query terms or looks like an
// error. Higher scores are shown first.
type anchor struct {
	line, score int
	off         int // byte offset of the first match in the line, for cutting huge lines
}

// Scores: every distinct query term on a line is worth more than any error
// pattern, so a query always wins over generic error-looking lines.
const (
	scoreTerm  = 10
	scorePhase = 5 // the whole query as a phrase
	scoreError = 3
	maxAnchors = 4096
)

// errorPatterns are matched case-insensitively; together they find the
// lines a reader of a failed run looks for first.
var errorPatterns = []string{"error", "fail", "panic", "exception", "fatal", "assert"}

// queryTerms splits a query into lower-case terms, dropping duplicates.
func queryTerms(q string) []string {
	var out []string
	for _, f := range strings.Fields(string(lowerASCII([]byte(q)))) {
		dup := false
		for _, o := range out {
			dup = dup || o == f
		}
		if !dup {
			out = append(out, f)
		}
	}
	return out
}

// pattern is one lower-case string an anchor line may contain.
type pattern struct {
	p   []byte
	bit uint64 // the query term's bit (1<<63: all terms as a phrase); 0 for an error pattern
}

// anchorPatterns lists the query's terms (one bit each), the terms as a
// phrase when there are several, and the error patterns.
func anchorPatterns(query string) []pattern {
	var pats []pattern
	terms := queryTerms(query)
	for i, term := range terms {
		pats = append(pats, pattern{[]byte(term), 1 << min(i, 62)})
	}
	if len(terms) > 1 {
		pats = append(pats, pattern{[]byte(strings.Join(terms, " ")), 1 << 63})
	}
	for _, p := range errorPatterns {
		pats = append(pats, pattern{[]byte(p), 0})
	}
	return pats
}

// findAnchors scores the lines of t against the query terms and the error
// patterns, best first (ties: earlier line first). It lower-cases the body
// once (ASCII letters only, so offsets stay exact) and finds each pattern
// by a vectorised bytes.IndexByte on its rarest byte, then compares: the
// rarest byte of a pattern is rare in the body too, so the cost is about
// one pass over memory. A line's score, error flag and
// anchor offset do not depend on the order its matches are found in; the
// first maxAnchors matching lines in body order are kept, as a single
// left-to-right scan would keep them.
func findAnchors(t *text, query string) []anchor {
	n := t.lines()
	if n == 0 {
		return nil
	}
	pats := anchorPatterns(query)

	b := *t.low

	hits := map[int]*lineScore{}
	var freq *[256]int
	if len(b) > 64<<10 {
		freq = sampleFreq(b)
	}
	for _, p := range pats {
		line := 0 // 0-based index into t.starts, moving forward with the matches
		// Skip through the body on the pattern's rarest byte (the first
		// byte of "exception" is everywhere, its x is not), then compare.
		k := rarest(p.p, freq)
		c, plen := p.p[k], len(p.p)
		for off := k; off < len(b); {
			j := bytes.IndexByte(b[off:], c)
			if j < 0 {
				break
			}
			at := off + j - k
			off += j + 1
			if at+plen > len(b) || !bytes.Equal(b[at:at+plen], p.p) {
				continue
			}
			// The line holding at: the last start <= at, searched from
			// the previous match's line on (matches come in order).
			line += sort.SearchInts(t.starts[line+1:], at+1)
			h := hits[line+1]
			if h == nil {
				h = &lineScore{}
				hits[line+1] = h
			}
			h.add(p, at)
		}
	}
	out := make([]anchor, 0, len(hits))
	for ln, h := range hits {
		out = append(out, h.anchor(ln))
	}
	if len(out) > maxAnchors {
		// Keep the first maxAnchors matching lines in body order.
		sort.Slice(out, func(i, j int) bool { return out[i].line < out[j].line })
		out = out[:maxAnchors]
	}
	sortAnchors(out)
	return out
}

// lineScore is what the matches on one line add up to, however they are
// found (findAnchors by pattern over the whole body, scanLarge line by
// line as it streams): each distinct query term scoreTerm, the phrase
// scorePhase, any error pattern scoreError once.
type lineScore struct {
	score   int
	off     int    // the first match's byte offset
	termOff int    // the first query term's byte offset, when terms != 0
	terms   uint64 // the bits of the query patterns matched
	err     bool   // an error pattern matched
	hit     bool   // anything matched
}

// add counts a match of p at byte offset at of the body.
func (h *lineScore) add(p pattern, at int) {
	if !h.hit || at < h.off {
		h.off = at
	}
	h.hit = true
	if p.bit == 0 {
		h.err = true
		return
	}
	if h.terms == 0 || at < h.termOff {
		h.termOff = at
	}
	if h.terms&p.bit == 0 {
		h.score += scoreTerm
		if p.bit == 1<<63 {
			h.score += scorePhase - scoreTerm
		}
		h.terms |= p.bit
	}
}

// anchor is the line's anchor: cut at its first query term when it has
// one, else at its first match.
func (h *lineScore) anchor(line int) anchor {
	a := anchor{line: line, score: h.score, off: h.off}
	if h.err {
		a.score += scoreError
	}
	if h.terms != 0 {
		a.off = h.termOff
	}
	return a
}

// sortAnchors orders anchors best first, ties by the earlier line.
func sortAnchors(out []anchor) {
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].line < out[j].line
	})
}

// byteRank orders lower-case letters from the most to the least frequent
// in English text and code (space first); any other byte counts as rarer
// than them all.
const byteRank = " etaoinsrhldcumfpgwybvkxjqz"

// rarest returns the index of p's least frequent byte: by its count in
// freq (a sample of the body) when there is one, then by byteRank. A body's
// own frequencies matter: in a test log "run" and "pass" sit on every other
// line, so the r of "error" and the p of "panic" are common there.
func rarest(p []byte, freq *[256]int) int {
	best, bestCount, bestRank := 0, int(^uint(0)>>1), -1
	for i, c := range p {
		r := strings.IndexByte(byteRank, c)
		if r < 0 {
			r = len(byteRank)
		}
		n := 0
		if freq != nil {
			n = freq[c]
		}
		if n < bestCount || n == bestCount && r > bestRank {
			best, bestCount, bestRank = i, n, r
		}
	}
	return best
}

// sampleFreq counts the bytes of 16 slices of 2 KB spread evenly over b
// (32 KB in all): enough to tell a byte on every line from a rare one, for
// a few microseconds.
func sampleFreq(b []byte) *[256]int {
	const parts, size = 16, 2 << 10
	var f [256]int
	step := (len(b) - size) / (parts - 1)
	for i := range parts {
		for _, c := range b[i*step : i*step+size] {
			f[c]++
		}
	}
	return &f
}

// lowerPool recycles the lower-cased copy of a body between derefs.
var lowerPool = sync.Pool{New: func() any { return new([]byte) }}

func hash3(a, b, c byte) uint16 {
	return uint16((uint32(a)*0x9E37 ^ uint32(b)*0x85EB ^ uint32(c)*0xC2B2) >> 3)
}

// lowerTab folds ASCII upper case to lower case and leaves other bytes.
var lowerTab = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i + 'a' - 'A')
		}
	}
	return t
}()

// hasPrefixFold reports whether b starts with p (lower case), folding ASCII
// case in b. Matching is case-insensitive for ASCII letters only, which
// keeps offsets in the body exact whatever its encoding.
func hasPrefixFold(b, p []byte) bool {
	if len(b) < len(p) {
		return false
	}
	for i, c := range p {
		if lowerTab[b[i]] != c {
			return false
		}
	}
	return true
}

// lowerASCII lower-cases ASCII letters only.
func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = lowerTab[c]
	}
	return out
}
