package deref

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// interval is a run of whole lines, from..to inclusive.
type interval struct{ from, to int }

// piece is part of one line too long for the budget: bytes [start, end)
// of the body, inside line.
type piece struct {
	line       int
	start, end int
	tokens     int
}

// item is one entry being planned: its body, its header line and the
// windows chosen so far.
type item struct {
	id     string // the entry ID, as markers name it
	header string // the header line, without '\n'
	brief  bool   // markers without the show command (Options.Brief)
	total  int    // the body's tokens when known (archive metadata), else -1
	t      *text
	anchor []anchor

	hc       int // tokens of header + '\n'
	ivs      []interval
	cut      *piece
	whole    bool
	wholeTok int // tokens of the whole body, once counted

	markerCache map[string]int
	queried     bool // a query with terms was given
	binary      bool // the body is BinaryNote's line, not the entry's bytes
	// b64 is set when the body is the base64 of a binary entry's start
	// (Options.Base64): it is read from the top only, and its one marker
	// counts bytes.
	b64 *base64Body
}

// Context lines shown around an anchor, and the size of the head and tail
// windows, before the budget makes them grow or shrink.
const (
	contextLines = 3
	edgeLines    = 3
	// exactLimit is the body size up to which omitted spans are counted
	// exactly; above it they get the entry's remaining tokens shared out by
	// bytes (see doc.go).
	exactLimit = 8 << 10
	// minPiece is the fewest tokens of a cut line worth showing; it sets
	// the minimum budget of an entry whose best line is huge.
	minPiece = 32
)

func newItem(id, header string, total int, body []byte, query string) *item {
	it := &item{id: id, header: header, total: total, t: newText(body), markerCache: map[string]int{}}
	it.hc = count(header + "\n")
	it.anchor = findAnchors(it.t, query)
	it.queried = len(queryTerms(query)) > 0
	return it
}

// newLargeItem is newItem for a large body that scanLarge indexed.
func newLargeItem(id, header string, total int, t *text, anchors []anchor, query string) *item {
	it := &item{id: id, header: header, total: total, t: t, anchor: anchors, markerCache: map[string]int{}}
	it.hc = count(header + "\n")
	it.queried = len(queryTerms(query)) > 0
	return it
}

// reset forgets the windows chosen.
func (it *item) reset() { it.ivs, it.cut, it.whole = nil, nil, false }

// bestLine is the line an entry is shown by when nothing else fits: the
// top anchor, else the last line (where outcomes are printed), else 0.
func (it *item) bestLine() int {
	if len(it.anchor) > 0 {
		return it.anchor[0].line
	}
	return it.t.lines()
}

// asked reports whether some line of the body holds a word of the query
// (error-looking lines alone do not count).
func (it *item) asked() bool {
	for _, a := range it.anchor {
		if a.score >= scoreTerm {
			return true
		}
	}
	return false
}

// wantTokens estimates what the whole entry costs: header plus body.
func (it *item) wantTokens() int {
	if it.total >= 0 {
		return it.hc + it.total + 1
	}
	return it.hc + it.t.size/3 + 1
}

// union returns ivs with iv added, sorted and merged (adjacent runs join).
func union(ivs []interval, iv interval) []interval {
	out := make([]interval, 0, len(ivs)+1)
	out = append(out, ivs...)
	out = append(out, iv)
	sort.Slice(out, func(i, j int) bool { return out[i].from < out[j].from })
	merged := out[:1]
	for _, x := range out[1:] {
		last := &merged[len(merged)-1]
		if x.from <= last.to+1 {
			last.to = max(last.to, x.to)
			continue
		}
		merged = append(merged, x)
	}
	return merged
}

// covered reports whether line l is in ivs.
func covered(ivs []interval, l int) bool {
	for _, iv := range ivs {
		if l >= iv.from && l <= iv.to {
			return true
		}
	}
	return false
}

// gap is an omitted run of lines (or the rest of a cut line).
type gap struct {
	from, to int
	bytes    int
	cutLine  bool
	tokens   int
	est      bool // tokens shared out by bytes, not counted
}

