package web

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// line is one numbered line of an entry's content, without its newline.
type line struct {
	N    int64
	Text string
}

type entryData struct {
	E        memex.Entry
	Summary  string
	Failed   bool
	Binary   bool
	Lines    []line
	From, To int64 // the lines shown, 1-based, inclusive
	Prev     string
	Next     string
	Marks    []deref.Mark
	Mark     string // the marks summed up, as deref words them
	// PageLines is how many lines one page shows: the script moves to
	// the page of a line range that the address names.
	PageLines int
}

// headBytes is how much of a body decides whether it is text.
const headBytes = 8 << 10

// looksBinary: a NUL byte, or bytes that are not UTF-8 (a cut at the end
// of the sample is not held against it).
func looksBinary(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if utf8.Valid(b) {
		return false
	}
	for i := 1; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.Valid(b[:len(b)-i]) {
			return false
		}
	}
	return true
}

// readLines reads lines from..to of id: what memex show --lines prints,
// cut into lines.
func (v *Viewer) readLines(r *http.Request, id memex.ID, from, to int64) ([]line, []byte, error) {
	rc, err := v.opts.Store.Lines(r.Context(), id, from, to)
	if err != nil {
		return nil, nil, err
	}
	defer rc.Close()
	raw, err := io.ReadAll(rc)
	if err != nil {
		return nil, nil, err
	}
	var out []line
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64<<10), len(raw)+1)
	for n := from; sc.Scan(); n++ {
		out = append(out, line{N: n, Text: string(sc.Bytes())})
	}
	return out, raw, sc.Err()
}

// entryOf resolves the {ref} of the address (an ID or alias; ?project=
// narrows an alias).
func (v *Viewer) entryOf(r *http.Request) (memex.Entry, error) {
	ctx := r.Context()
	id, err := v.opts.Store.Resolve(ctx, r.PathValue("ref"), r.URL.Query().Get("project"))
	if err != nil {
		return memex.Entry{}, err
	}
	return v.opts.Store.Get(ctx, id)
}

// handleEntry shows an entry: its header and its content with line
// numbers, PageLines lines a page (?from=N starts a page at line N).
// Line N has the anchor #LN; a range is #LA-LB, which the script marks.
func (v *Viewer) handleEntry(w http.ResponseWriter, r *http.Request) {
	e, err := v.entryOf(r)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	d := entryData{E: e, Summary: e.DisplaySummary(), Failed: deref.Failed(e), PageLines: v.opts.PageLines}
	head, err := v.head(r, e.ID)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	d.Binary = looksBinary(head)
	if c := v.checkout(); c != nil {
		if marks := v.reader.CheckEntries(r.Context(), c, []memex.Entry{e}); len(marks) == 1 {
			d.Marks = marks[0]
			d.Mark = deref.MarkText(marks[0])
		}
	}
	if !d.Binary && e.Bytes > 0 {
		d.From = 1
		if f, err := strconv.ParseInt(r.URL.Query().Get("from"), 10, 64); err == nil && f > 1 {
			d.From = min(f, max(1, e.Lines))
		}
		d.To = min(d.From+int64(v.opts.PageLines)-1, e.Lines)
		var raw []byte
		if d.Lines, raw, err = v.readLines(r, e.ID, d.From, d.To); err != nil {
			v.fail(w, r, err)
			return
		}
		d.Binary = !utf8.Valid(raw)
		if d.From > 1 {
			d.Prev = fmt.Sprintf("/e/%s?from=%d", e.ID, max(1, d.From-int64(v.opts.PageLines)))
		}
		if d.To < e.Lines {
			d.Next = fmt.Sprintf("/e/%s?from=%d", e.ID, d.To+1)
		}
	}
	if d.Binary {
		d.Lines = nil
	}
	v.render(w, r, http.StatusOK, "entry", e.ID.String(), d)
}

// head reads the first headBytes of an entry's body.
func (v *Viewer) head(r *http.Request, id memex.ID) ([]byte, error) {
	rc, err := v.opts.Store.Body(r.Context(), id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, headBytes))
}

func (v *Viewer) checkout() *deref.Checkout {
	if v.opts.Checkout == nil {
		return nil
	}
	return v.opts.Checkout()
}

// handleRaw answers an entry's exact bytes, as a download; ?lines=A:B
// answers those lines as text, byte for byte what memex show ID --lines
// A:B prints.
func (v *Viewer) handleRaw(w http.ResponseWriter, r *http.Request) {
	e, err := v.entryOf(r)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	from, to := int64(1), int64(0)
	lines := r.URL.Query().Get("lines")
	if lines != "" {
		if from, to, err = memex.ParseLineRange(lines); err != nil {
			v.fail(w, r, err)
			return
		}
	}
	rc, err := v.opts.Store.Lines(r.Context(), e.ID, from, to)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	defer rc.Close()
	h := w.Header()
	if lines != "" {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", `attachment; filename="`+e.ID.String()+`"`)
		h.Set("Content-Length", strconv.FormatInt(e.Bytes, 10))
	}
	if _, err := io.Copy(w, rc); err != nil {
		v.log.Warn("web: raw", "id", e.ID, "err", err)
	}
}

// peekLines is how many lines an entry expanded in place shows.
const peekLines = 40

// handlePeek answers the fragment that a session's step shows when it is
// expanded in place: the entry's first lines, numbered, with a link to
// the whole.
func (v *Viewer) handlePeek(w http.ResponseWriter, r *http.Request) {
	e, err := v.entryOf(r)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	d := entryData{E: e, Summary: e.DisplaySummary()}
	head, err := v.head(r, e.ID)
	if err != nil {
		v.fail(w, r, err)
		return
	}
	if d.Binary = looksBinary(head); !d.Binary && e.Bytes > 0 {
		d.From, d.To = 1, min(peekLines, e.Lines)
		var raw []byte
		if d.Lines, raw, err = v.readLines(r, e.ID, d.From, d.To); err != nil {
			v.fail(w, r, err)
			return
		}
		if !utf8.Valid(raw) {
			d.Binary, d.Lines = true, nil
		}
	}
	q := r.URL.Query()
	q.Set("frag", "1")
	r.URL.RawQuery = q.Encode()
	v.render(w, r, http.StatusOK, "peek", "", d)
}

// Ref is the identity of the entry's session.
func (d entryData) Ref() memex.SessionRef { return d.E.SessionRef() }
