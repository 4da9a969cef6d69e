package deref

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// Store is what deref reads from the archive. archive.Store satisfies it.
// Every method takes ctx first and honours its cancellation.
type Store interface {
	// Resolve turns an ID or alias into an ID: memex.ErrNotFound when it
	// names nothing, memex.ErrAmbiguous when an alias names several
	// entries (project narrows it).
	Resolve(ctx context.Context, ref, project string) (memex.ID, error)
	// Get returns an entry's metadata; memex.ErrNotFound when missing.
	Get(ctx context.Context, id memex.ID) (memex.Entry, error)
	// Body streams an entry's exact body; the caller closes it.
	Body(ctx context.Context, id memex.ID) (io.ReadCloser, error)
	// Session calls fn with the entries of the session ref names, in ID
	// (time) order; memex.ErrNotFound for an unknown session,
	// memex.ErrAmbiguous for a ref that names several.
	Session(ctx context.Context, ref memex.SessionRef, fn func(memex.Entry) error) error
	// Scan calls fn with every entry whose ID time lies in [from, to), in
	// ID order; a zero bound is open.
	Scan(ctx context.Context, from, to time.Time, fn func(memex.Entry) error) error
}

// Reader answers deref, show and context requests from a Store. It keeps
// no state between calls and is safe for concurrent use if the Store is.
type Reader struct {
	store Store
}

// New returns a Reader over s.
func New(s Store) *Reader { return &Reader{store: s} }

// DefaultBudget is the budget of a deref whose Options.Budget is zero.
const DefaultBudget = 2000

// Options configure a Deref. The zero value derefs within DefaultBudget
// tokens, without a query, resolving aliases across all projects.
type Options struct {
	Budget  int    // tokens for the whole output; 0 means DefaultBudget
	Query   string // terms whose lines are shown first (case-insensitive)
	Project string // narrows aliases that name entries in several projects
	// Brief makes each header the ID alone, without the entry's summary,
	// lines and tokens, and leaves the show command out of each marker,
	// which then names only the lines omitted and their tokens: for a
	// caller that already holds the summary and size (a search hit, an
	// IndexedSummary line) and knows how to show lines of an ID. A header
	// costs about 24 tokens then, against 34 with the size and 50 to 90
	// with a file read's summary.
	Brief bool
	// Checkout, when set, checks the file lines each entry showed
	// against the working tree and marks the entry (see stale.go); the
	// mark is part of its header, so the budget counts it.
	Checkout *Checkout
	// Base64 gives an entry that is not valid UTF-8 (binary) as base64
	// text (76 columns a line, its header saying so) instead of
	// BinaryNote's line. The budget bounds it like any content: read
	// from the top, what does not fit is cut at a line and one marker
	// line says which bytes were left out and how to get them.
	Base64 bool
}

// Item is one dereferenced entry. Content holds the exact bytes of the
// windows shown, with a marker line for every omitted span; Tokens is the
// size of the whole entry, not of what is shown.
type Item struct {
	ID       string `json:"id"`
	Summary  string `json:"summary"`
	Tokens   int64  `json:"tokens"`
	Complete bool   `json:"complete"`
	// Binary: the entry is not valid UTF-8, and Content is the line
	// BinaryNote words instead of its bytes (memex show gives them), or,
	// with Options.Base64, the base64 of its bytes.
	Binary bool `json:"binary,omitempty"`
	// Encoding is "base64" when Content holds the base64 of the entry's
	// bytes (76 columns a line) from the start, and the marker line
	// of what the budget left out; Omitted then counts base64 lines.
	Encoding string    `json:"encoding,omitempty"`
	Content  string    `json:"content"`
	Omitted  []Omitted `json:"omitted"`
	// Mark sums up Evidence: current, changed or gone; empty when the
	// entry shows no file of the checkout (or none was given).
	Mark     string `json:"mark,omitempty"`
	Evidence []Mark `json:"evidence,omitempty"`
	// Redacted counts the credentials replaced in the entry when it was
	// archived (memex.Entry.Redacted); its summary says so too.
	Redacted int `json:"redacted,omitempty"`

	// Windows locate the shown bytes in the entry's body (for callers
	// that check or highlight them); not part of the JSON contract.
	Windows []Window `json:"-"`
}