// gaps lists what the windows leave out, in order, with token counts: exact
// for small bodies, otherwise the entry's remaining tokens shared by bytes.
func (it *item) gaps(ivs []interval, cut *piece) ([]gap, int) {
	t := it.t
	n := t.lines()
	var out []gap
	next := 1
	shown := 0
	addRange := func(from, to int) {
		if from > to {
			return
		}
		s, e := t.bounds(from, to)
		out = append(out, gap{from: from, to: to, bytes: e - s})
	}
	for _, iv := range ivs {
		if cut != nil && cut.line >= next && cut.line < iv.from {
			addRange(next, cut.line-1)
			next = cut.line + 1
		}
		addRange(next, iv.from-1)
		shown += t.spanTokens(iv.from, iv.to)
		next = iv.to + 1
	}
	if cut != nil && cut.line >= next {
		addRange(next, cut.line-1)
		next = cut.line + 1
	}
	addRange(next, n)
	if cut != nil {
		s, e := t.bounds(cut.line, cut.line)
		g := gap{from: cut.line, to: cut.line, bytes: (cut.start - s) + (e - cut.end), cutLine: true}
		// Keep gaps in line order.
		i := sort.Search(len(out), func(i int) bool { return out[i].from > cut.line })
		out = append(out, gap{})
		copy(out[i+1:], out[i:])
		out[i] = g
		shown += cut.tokens
	}
	if t.size <= exactLimit {
		for i := range out {
			if out[i].cutLine {
				out[i].tokens = max(1, t.lineTokens(out[i].from)-cut.tokens)
				continue
			}
			out[i].tokens = t.spanTokens(out[i].from, out[i].to)
		}
		return out, shown
	}
	omittedBytes := 0
	for _, g := range out {
		omittedBytes += g.bytes
	}
	rem := omittedBytes / 4
	if it.total >= 0 {
		rem = max(it.total-shown, 0)
	}
	for i := range out {
		out[i].est = true
		if omittedBytes > 0 {
			out[i].tokens = int(int64(rem) * int64(out[i].bytes) / int64(omittedBytes))
		}
		if out[i].tokens == 0 && out[i].bytes > 0 {
			out[i].tokens = 1
		}
	}
	return out, shown
}

// marker is the in-band line that says what a gap left out and how to get it.
func (it *item) marker(g gap, cut *piece) string {
	if it.b64 != nil {
		return it.b64.marker(it.id, g.from, it.brief)
	}
	lines := "lines " + strconv.Itoa(g.from) + "-" + strconv.Itoa(g.to)
	if g.from == g.to {
		lines = "line " + strconv.Itoa(g.from)
	}
	show := "; memex show " + it.id + " --lines " + strconv.Itoa(g.from) + ":" + strconv.Itoa(g.to) + "]"
	if it.brief {
		show = "]"
	}
	tok := commas(g.tokens)
	if g.est {
		tok = "~" + tok
	}
	if g.cutLine {
		s, e := it.t.bounds(g.from, g.to)
		return "[memex: " + lines + " cut: bytes " + strconv.Itoa(cut.start-s+1) + "-" + strconv.Itoa(cut.end-s) +
			" of " + strconv.Itoa(e-s) + " shown (" + tok + " tokens omitted)" + show
	}
	return "[memex: " + lines + " omitted (" + tok + " tokens)" + show
}

// markerTokens counts a marker line exactly. cl100k splits digit runs into
// groups of at most three, each one token, so the count depends on the
// digits' positions but not their values: the cache key zeroes them.
func (it *item) markerTokens(m string) int {
	key := []byte(m)
	for i, c := range key {
		if c >= '1' && c <= '9' {
			key[i] = '0'
		}
	}
	k := string(key)
	if n, ok := it.markerCache[k]; ok {
		return n
	}
	n := count(m + "\n")
	it.markerCache[k] = n
	return n
}

// cost is the planned size of the item's rendering: header, window lines,
// cut piece and markers, each counted exactly. Token counts of adjacent
// lines add up to at most the count of their concatenation in practice;
// the caller counts the final rendering exactly and backs off if not.
func (it *item) cost(ivs []interval, cut *piece) int {
	if it.t.lines() == 0 {
		return it.hc
	}
	if it.whole && cut == nil && len(ivs) == 1 && ivs[0] == (interval{1, it.t.lines()}) {
		return it.hc + it.wholeTok + 1
	}
	gs, shown := it.gaps(ivs, cut)
	c := it.hc + shown
	for _, g := range gs {
		c += it.markerTokens(it.marker(g, cut))
	}
	if cut != nil {
		c++ // the '\n' that ends a cut piece
	}
	if t := it.t; t.last != '\n' && len(ivs) > 0 && ivs[len(ivs)-1].to == t.lines() {
		c++ // the '\n' the rendering adds after a body without one
	}
	return c
}

