package deref

import (
	"bytes"
	"sync"
)

// text indexes an entry's body by line. Lines are 1-based; a line includes
// its '\n'; a last line without '\n' counts, as in the archive. Token counts
// of lines are computed on demand and cached, because counting is the
// expensive part of a deref and most lines of a large body are never shown.
type text struct {
	b      []byte
	starts []int   // starts[i] is the byte offset of line i+1
	tok    []int32 // tok[i] is the token count of line i+1, or -1
}

// lineIndexPool recycles the starts and tok slices of released texts.
var lineIndexPool = sync.Pool{New: func() any { return new(lineIndex) }}

type lineIndex struct {
	starts []int
	tok    []int32
}

func newText(b []byte) *text {
	t := &text{b: b}
	if len(b) == 0 {
		return t
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	li := lineIndexPool.Get().(*lineIndex)
	t.starts = li.starts[:0]
	if cap(t.starts) < n {
		t.starts = make([]int, 0, n)
	}
	t.tok = li.tok[:0]
	if cap(t.tok) < n {
		t.tok = make([]int32, 0, n)
	}
	t.starts = append(t.starts, 0)
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 || off+i+1 >= len(b) {
			break
		}
		off += i + 1
		t.starts = append(t.starts, off)
	}
	t.tok = t.tok[:len(t.starts)]
	for i := range t.tok {
		t.tok[i] = -1
	}
	return t
}

// release hands t's line index back for reuse; t must not be used after.
func (t *text) release() {
	if t == nil || t.starts == nil {
		return
	}
	lineIndexPool.Put(&lineIndex{starts: t.starts, tok: t.tok})
	t.b, t.starts, t.tok = nil, nil, nil
}

// lines returns the number of lines.
func (t *text) lines() int { return len(t.starts) }

// bounds returns the byte span [start, end) of lines from..to.
func (t *text) bounds(from, to int) (int, int) {
	end := len(t.b)
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
