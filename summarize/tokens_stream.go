package summarize

import (
	"io"
	"unicode/utf8"
)

// Counter counts the cl100k_base tokens of a body written to it in parts of
// any size, in bounded memory: after any sequence of writes, Count returns
// exactly Count of all the bytes written so far, wherever the writes split
// them — up to the one documented exception below. A Counter is not safe
// for concurrent use; use one per goroutine (they share the vocabulary and
// the piece cache).
//
// It counts every pre-token piece as soon as bytes written later can no
// longer change it, and carries the rest: the last piece, or the trailing
// run of whitespace pieces (whose split depends on where the whitespace
// ends), plus at most 3 bytes of an unfinished UTF-8 sequence. A piece is
// settled once its match has looked at a byte past its end: the
// alternatives of the split pattern look at most one rune past a piece,
// except the whitespace ones, which look to the end of the whitespace run.
// So the carry is about one piece long, and the Counter holds at most
// 2·maxCarry + 64 KiB, about 2.1 MiB.
//
// The exception: a single piece or whitespace run longer than maxCarry
// (1 MiB, e.g. a megabyte of one repeated symbol with no letter, digit or
// line break in it) is counted in slices of 1 to 2 MiB, as if the body
// ended after each; each such cut can change the total by a token or two
// (the byte-pair merges at the cut), one cut per MiB or two of that run.
// Text has no such runs; see docs/tokenizer.md for the measured bound.
type Counter struct {
	buf      []byte // bytes not yet counted
	total    int64  // tokens of the bytes already counted
	next     int    // process buf when it reaches this length
	chunk    int    // least growth of buf between two flushes
	maxCarry int
}

const (
	counterChunk    = 64 << 10
	counterMaxCarry = 1 << 20
)

// NewCounter returns an empty Counter.
func NewCounter() *Counter {
	return &Counter{next: counterChunk, chunk: counterChunk, maxCarry: counterMaxCarry}
}

// CountReader counts the tokens of everything r reads, in bounded memory
// whatever its size, and the bytes read.
func CountReader(r io.Reader) (tokens, n int64, err error) {
	c := NewCounter()
	n, err = io.Copy(c, r)
	return c.Count(), n, err
}

// Write adds p to the body. It never fails; p is not retained.
func (c *Counter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), max(c.next-len(c.buf), 1))
		c.buf = append(c.buf, p[:k]...)
		p = p[k:]
		if len(c.buf) >= c.next {
			c.flush()
			c.next = len(c.buf) + max(len(c.buf), c.chunk)
		}
	}
	return n, nil
}

// WriteString is Write for a string.
func (c *Counter) WriteString(s string) (int, error) { return c.Write(stringBytes(s)) }

// Count returns the number of tokens of everything written so far, as if
// the body ended here. Writing may go on after it.
func (c *Counter) Count() int64 { return c.total + int64(Count(c.buf)) }

// Reset empties the counter for a new body, keeping its buffer.
func (c *Counter) Reset() {
	c.buf = c.buf[:0]
	c.total = 0
	c.next = c.chunk
}

// flush counts the settled pieces of buf and keeps the rest.
func (c *Counter) flush() {
	end := len(c.buf) - unfinishedRune(c.buf)
	if !utf8.Valid(c.buf[:end]) {
		// Replacing is local to each decoding step and end is a step
		// boundary, so the replaced bytes count as the original would.
		tail := len(c.buf) - end
		v := appendValid(make([]byte, 0, len(c.buf)+end/2), c.buf[:end])
		c.buf = append(v, c.buf[end:]...)
		end = len(c.buf) - tail
	}
	t := vocab()
	b := c.buf[:end:end]
	// cut is where the unsettled carry starts; counted is the token count
	// of b[:cut].
	cut, counted, tokens := 0, 0, 0
	spaceStart, spaceTokens := -1, 0
	for i := 0; i < len(b); {
		e, kind := nextPiece(b, i)
		space := kind == pieceSpace
		if !space {
			spaceStart = -1
		} else if spaceStart < 0 {
			spaceStart, spaceTokens = i, tokens
		}
		if e == len(b) {
			// The last piece: its match reached the end of what is known.
			cut, counted = i, tokens
			if space {
				cut, counted = spaceStart, spaceTokens
			}
			break
		}
		if kind != pieceSkip {
			tokens += countPiece(t, b[i:e])
		}
		i = e
	}
	c.total += int64(counted)
	rest := copy(c.buf, c.buf[cut:])
	c.buf = c.buf[:rest]
	if end := len(c.buf) - unfinishedRune(c.buf); end > c.maxCarry {
		// One piece longer than maxCarry: count it as if the body ended
		// here (see the type's doc for the error this allows).
		c.total += int64(countValid(t, c.buf[:end]))
		rest := copy(c.buf, c.buf[end:])
		c.buf = c.buf[:rest]
	}
}

// unfinishedRune returns the length of the suffix of b that starts a UTF-8
// sequence more bytes could still complete (0 to 3 bytes). Cutting before
// it is safe: a byte that is not a continuation byte always starts a
// decoding step, so the bytes before decode the same whatever follows.
func unfinishedRune(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}