// planWhole shows the whole body if it fits b, counting it exactly.
func (it *item) planWhole(b int) bool {
	if it.total >= 0 && it.hc+it.total > b {
		return false
	}
	if it.total < 0 && it.t.size > 16*b {
		return false
	}
	if it.t.lines() == 0 {
		it.whole = true
		return it.hc <= b
	}
	n := it.t.lines()
	if it.t.size > hugeLine*4 {
		return false
	}
	if it.wholeTok == 0 {
		it.wholeTok = count(string(it.t.slice(0, it.t.size)))
	}
	if it.hc+it.wholeTok+1 <= b {
		it.ivs, it.cut, it.whole = []interval{{1, n}}, nil, true
		return true
	}
	return false
}

// mayBeWhole reports whether the entry can be shown whole (binary
// content only when its base64 is not cut).
func (it *item) mayBeWhole() bool { return it.b64 == nil || !it.b64.cut() }

// plan chooses windows within b tokens (header included). minimal plans
// only the best line (cut to minPiece tokens if it is huge): the least an
// entry is shown with. It reports whether anything but the header fits.
func (it *item) plan(b int, minimal bool) bool {
	it.reset()
	n := it.t.lines()
	if n == 0 {
		it.whole = true
		return minimal || it.hc <= b
	}
	if !minimal && it.mayBeWhole() && it.planWhole(b) {
		return true
	}
	best := it.bestLine()
	try := func(iv interval) bool {
		iv.from, iv.to = max(iv.from, 1), min(iv.to, n)
		if iv.from > iv.to {
			return false
		}
		next := union(it.ivs, iv)
		if it.cost(next, nil) <= b {
			it.ivs = next
			return true
		}
		return false
	}
	if it.b64 != nil {
		// Base64 reads from the top, in whole lines; the least shown is
		// the header and the marker. A text cut short of the entry's
		// end keeps its last line out, so the marker always follows.
		last := n
		if it.b64.cut() {
			last = n - 1
		}
		head := func(iv interval) bool {
			iv.to = min(iv.to, last)
			return try(iv)
		}
		for step := growStep; step > 0 && !minimal; {
			if !it.growHead(head, step) {
				step /= 2
			}
		}
		return true
	}
	if minimal {
		if it.t.lineTokens(best) <= minPiece {
			it.ivs = []interval{{best, best}}
			return true
		}
		return it.planCut(best, 1<<30, minPiece)
	}
	if it.queried && !it.asked() {
		// No line holds a word of the query: the entry was asked for as a
		// whole (a file view by its path, an output by its command), and
		// it reads from the top. Show the head, as far as it fits.
		for step := growStep; step > 0; {
			if !it.growHead(try, step) {
				step /= 2
			}
		}
		if len(it.ivs) > 0 {
			return true
		}
		return it.planCut(1, b, 1<<30)
	}
	// 1. The best window, shrinking its context until it fits.
	ok := false
	for c := contextLines; c >= 0 && !ok; c-- {
		ok = try(interval{best - c, best + c})
	}
	if !ok {
		// A single line larger than the budget: cut it.
		return it.planCut(best, b, 1<<30)
	}
	// 2. Tail, then head: outcomes are printed last, commands and
	// headers first.
	for c := edgeLines; c >= 1; c-- {
		if try(interval{n - c + 1, n}) {
			break
		}
	}
	for c := edgeLines; c >= 1; c-- {
		if try(interval{1, c}) {
			break
		}
	}
	// 3. The other anchors, best first, each with as much context as fits.
	for _, a := range it.anchor[min(1, len(it.anchor)):] {
		if covered(it.ivs, a.line) {
			continue
		}
		for c := contextLines; c >= 0; c-- {
			if try(interval{a.line - c, a.line + c}) {
				break
			}
		}
		if it.cost(it.ivs, nil)+it.hc/2 >= b {
			break
		}
	}
	// 4. Grow the head and the tail alternately, by up to growStep lines
	// at a time, halving the step when a step no longer fits.
	headStep, tailStep := growStep, growStep
	for headStep > 0 || tailStep > 0 {
		if headStep > 0 && !it.growHead(try, headStep) {
			headStep /= 2
		}
		if tailStep > 0 && !it.growTail(try, tailStep) {
			tailStep /= 2
		}
	}
	return true
}

// growStep is the most lines the head or tail grows by at once.
const growStep = 16

// growHead extends the window that starts at line 1 by k lines.
func (it *item) growHead(try func(interval) bool, k int) bool {
	if len(it.ivs) == 0 || it.ivs[0].from != 1 {
		return try(interval{1, k})
	}
	to := it.ivs[0].to
	if to >= it.t.lines() {
		return false
	}
	return try(interval{to + 1, to + k})
}

