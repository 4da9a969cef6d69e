package deref

import (
	"fmt"
	"sort"
	"testing"
)

// findAnchorsScan is the single left-to-right scan findAnchors replaced,
// kept as the reference it must agree with.
func findAnchorsScan(t *text, query string) []anchor {
	if t.lines() == 0 {
		return nil
	}
	pats := anchorPatterns(query)
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

func FuzzFindAnchorsMatchesScan(f *testing.F) {
	f.Add("=== RUN TestA\n--- FAIL: TestA\n    a_test.go:3: unexpected token\nERROR x\n", "unexpected token")
	f.Add("Exception in thread main\npanic: boom\nassertion failed\n", "boom thread")
	f.Add("no match here", "")
	f.Fuzz(func(t *testing.T, body, query string) {
		tx := newText([]byte(body))
		got, want := findAnchors(tx, query), findAnchorsScan(tx, query)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("findAnchors(%q, %q) = %v, scan gives %v", body, query, got, want)
		}
	})
}