// Result is the answer to a deref. Used counts the tokens of Text, the
// rendering that the budget bounds; Missing lists the references that name
// no entry (or several), in request order.
type Result struct {
	Budget  int      `json:"budget"`
	Used    int      `json:"used"`
	Items   []Item   `json:"items"`
	Missing []string `json:"missing"`

	// Text is the plain rendering: per item a header line, then its
	// content; then a line per missing reference.
	Text string `json:"-"`
}

// Deref returns the exact content of the entries refs name, within
// opts.Budget tokens: whole entries when they fit, else windows chosen as
// doc.go describes. References that name nothing (or several entries) are
// listed in Missing and the rest still returns. A budget too small for the
// header and best line of every entry is an error wrapping
// memex.ErrBudgetTooSmall that names the minimum.
func (r *Reader) Deref(ctx context.Context, refs []string, opts Options) (Result, error) {
	budget := opts.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	var found []memex.Entry
	var foundRefs, missing, missingLines []string
	seen := map[memex.ID]bool{}
	for _, ref := range refs {
		id, err := r.store.Resolve(ctx, ref, opts.Project)
		if err != nil {
			if errors.Is(err, memex.ErrNotFound) || errors.Is(err, memex.ErrAmbiguous) || errors.Is(err, memex.ErrInvalid) {
				missing = append(missing, ref)
				missingLines = append(missingLines, missingLine(ref, err))
				continue
			}
			return Result{}, fmt.Errorf("deref: %s: %w", ref, err)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		e, err := r.store.Get(ctx, id)
		if err != nil {
			return Result{}, fmt.Errorf("deref: %s: %w", ref, err)
		}
		found = append(found, e)
		foundRefs = append(foundRefs, ref)
	}
	opts.Budget = budget
	return r.deref(ctx, found, foundRefs, missing, missingLines, opts)
}

// deref renders the entries found (by refs, in request order) within
// opts.Budget (> 0) tokens, followed by missingLines, the lines of the
// references missing.
func (r *Reader) deref(ctx context.Context, found []memex.Entry, refs, missing, missingLines []string, opts Options) (Result, error) {
	budget := opts.Budget
	res := Result{Budget: budget, Items: []Item{}, Missing: missing}
	if res.Missing == nil {
		res.Missing = []string{}
	}
	var items []*item
	var entries []memex.Entry
	var marks [][]Mark
	// Bodies and line indexes are the bulk of what a deref allocates
	// (about 1.5 MB for a 1 MB entry); they go back to pools when it
	// returns, so that repeated derefs do not keep the collector busy.
	// Nothing returned refers to them: contents are copied into strings.
	var bufs []*[]byte
	defer func() {
		for _, b := range bufs {
			bodyPool.Put(b)
		}
		for _, it := range items {
			it.t.release()
		}
	}()
	for i, e := range found {
		ref, id := refs[i], e.ID
		total := -1
		if e.Tokens > 0 || e.Bytes == 0 {
			total = int(e.Tokens)
		}
		if ls, ok := r.store.(LineStore); ok && e.Bytes > largeBody {
			it, err := r.largeItem(ctx, ls, e, total, opts, budget)
			if err != nil {
				return Result{}, fmt.Errorf("deref: %s: %w", ref, err)
			}
			// Stale marks read the body whole: a large entry is left
			// unmarked.
			items = append(items, it)
			entries = append(entries, e)
			marks = append(marks, nil)
			continue
		}
		body, err := r.readBody(ctx, id, e.Bytes, &bufs)
		if err != nil {
			return Result{}, fmt.Errorf("deref: %s: %w", ref, err)
		}
		if len(body) == 0 {
			total = int(e.Tokens)
		}
		binary := !utf8.Valid(body)
		if binary && opts.Base64 {
			items = append(items, base64Item(e, body, budget, opts.Brief))
			entries = append(entries, e)
			marks = append(marks, nil)
			continue
		}
		if binary {
			// Raw bytes would garble a terminal and an agent's context
			// alike, and no window of them reads: one line says what the
			// entry is and how to save it (as memex show --budget does).
			body, total = []byte(BinaryNote(id, e.Bytes)+"\n"), -1
		}
		var m []Mark
		if opts.Checkout != nil {
			m = opts.Checkout.Check(ctx, e, func() ([]byte, error) { return body, nil })
		}
		hdr := headerOf(e, opts.Brief)
		if t := MarkText(m); t != "" {
			hdr += " · " + t
		}
		it := newItem(id.String(), hdr, total, body, opts.Query)
		it.brief = opts.Brief
		it.binary = binary
		items = append(items, it)
		entries = append(entries, e)
		marks = append(marks, m)
	}
	tail := strings.Join(missingLines, "")
	rd, used, err := allocate(ctx, items, budget, tail)
	for _, it := range items {
		if it.t.lg != nil && it.t.lg.err != nil {
			return Result{}, fmt.Errorf("deref: %s: %w", it.id, it.t.lg.err)
		}
	}
	if err != nil {
		return Result{}, err
	}
	for i, it := range items {
		r, e := rd.items[i], entries[i]
		item := Item{
			ID: it.id, Summary: e.DisplaySummary(), Tokens: e.Tokens,
			Complete: len(r.omitted) == 0 && !it.binary, Binary: it.binary, Content: r.content, Omitted: r.omitted, Windows: bodyWindows(r.windows, it.binary),
			Mark: Worst(marks[i]), Evidence: marks[i], Redacted: e.Redacted,
		}
		if it.b64 != nil {
			item.Binary, item.Encoding, item.Complete = true, "base64", len(r.omitted) == 0
			item.Omitted = it.b64.omitted(r.omitted)
		}
		res.Items = append(res.Items, item)
	}
	// allocate counted this very text exactly.
	res.Text = rd.text + tail
	res.Used = used
	return res, nil
}

// largeItem plans entry e, larger than LargeBody, from one streaming pass
// over its body and the lines it shows, read as needed (see LargeBody).
func (r *Reader) largeItem(ctx context.Context, ls LineStore, e memex.Entry, total int, opts Options, budget int) (*item, error) {
	query := opts.Query
	rc, err := r.store.Body(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	t, anchors, err := scanLarge(ctx, rc, e.Bytes, e.Lines, query)
	rc.Close()
	if err != nil {
		return nil, err
	}
	if t.binary && opts.Base64 {
		// Only the head that a budget can show is read and encoded.
		rc, err := r.store.Body(ctx, e.ID)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		head, err := io.ReadAll(io.LimitReader(rc, base64Head(budget)))
		if err != nil {
			return nil, err
		}
		return base64Item(e, head, budget, opts.Brief), nil
	}
	if t.binary {
		// As for a small entry: the note, never the bytes.
		it := newItem(e.ID.String(), headerOf(e, opts.Brief), -1, []byte(BinaryNote(e.ID, e.Bytes)+"\n"), query)
		it.brief, it.binary = opts.Brief, true
		return it, nil
	}
	t.lg = &largeText{ctx: ctx, tok: map[int]int32{}, lines: func(ctx context.Context, from, to int) (io.ReadCloser, error) {
		return ls.Lines(ctx, e.ID, int64(from), int64(to))
	}}
	it := newLargeItem(e.ID.String(), headerOf(e, opts.Brief), total, t, anchors, query)
	it.brief = opts.Brief
	return it, nil
}

// bodyPool holds body buffers between derefs.
var bodyPool = sync.Pool{New: func() any { return new([]byte) }}

// readBody reads a body into a buffer sized from the metadata, sparing the
// copies of a growing one (a megabyte body is read on every deref of it).
func (r *Reader) readBody(ctx context.Context, id memex.ID, size int64, bufs *[]*[]byte) ([]byte, error) {
	// A store that can append a whole body to a buffer
	// (archive.Store.AppendBody) reads into a pooled one, released when
	// the deref returns.
	if ab, ok := r.store.(interface {
		AppendBody(ctx context.Context, id memex.ID, dst []byte) ([]byte, error)
	}); ok {
		buf := bodyPool.Get().(*[]byte)
		out, err := ab.AppendBody(ctx, id, (*buf)[:0])
		if err != nil {
			bodyPool.Put(buf)
			return nil, err
		}
		*buf = out
		*bufs = append(*bufs, buf)
		return out, nil
	}
	rc, err := r.store.Body(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	buf := bytes.NewBuffer(make([]byte, 0, max(size, 0)+bytes.MinRead))
	if _, err := buf.ReadFrom(rc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Show returns ref's content within budget tokens, as Deref does for one
// entry, except that the header line, which a caller printing only the
// content does not show, is not counted: the whole body when it fits, else
// its windows and markers (Item.Content). Result.Used counts Item.Content.
// project narrows an alias as in Options.
func (r *Reader) Show(ctx context.Context, ref string, budget int, project string) (Item, Result, error) {
	id, err := r.store.Resolve(ctx, ref, project)
	if err != nil {
		return Item{}, Result{}, fmt.Errorf("deref: show %s: %w", ref, err)
	}
	e, err := r.store.Get(ctx, id)
	if err != nil {
		return Item{}, Result{}, fmt.Errorf("deref: show %s: %w", ref, err)
	}
	hc := count(header(e) + "\n")
	// The entry is read: deref renders it without resolving it again.
	// A budget near the largest int must not wrap around with the header.
	res, err := r.deref(ctx, []memex.Entry{e}, []string{ref}, nil, nil, Options{Budget: budget + min(hc, math.MaxInt-budget)})
	var be *budgetError
	if errors.As(err, &be) {
		be.budget, be.need = budget, be.need-hc
		return Item{}, Result{}, be
	}
	if err != nil {
		return Item{}, Result{}, err
	}
	if len(res.Items) != 1 {
		return Item{}, Result{}, fmt.Errorf("deref: show: %w", memex.Errorf(memex.ErrNotFound, "%s: not found", ref))
	}
	res.Budget, res.Used = budget, count(res.Items[0].Content)
	return res.Items[0], res, nil
}

// budgetError is a budget below the least a deref can show: each entry's
// header and best line.
type budgetError struct {
	budget, need, entries int
}

func (e *budgetError) Error() string { return "deref: " + e.sentence().Error() }

// Unwrap is the error's sentence, of the class memex.ErrBudgetTooSmall.
func (e *budgetError) Unwrap() error { return e.sentence() }

func (e *budgetError) sentence() *memex.Error {
	return memex.Errorf(memex.ErrBudgetTooSmall, "a budget of %s is too small to show %s: need at least %d",
		plural(e.budget, "token"), plural(e.entries, "entry"), e.need)
}

// bodyWindows is what an item tells of the body's lines it shows: a binary
// entry shows its note, no window of the body, so it has none.
func bodyWindows(w []Window, binary bool) []Window {
	if binary {
		return nil
	}
	return w
}

// BinaryNote is the line a read within a budget gives for an entry that
// is not valid UTF-8, in place of its bytes.
func BinaryNote(id memex.ID, size int64) string {
	return "[memex: binary content (" + plural(int(size), "byte") + ") not shown; memex show " + id.String() + " > FILE saves it]"
}

// headerOf is an item's first line: briefHeader for a brief deref
// (Options.Brief), else header.
func headerOf(e memex.Entry, brief bool) string {
	if brief {
		return briefHeader(e)
	}
	return header(e)
}

// header is an item's first line: ID, size and summary.
func header(e memex.Entry) string {
	s := sizeHeader(e)
	if sum := e.DisplaySummary(); sum != "" {
		s += " " + strings.Join(strings.Fields(sum), " ")
	}
	return s
}

// briefHeader is the header of a brief deref: the ID alone. The size is
// in the markers when anything is left out, and the whole body shows it
// when nothing is.
func briefHeader(e memex.Entry) string { return "[memex " + e.ID.String() + "]" }

// sizeHeader is header without the summary.
func sizeHeader(e memex.Entry) string {
	return "[memex " + e.ID.String() + " · " + plural(int(e.Lines), "line") + " · " + commas(int(e.Tokens)) + " tokens]"
}

// plural is summarize.Plural with thousands separators.
func plural(n int, w string) string { return commas(n) + " " + summarize.PluralWord(n, w) }

func missingLine(ref string, err error) string {
	ref = strconv.Quote(ref)
	switch {
	case errors.Is(err, memex.ErrAmbiguous):
		return "[memex: " + ref + " names several entries; pass an ID or --project]\n"
	case errors.Is(err, memex.ErrInvalid):
		return "[memex: " + ref + " is not an ID or alias]\n"
	}
	return "[memex: " + ref + " not found]\n"
}

// allocate plans every item's windows so that the whole rendering (headers,
// contents, the missing-reference lines in tail) fits budget, and returns
// the items' rendering and the exact token count of it with tail; doc.go
// states the rule.
func allocate(ctx context.Context, items []*item, budget int, tail string) (rendering, int, error) {
	tailCost := count(tail)
	mins := make([]int, len(items))
	need := tailCost
	for i, it := range items {
		if !it.plan(0, true) {
			return rendering{}, 0, fmt.Errorf("deref: entry %s: nothing to show: %w", it.id, memex.ErrBudgetTooSmall)
		}
		mins[i] = it.cost(it.ivs, it.cut)
		// A short entry can cost less whole than its best line with the
		// markers of what that leaves out: then the whole is its least.
		if it.mayBeWhole() && it.planWhole(mins[i]) {
			mins[i] = it.cost(it.ivs, it.cut)
		}
		need += mins[i]
	}
	if budget < need {
		return rendering{}, 0, &budgetError{budget: budget, need: need, entries: len(items)}
	}
	// Max-min fair shares of what is left above the minimums.
	alloc := fairShare(items, mins, budget-need)
	for round := 0; round < 8; round++ {
		if err := ctx.Err(); err != nil {
			return rendering{}, 0, err
		}
		used := tailCost
		for i, it := range items {
			it.plan(alloc[i], false)
			used += it.cost(it.ivs, it.cut)
		}
		// What the plans left unused goes to incomplete items in order.
		slack := budget - used
		for i, it := range items {
			if slack <= 0 {
				break
			}
			if it.whole {
				continue
			}
			before := it.cost(it.ivs, it.cut)
			it.plan(before+slack, false)
			after := it.cost(it.ivs, it.cut)
			alloc[i] = before + slack
			slack -= after - before
		}
		rd := renderAll(items)
		total := count(rd.text + tail)
		if total <= budget {
			return rd, total, nil
		}
		// Token counts of lines almost always add up to at least the count
		// of their concatenation; when they do not, take the excess from
		// the largest allocation and plan again.
		big := 0
		for i := range alloc {
			if alloc[i]-mins[i] > alloc[big]-mins[big] {
				big = i
			}
		}
		alloc[big] -= total - budget + 2
		if alloc[big] < mins[big] {
			alloc[big] = mins[big]
		}
	}
	for _, it := range items {
		it.plan(0, true)
	}
	rd := renderAll(items)
	total := count(rd.text + tail)
	if total > budget {
		return rendering{}, 0, fmt.Errorf("deref: cannot fit %s in %d tokens: %w", plural(len(items), "entry"), budget, memex.ErrBudgetTooSmall)
	}
	return rd, total, nil
}

// rendering is the text of a deref's items (without the missing lines)
// and, per item, what it shows.
type rendering struct {
	text  string
	items []renderedItem
}

type renderedItem struct {
	content string
	windows []Window
	omitted []Omitted
}

// renderAll renders every item under its header.
func renderAll(items []*item) rendering {
	var sb strings.Builder
	rd := rendering{items: make([]renderedItem, len(items))}
	for i, it := range items {
		r := &rd.items[i]
		r.content, r.windows, r.omitted = it.render()
		sb.WriteString(it.header)
		sb.WriteByte('\n')
		sb.WriteString(r.content)
		if r.content != "" && !strings.HasSuffix(r.content, "\n") {
			sb.WriteByte('\n')
		}
	}
	rd.text = sb.String()
	return rd
}

// fairShare splits extra tokens over items above their minimums, max-min
// fairly: an item that wants less than an equal share gets what it wants
// and leaves the rest to the others.
func fairShare(items []*item, mins []int, extra int) []int {
	alloc := append([]int(nil), mins...)
	want := make([]int, len(items))
	open := 0
	for i, it := range items {
		want[i] = max(it.wantTokens()-mins[i], 0)
		if want[i] > 0 {
			open++
		}
	}
	for extra > 0 && open > 0 {
		share := max(extra/open, 1)
		given := 0
		for i := range items {
			if want[i] == 0 || extra-given <= 0 {
				continue
			}
			g := min(share, want[i], extra-given)
			alloc[i] += g
			want[i] -= g
			given += g
			if want[i] == 0 {
				open--
			}
		}
		extra -= given
		if given == 0 {
			break
		}
	}
	return alloc
}
