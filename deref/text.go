package deref

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// text indexes an entry's body by line. Lines are 1-based; a line includes
// its '\n'; a last line without '\n' counts, as in the archive. Token counts
// of lines are computed on demand and cached, because counting is the
// expensive part of a deref and most lines of a large body are never shown.
type text struct {
	b      []byte // the body; nil for a large one (lg)
	size   int    // len of the body
	last   byte   // its last byte
	lg     *largeText
	low    *[]byte // b with ASCII letters lower-cased, from lowerPool
	starts []int   // starts[i] is the byte offset of line i+1
	tok    []int32 // tok[i] is the token count of line i+1, or -1
	binary bool    // a large body found not valid UTF-8 by scanLarge
}

// lineIndexPool recycles the starts and tok slices of released texts.
var lineIndexPool = sync.Pool{New: func() any { return new(lineIndex) }}

type lineIndex struct {
	starts []int
	tok    []int32
}

func newText(b []byte) *text {
	t := &text{b: b, size: len(b)}
	if len(b) == 0 {
		return t
	}
	t.last = b[len(b)-1]
	li := lineIndexPool.Get().(*lineIndex)
	low := lowerPool.Get().(*[]byte)
	t.low = low
	*low, t.starts = lowerLines((*low)[:0], b, li.starts[:0])
	t.tok = li.tok[:0]
	if cap(t.tok) < len(t.starts) {
		t.tok = make([]int32, 0, len(t.starts))
	}
	t.tok = t.tok[:len(t.starts)]
	for i := range t.tok {
		t.tok[i] = -1
	}
	return t
}

// lowerLines appends b with ASCII letters lower-cased to dst, and the
// offsets of b's lines to starts (0 first; no start after a final '\n'),
// in one pass of eight bytes at a time: for each byte in 'A'..'Z' it adds
// 0x20, leaving every other byte (UTF-8 sequences included) as it is.
func lowerLines(dst, b []byte, starts []int) ([]byte, []int) {
	const (
		hi   = 0x8080808080808080
		lo7  = 0x7f7f7f7f7f7f7f7f
		nl   = 0x0a0a0a0a0a0a0a0a
		capA = 0x4141414141414141
		capZ = 0x5b5b5b5b5b5b5b5b
	)
	n := len(dst)
	dst = append(dst, b...)
	d := dst[n:]
	starts = append(starts, 0)
	i := 0
	for ; i+8 <= len(d); i += 8 {
		w := binary.LittleEndian.Uint64(d[i:])
		// Per byte: set the high bit where 'A' <= byte <= 'Z' (bytes with
		// the high bit set are excluded).
		ge := (w | hi) - capA // >= 'A' keeps the high bit
		gt := (w | hi) - capZ // > 'Z' keeps the high bit
		upper := ge &^ gt &^ w & hi
		binary.LittleEndian.PutUint64(d[i:], w|upper>>2)
		// The high bit of every byte equal to '\n', exactly (no borrow
		// crosses bytes: the low seven bits are added apart).
		x := w ^ nl
		for m := ^(((x & lo7) + lo7) | x) & hi; m != 0; m &= m - 1 {
			if at := i + bits.TrailingZeros64(m)/8 + 1; at < len(d) {
				starts = append(starts, at)
			}
		}
	}
	for ; i < len(d); i++ {
		c := d[i]
		if 'A' <= c && c <= 'Z' {
			d[i] = c + 'a' - 'A'
		} else if c == '\n' && i+1 < len(d) {
			starts = append(starts, i+1)
		}
	}
	return dst, starts
}

// release hands t's line index back for reuse; t must not be used after.
func (t *text) release() {
	if t == nil || t.starts == nil || t.lg != nil {
		return
	}
	lineIndexPool.Put(&lineIndex{starts: t.starts, tok: t.tok})
	lowerPool.Put(t.low)
	t.b, t.low, t.starts, t.tok = nil, nil, nil, nil
}

// lines returns the number of lines.
func (t *text) lines() int { return len(t.starts) }

// bounds returns the byte span [start, end) of lines from..to.
func (t *text) bounds(from, to int) (int, int) {
	end := t.size
	if to < len(t.starts) {
		end = t.starts[to]
	}
	return t.starts[from-1], end
}

// line returns line i's bytes, '\n' included.
func (t *text) line(i int) []byte {
	s, e := t.bounds(i, i)
	return t.b[s:e]
}

// hugeLine is the size above which a line is not counted exactly: such a
// line is treated as exceeding any budget and cut (counting a megabyte takes
// a large fraction of a second).
const hugeLine = 64 << 10

// lineTokens returns the exact token count of line i, or a value above any
// budget for a huge line.
func (t *text) lineTokens(i int) int {
	if t.lg != nil {
		return t.largeLineTokens(i)
	}
	if v := t.tok[i-1]; v >= 0 {
		return int(v)
	}
	l := t.line(i)
	var n int
	if len(l) > hugeLine {
		n = 1 << 30
	} else {
		n = count(string(l))
	}
	t.tok[i-1] = int32(min(n, 1<<30))
	return n
}

// spanTokens sums the line counts of from..to.
func (t *text) spanTokens(from, to int) int {
	n := 0
	for i := from; i <= to; i++ {
		n += t.lineTokens(i)
		if n >= 1<<30 {
			return 1 << 30
		}
	}
	return n
}