// growTail extends the window that ends at the last line by k lines.
func (it *item) growTail(try func(interval) bool, k int) bool {
	n := it.t.lines()
	last := it.ivs[len(it.ivs)-1]
	if last.to != n {
		return try(interval{n - k + 1, n})
	}
	if last.from <= 1 {
		return false
	}
	return try(interval{last.from - k, last.from - 1})
}

// planCut shows part of line l, at most pieceMax tokens, within b tokens
// for the whole item, starting a little before the first query match on it
// (or at its start).
func (it *item) planCut(l, b, pieceMax int) bool {
	s, e := it.t.bounds(l, l)
	start := s
	for _, a := range it.anchor {
		if a.line == l {
			start = max(s, a.off-120)
			break
		}
	}
	for start > s && !utf8.RuneStart(it.t.byteAt(start)) {
		start--
	}
	// The markers cost tokens too; reserve them with a probe piece of one
	// byte, then fill what is left.
	probe := &piece{line: l, start: start, end: start + 1}
	avail := min(b-it.cost(nil, probe)-2, pieceMax)
	if avail < 1 {
		return false
	}
	limit := e
	if max := start + avail*8; max < limit {
		limit = max
	}
	for limit < e && !utf8.RuneStart(it.t.byteAt(limit)) {
		limit++
	}
	str, n := truncate(string(it.t.slice(start, limit)), avail)
	if str == "" {
		return false
	}
	p := &piece{line: l, start: start, end: start + len(str), tokens: n}
	for p.end > p.start && it.cost(nil, p) > b {
		// Marker digits grew with the piece; give back a little.
		str, n = truncate(str, max(0, n-4))
		p.end, p.tokens = start+len(str), n
	}
	if p.end <= p.start {
		return false
	}
	it.cut = p
	return true
}

// Window is a shown run of an entry's body: bytes [Start, End) of the body,
// lines From..To (1-based, inclusive). A window of part of one line (a line
// larger than the budget) has From == To and Cut set.
type Window struct {
	From  int  `json:"from"`
	To    int  `json:"to"`
	Start int  `json:"start"`
	End   int  `json:"end"`
	Cut   bool `json:"cut,omitempty"`
}

// Omitted is a run of lines left out, with its token cost.
type Omitted struct {
	From   int `json:"from"`
	To     int `json:"to"`
	Tokens int `json:"tokens"`
}

// render writes the item's content (windows and markers, no header) and
// lists its windows and omissions.
func (it *item) render() (string, []Window, []Omitted) {
	t := it.t
	if it.t.lines() == 0 {
		return "", []Window{}, []Omitted{}
	}
	gs, _ := it.gaps(it.ivs, it.cut)
	type part struct {
		from int
		g    *gap
		w    *Window
	}
	var parts []part
	for i := range gs {
		parts = append(parts, part{from: gs[i].from, g: &gs[i]})
	}
	wins := []Window{}
	for _, iv := range it.ivs {
		s, e := t.bounds(iv.from, iv.to)
		wins = append(wins, Window{From: iv.from, To: iv.to, Start: s, End: e})
	}
	if it.cut != nil {
		wins = append(wins, Window{From: it.cut.line, To: it.cut.line, Start: it.cut.start, End: it.cut.end, Cut: true})
	}
	sort.SliceStable(wins, func(i, j int) bool { return wins[i].From < wins[j].From })
	for i := range wins {
		parts = append(parts, part{from: wins[i].From, w: &wins[i]})
	}
	// A cut line has a window and a gap on the same line: the window first.
	sort.SliceStable(parts, func(i, j int) bool {
		if parts[i].from != parts[j].from {
			return parts[i].from < parts[j].from
		}
		return parts[i].w != nil && parts[j].w == nil
	})
	var sb strings.Builder
	om := []Omitted{}
	for _, p := range parts {
		if p.w != nil {
			sb.Write(t.slice(p.w.Start, p.w.End))
			continue
		}
		// Markers sit on their own line.
		if sb.Len() > 0 && !strings.HasSuffix(sb.String(), "\n") {
			sb.WriteByte('\n')
		}
		sb.WriteString(it.marker(*p.g, it.cut))
		sb.WriteByte('\n')
		om = append(om, Omitted{From: p.g.from, To: p.g.to, Tokens: p.g.tokens})
	}
	return sb.String(), wins, om
}
