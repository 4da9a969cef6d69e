package deref

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"unicode/utf8"

	"github.com/memex-archive/memex"
)

// LargeBody is the body size above which a deref does not read an entry
// whole: it streams the body once to index its lines and find its
// anchors, then reads only the lines it shows, from the chunks that hold
// them (a Store with Lines). Memory is then the line index (a few bytes a
// line) and a few pages of lines, not the body.
const LargeBody = 16 << 20

// largeBody is LargeBody, lowered by tests to check that both ways of
// reading plan the same.
var largeBody int64 = LargeBody

// LineStore is what a deref of a large entry needs beside Store: lines
// from..to (1-based, inclusive; to <= 0 to the end) of an entry's body,
// read from the chunks that hold them. archive.Store satisfies it.
type LineStore interface {
	Lines(ctx context.Context, id memex.ID, from, to int64) (io.ReadCloser, error)
}

// Pages of a large text: runs of whole lines read together, a few kept.
const (
	pageBytes = 1 << 20
	pageLines = 4096
	pageCount = 8
)

// page is lines from..to of a large text, b their bytes.
type page struct {
	from, to int
	b        []byte
}

// largeText is the part of text that reads a large body on demand.
type largeText struct {
	ctx   context.Context
	lines func(ctx context.Context, from, to int) (io.ReadCloser, error)
	tok   map[int]int32
	pages []*page // most recently used last
	err   error   // the first read that failed; the deref returns it
}

// scanLarge streams body (size bytes, n lines as the archive counted
// them) once: it records where each line starts and scores the lines
// against query as findAnchors does, each line matched in pieces of at
// most 64 KiB (a match across two pieces of a huge line is missed).
func scanLarge(ctx context.Context, body io.Reader, size, n int64, query string) (*text, []anchor, error) {
	t := &text{size: int(size), starts: make([]int, 0, max(n, 1))}
	if size == 0 {
		t.starts = nil
		return t, nil, nil
	}
	pats := anchorPatterns(query)
	br := bufio.NewReaderSize(body, 64<<10)
	var low []byte
	var out []anchor
	off, lineStart := 0, true
	var valid utf8Stream
	var cur lineScore // of line len(t.starts)
	flush := func() {
		if cur.hit && len(out) < maxAnchors {
			out = append(out, cur.anchor(len(t.starts)))
		}
	}
	for pieces := 0; ; pieces++ {
		if pieces%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		seg, err := br.ReadSlice('\n')
		if len(seg) > 0 {
			if lineStart {
				flush()
				t.starts = append(t.starts, off)
				cur = lineScore{}
			}
			valid.write(seg)
			low = append(low[:0], seg...)
			for i, c := range low {
				low[i] = lowerTab[c]
			}
			for _, p := range pats {
				at := bytes.Index(low, p.p)
				if at < 0 {
					continue
				}
				cur.add(p, at+off)
			}
			off += len(seg)
			lineStart = seg[len(seg)-1] == '\n'
			t.last = seg[len(seg)-1]
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
	}
	flush()
	t.binary = !valid.end()
	if off != int(size) {
		return nil, nil, fmt.Errorf("body has %d bytes, its metadata says %d: %w", off, size, memex.ErrCorrupt)
	}
	sortAnchors(out)
	return t, out, nil
}

// largeLineTokens counts line i of a large text, reading its page.
func (t *text) largeLineTokens(i int) int {
	if v, ok := t.lg.tok[i]; ok {
		return int(v)
	}
	s, e := t.bounds(i, i)
	n := 1 << 30
	if e-s <= hugeLine {
		if b, ok := t.pageSlice(s, e); ok {
			n = count(string(b))
		}
	}
	t.lg.tok[i] = int32(min(n, 1<<30))
	return n
}

// lineAt returns the line holding byte off.
func (t *text) lineAt(off int) int {
	return sort.Search(len(t.starts), func(i int) bool { return t.starts[i] > off })
}

// slice returns bytes [s, e) of the body. For a large text they are read
// (from a page when one holds them); a failed read leaves them short and
// records the error.
func (t *text) slice(s, e int) []byte {
	if t.lg == nil {
		return t.b[s:e]
	}
	if b, ok := t.pageSlice(s, e); ok {
		return b
	}
	l := t.lineAt(s)
	rc, err := t.lg.lines(t.lg.ctx, l, t.lineAt(e-1))
	if err != nil {
		t.fail(err)
		return nil
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, int64(s-t.starts[l-1])); err != nil {
		t.fail(err)
		return nil
	}
	b := make([]byte, e-s)
	if _, err := io.ReadFull(rc, b); err != nil {
		t.fail(err)
		return nil
	}
	return b
}

// byteAt returns byte i of the body.
func (t *text) byteAt(i int) byte {
	if t.lg == nil {
		return t.b[i]
	}
	if b := t.slice(i, i+1); len(b) == 1 {
		return b[0]
	}
	return 0
}

func (t *text) fail(err error) {
	if t.lg.err == nil {
		t.lg.err = err
	}
}

// pageSlice returns bytes [s, e) from a page of whole lines, reading the
// page when none holds them; false when they span more than a page can.
func (t *text) pageSlice(s, e int) ([]byte, bool) {
	lg := t.lg
	for i, p := range lg.pages {
		ps, pe := t.bounds(p.from, p.to)
		if s >= ps && e <= pe {
			copy(lg.pages[i:], lg.pages[i+1:])
			lg.pages[len(lg.pages)-1] = p
			return p.b[s-ps : e-ps], true
		}
	}
	from, to := t.lineAt(s), t.lineAt(e-1)
	ps, _ := t.bounds(from, from)
	for to < len(t.starts) && to-from < pageLines {
		if _, ne := t.bounds(from, to+1); ne-ps > pageBytes {
			break
		}
		to++
	}
	ps, pe := t.bounds(from, to)
	if e > pe || pe-ps > pageBytes {
		return nil, false
	}
	rc, err := lg.lines(lg.ctx, from, to)
	if err != nil {
		t.fail(err)
		return nil, false
	}
	defer rc.Close()
	b := make([]byte, pe-ps)
	if _, err := io.ReadFull(rc, b); err != nil {
		t.fail(err)
		return nil, false
	}
	p := &page{from: from, to: to, b: b}
	if len(lg.pages) >= pageCount {
		lg.pages = lg.pages[1:]
	}
	lg.pages = append(lg.pages, p)
	return p.b[s-ps : e-ps], true
}

// utf8Stream checks that a body read in pieces is valid UTF-8, a rune cut
// between two pieces included.
type utf8Stream struct {
	carry []byte // the start of a rune the last piece cut
	bad   bool
}

func (u *utf8Stream) write(p []byte) {
	if u.bad {
		return
	}
	if len(u.carry) > 0 {
		// Complete the cut rune with the first bytes of p.
		need := min(utf8.UTFMax-len(u.carry), len(p))
		b := append(u.carry, p[:need]...)
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(b) && need == len(p) {
				u.carry = b
				return
			}
			u.bad = true
			return
		}
		p = p[n-len(u.carry):]
		u.carry = u.carry[:0]
	}
	// Hold back a rune cut at the end of p.
	cut := 0
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = len(p) - i
			}
			break
		}
	}
	if !utf8.Valid(p[:len(p)-cut]) {
		u.bad = true
		return
	}
	u.carry = append(u.carry[:0], p[len(p)-cut:]...)
}

// end reports whether every piece written was valid UTF-8.
func (u *utf8Stream) end() bool { return !u.bad && len(u.carry) == 0 }
