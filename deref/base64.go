package deref

import (
	"encoding/base64"

	"github.com/memex-archive/memex"
)

// base64Line is the bytes one line of base64 content encodes: 76 columns,
// as MIME wraps it.
const base64Line = 57

// base64Body is what an item of a binary entry read as base64 knows of
// the bytes behind its lines.
type base64Body struct {
	size  int64 // the entry's bytes
	head  int64 // the bytes the item's text encodes, from the start
	lines int   // base64 lines of the whole entry
}

// base64Head is the most bytes of a binary entry that a budget of budget
// tokens can show as base64: no token of base64 text spans 16 characters
// (12 bytes), so more would be encoded only to be cut.
func base64Head(budget int) int64 {
	n := int64(budget)*12 + base64Line
	return n - n%base64Line
}

// base64Item is the item of binary entry e read as base64: head is the
// start of its body (all of it, or what base64Head allows); brief is
// Options.Brief.
func base64Item(e memex.Entry, head []byte, budget int, brief bool) *item {
	head = head[:min(int64(len(head)), base64Head(budget))]
	b := &base64Body{size: e.Bytes, head: int64(len(head)), lines: int((e.Bytes + base64Line - 1) / base64Line)}
	enc := make([]byte, 0, base64.StdEncoding.EncodedLen(len(head))+len(head)/base64Line+1)
	for len(head) > 0 {
		n := min(len(head), base64Line)
		enc = base64.StdEncoding.AppendEncode(enc, head[:n])
		enc = append(enc, '\n')
		head = head[n:]
	}
	it := newItem(e.ID.String(), headerOf(e, brief)+" · base64 of "+plural(int(e.Bytes), "byte"), -1, enc, "")
	it.brief = brief
	it.anchor = nil // no line of base64 reads as an error or a match
	it.binary, it.b64 = true, b
	return it
}

// cut reports whether the item's text stops before the entry's end.
func (b *base64Body) cut() bool { return b.head < b.size }

// marker is the line of what a base64 item left out: lines from.. to the
// end of the entry.
func (b *base64Body) marker(id string, from int, brief bool) string {
	start := int64(from-1) * base64Line
	s := "[memex: base64 cut: bytes " + commas(int(start+1)) + "-" + commas(int(b.size)) + " of " + commas(int(b.size)) + " not shown"
	if brief {
		return s + "]"
	}
	return s + "; memex show " + id + " > FILE saves all]"
}

// omitted is om in lines of the whole entry's base64: what the text holds
// no line of counts too, its tokens estimated at the rate of the cut.
func (b *base64Body) omitted(om []Omitted) []Omitted {
	if len(om) == 0 {
		return om
	}
	g := &om[len(om)-1]
	if b.cut() {
		inText := b.head - int64(g.From-1)*base64Line
		all := b.size - int64(g.From-1)*base64Line
		if inText > 0 {
			g.Tokens = int(int64(g.Tokens) * all / inText)
		}
		g.To = b.lines
	}
	return om
}
