package index

import bindex "github.com/blevesearch/bleve_index_api"

// The pair field (fPair) holds, for every two pieces that follow each
// other in an entry's summary, agent summary, command or content and of
// which one at least is a stop word, the term "a b": the pieces
// lower-cased and unstemmed, as a quoted phrase is matched. A phrase's
// candidates are the entries holding its words in one field and each of
// its pairs, taken from the index; the content then confirms them (the
// order of three pieces or more: holding "a b" and "b c" is not holding
// "a b c"). The pieces of a text are those of its query words (wordsOf):
// each word's parts, or the word when it has one part (see phraseMatcher).
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
// holds this), without a string per word. A text whose terms are counted
// too gives its pairs from the same scan (termFreqs with a pairer's
// piece).
func pairsOf(text []byte, add func(pair []byte)) {
	p := pairer{add: add}
	scan(text, func([]byte, bool) {}, p.piece)
}

// pairer carries the previous piece across the words of one text.
type pairer struct {
	add  func([]byte)
	prev []byte // the previous piece (a copy), nil at the start
	buf  []byte // prev, then " ", then the current piece
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

// pairSet holds the pair terms of an entry, each once.
type pairSet struct {
	freqs bindex.TokenFrequencies
	slab  []bindex.TokenFreq
}

func newPairSet(guess int) *pairSet {
	return &pairSet{freqs: make(bindex.TokenFrequencies, guess)}
}

func (s *pairSet) add(t []byte) {
	if _, ok := s.freqs[string(t)]; ok {
		return
	}
	if len(s.slab) == cap(s.slab) {
		s.slab = make([]bindex.TokenFreq, 0, max(64, 2*cap(s.slab)))
	}
	key := string(t)
	s.slab = append(s.slab, bindex.TokenFreq{Term: []byte(key)})
	s.freqs[key] = &s.slab[len(s.slab)-1]
}

// pairer is a pairer of one text into s.
func (s *pairSet) pairer() *pairer { return &pairer{add: s.add} }

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
