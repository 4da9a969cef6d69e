package deref

import (
	"sort"
	"strings"
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

// findAnchors scores the lines of t against the query terms and the error
// patterns, best first (ties: earlier line first). It makes one pass over
// the body: a 64 Kbit table of the patterns' first two bytes (ASCII case
// folded) filters positions, so only plausible ones are compared.
func findAnchors(t *text, query string) []anchor {
	if t.lines() == 0 {
		return nil
	}
	type pat struct {
		p   []byte
		bit uint64 // 0 for an error pattern
	}
	var pats []pat
	terms := queryTerms(query)
	for i, term := range terms {
		pats = append(pats, pat{[]byte(term), 1 << min(i, 62)})
	}
	if len(terms) > 1 {
		pats = append(pats, pat{[]byte(strings.Join(terms, " ")), 1 << 63})
	}
	for _, p := range errorPatterns {
		pats = append(pats, pat{[]byte(p), 0})
	}
	// Positions are filtered by their first three bytes (hashed into a
	// 64 Kbit table), or two or one for shorter patterns.
	var filter3, filter2 [1 << 16 / 64]uint64
	var single, first [256]bool
	first['\n'] = true
	for _, p := range pats {
		first[p.p[0]] = true
		if 'a' <= p.p[0] && p.p[0] <= 'z' {
			first[p.p[0]-'a'+'A'] = true
		}
		switch len(p.p) {
		case 1:
			single[p.p[0]] = true
		case 2:
			k := uint16(p.p[0])<<8 | uint16(p.p[1])
			filter2[k/64] |= 1 << (k % 64)
		default:
			k := hash3(p.p[0], p.p[1], p.p[2])
			filter3[k/64] |= 1 << (k % 64)
		}
	}
	type hit struct {
		score, off int
		terms      uint64
		err        bool
	}
	hits := map[int]*hit{}
	b := t.b
	line := 1
	for i := 0; i < len(b); i++ {
		if !first[b[i]] {
			continue
		}
		c := lowerTab[b[i]]
		if c == '\n' {
			line++
			continue
		}
		if !single[c] {
			if i+1 >= len(b) {
				break
			}
			c1 := lowerTab[b[i+1]]
			k2 := uint16(c)<<8 | uint16(c1)
			if filter2[k2/64]&(1<<(k2%64)) == 0 {
				if i+2 >= len(b) {
					continue
				}
				k3 := hash3(c, c1, lowerTab[b[i+2]])
				if filter3[k3/64]&(1<<(k3%64)) == 0 {
					continue
				}
			}
		}
		for _, p := range pats {
			if !hasPrefixFold(b[i:], p.p) {
				continue
			}
			h := hits[line]
			if h == nil {
				if len(hits) >= maxAnchors {
					continue
				}
				h = &hit{off: i}
				hits[line] = h
			}
			switch {
			case p.bit == 0:
				h.err = true
			case h.terms&p.bit == 0:
				if h.terms == 0 {
					h.off = i
				}
				h.score += scoreTerm
				if p.bit == 1<<63 {
					h.score += scorePhase - scoreTerm
				}
				h.terms |= p.bit
			}
		}
	}
	out := make([]anchor, 0, len(hits))
	for ln, h := range hits {
		s := h.score
		if h.err {
			s += scoreError
		}
		out = append(out, anchor{line: ln, score: s, off: h.off})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].line < out[j].line
	})
	return out
}

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
