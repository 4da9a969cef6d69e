package archive

import (
	"bytes"
	"context"
	"io"

	"github.com/memex-archive/memex"
)

// PrepareSize is the largest body Prepare does the work of ahead of its
// Add; a larger one is read by the Add itself, which writes it out as it
// goes. It bounds what a Prepared holds: the body's compressed chunks,
// beside the body the caller keeps.
const PrepareSize = 1 << 20

// Prepared is a body whose Add has done ahead of it, on the goroutine that
// called Store.Prepare, what reads nothing of the store: the hash, token and
// line counts, the summary and the compressed chunks. Passed to Add as the
// body of the entry it was prepared for, it spares Add that work; an Add of
// an entry whose summary it does not fit (another kind, tool, input or exit
// status), or any other reader of it, reads the body as it is. A Prepared
// is added once at most; one never added holds only memory.
type Prepared struct {
	raw  []byte
	r    bytes.Reader
	w    *bodyWriter // nil: not prepared (too large), or taken by an Add
	kind memex.Kind
	tool string
	in   string
	exit *int
	// summary is the summary of the entry it was prepared for, when that
	// entry had none of its own (summarised).
	summary    string
	summarised bool
}

// Prepare does the work of an Add of e with body that needs no store (see
// Prepared) and returns what to pass to Add as the body. It is safe to call
// from many goroutines at once, beside Adds. body must not change until the
// Add returns; a body over PrepareSize is only wrapped.
func (s *Store) Prepare(e memex.Entry, body []byte) *Prepared {
	p := &Prepared{raw: body}
	p.r.Reset(body)
	if len(body) > PrepareSize || s.opts.ReadOnly {
		return p
	}
	if e.Kind == "" {
		e.Kind = memex.KindNote
	}
	w := &bodyWriter{s: s, buf: getChunk(), side: newSideCounter()}
	// A body this small never flushes, so readFrom needs no batch, and
	// reading memory cannot fail.
	_ = w.readFrom(context.Background(), bytes.NewReader(body))
	w.side.finish()
	if w.inline {
		// buf holds body as it is, which stays unchanged until the Add.
		w.kept = body
	}
	putChunk(w.buf)
	// What the Add needs is kept, not the scratch space.
	w.buf, w.enc = nil, nil
	if e.Summary == "" {
		e.Bytes, e.Lines = w.bytes, w.lines()
		p.summary, p.summarised = w.summary(e), true
	}
	w.head, w.tail = nil, nil
	p.w, p.kind, p.tool, p.in, p.exit = w, e.Kind, e.Tool, e.Input, e.Exit
	return p
}

// Read reads the body as it is.
func (p *Prepared) Read(b []byte) (int, error) { return p.r.Read(b) }

// Len is the number of bytes of the body not yet read.
func (p *Prepared) Len() int { return p.r.Len() }

var _ io.Reader = (*Prepared)(nil)

// fits reports whether p's work is e's: e's body not read yet and e's
// summary, unless e has one, computed from the same fields.
func (p *Prepared) fits(e memex.Entry) bool {
	same := p.exit == nil && e.Exit == nil || p.exit != nil && e.Exit != nil && *p.exit == *e.Exit
	return p.w != nil && p.r.Len() == len(p.raw) && same && e.Kind == p.kind && e.Tool == p.tool && e.Input == p.in &&
		(p.summarised || e.Summary != "")
}

// take hands p's body writer to the Add of the entry id.
func (p *Prepared) take(s *Store, id memex.ID) *bodyWriter {
	w := p.w
	p.w = nil
	w.s, w.id, w.batch = s, id, s.db.NewBatch()
	return w
}
