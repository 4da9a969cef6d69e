package index

import (
	"unicode/utf8"
)

// The pair field (fPair) holds, for every two pieces that follow each
// other in an entry's summary, agent summary, command or content and of
// which one at least is a stop word, the term "a b": the pieces
// lower-cased and unstemmed, as a quoted phrase is matched. A phrase's
// candidates are the entries holding its words in one field and each of
// its pairs, taken from the index; the content then confirms them (the
// order of three pieces or more: holding "a b" and "b c" is not holding
// "a b c"). The pieces of a text are those of its query words (wordsOf):
// each word's parts, or the word when it has one part (see phraseRegexp).
//
// Only pairs with a stop word (common grams): a phrase's other words are
// rare enough to narrow its candidates by themselves, while "to and run"
// or "no such file or directory" are held in some order by most entries
// that hold their words at all. Indexing every pair instead cost three
// times the ingest CPU and more than twice the index (docs/search.md).

// maxPairBytes bounds a pair term; a longer pair is not indexed (nor asked
// for).
const maxPairBytes = maxTermBytes

// pairsOf calls add with every pair of adjacent pieces of text of which
// one is a stop word. A term passed to add is only valid during the call.
// It gives what pieces(wordsOf(text)) gives, pair by pair (a fuzz test
// holds this), without a string per word.
func pairsOf(text []byte, add func(pair []byte)) {
	var p pairer
	p.add = add
	p.text(text)
}

// pairer carries the previous piece across the words of one text.
type pairer struct {
	add  func([]byte)
	prev []byte // the previous piece (a copy), nil at the start
	buf  []byte // prev, then " ", then the current piece
	low  []byte // the lower-cased run
	has  bool   // prev holds a piece
	// prevStop says prev is a stop word.
	prevStop bool
}

func (p *pairer) piece(pc []byte) {
	stop := len(pc) <= maxStopWord && stopWords[string(pc)]
	if p.has && (stop || p.prevStop) && len(p.prev)+1+len(pc) <= maxPairBytes {
		p.buf = append(append(append(p.buf[:0], p.prev...), ' '), pc...)
		p.add(p.buf)
	}
	p.prev = append(p.prev[:0], pc...)
	p.has, p.prevStop = true, stop
}

// maxStopWord is the length of the longest stop word.
var maxStopWord = func() int {
	n := 0
	for w := range stopWords {
		n = max(n, len(w))
	}
	return n
}()

func (p *pairer) text(input []byte) {
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
		ascii := true
		for i < len(input) {
			c = input[i]
			if c < utf8.RuneSelf {
				if !asciiWord[c] {
					break
				}
				i++
				continue
			}
			r, n := utf8.DecodeRune(input[i:])
			if !isWordRune(r) {
				break
			}
			ascii = false
			i += n
		}
		p.run(input[start:i], ascii)
	}
}

// run adds the pieces of one run of word characters.
func (p *pairer) run(run []byte, ascii bool) {
	if len(run) > maxRunBytes {
		for _, seg := range pathSegments(run) {
			p.text(seg)
		}
		return
	}
	if !ascii {
		w := wordOf(string(run))
		if w.whole == "" || len(w.whole) > maxTermBytes && len(w.parts) == 0 {
			return
		}
		if len(w.parts) == 0 {
			p.piece([]byte(w.whole))
			return
		}
		for _, pc := range w.parts {
			p.piece([]byte(pc))
		}
		return
	}
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
	p.low = p.low[:0]
	for _, c := range orig {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		p.low = append(p.low, c)
	}
	// Split at joiners and underscores and at case changes, as splitPieces.
	var cuts [64][2]int
	pieces := cuts[:0]
	seg := -1
	for k := 0; k <= len(orig); k++ {
		if k == len(orig) || orig[k] == '_' || isJoiner(rune(orig[k])) {
			if seg >= 0 {
				pieces = append(pieces, [2]int{seg, k})
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
			pieces = append(pieces, [2]int{seg, k})
			seg = k
		}
	}
	if len(pieces) == 1 && pieces[0] == [2]int{0, len(orig)} {
		pieces = pieces[:0] // one piece, the whole: no parts
	}
	if len(pieces) == 0 {
		if len(p.low) <= maxTermBytes {
			p.piece(p.low)
		}
		return
	}
	for _, c := range pieces {
		p.piece(p.low[c[0]:c[1]])
	}
}

// phrasePairs are the pair terms of a phrase: those of its pieces.
func phrasePairs(ph qphrase) []string {
	var out []string
	seen := map[string]bool{}
	var p pairer
	p.add = func(t []byte) {
		if !seen[string(t)] {
			seen[string(t)] = true
			out = append(out, string(t))
		}
	}
	for _, w := range ph.words {
		if len(w.w.parts) == 0 {
			p.piece([]byte(w.w.whole))
			continue
		}
		for _, pc := range w.w.parts {
			p.piece([]byte(pc))
		}
	}
	return out
}
