package index

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/memex-archive/memex"
)

// Query is one search.
//
// Text holds plain words (entries matching all of them come first; when
// fewer than the limit do, entries matching most of them fill the page
// after them, see Result.Partly and Result.Relaxed),
// "quoted phrases" (the words in that order, checked against the archived
// content when Options.Content is set), and field:value filters:
//
//	project:P session:S agent:A kind:K tool:T   exact values
//	path:auth/middleware.go                      a path mentioned, or a path ending so
//	exit:1                                       exit status
//	before:ID after:ID                           older / newer than that entry
//	after:2026-11-01 before:2d                   created since / before a time
//	                                             (memex.ParseTime: spans back
//	                                             from now, dates, RFC 3339)
//	summary:W content:W input:W                  a word (or "phrase") in that field only
//
// A value may be quoted (session:"my session"). A word with a colon whose
// left side is no field name (file.go:12, http://x) is a plain word. Only
// the first MaxWords distinct words count. The struct's own filters are
// combined with those of Text (all must hold; several values of the same
// field in Text are alternatives).
type Query struct {
	Text  string
	Limit int // hits to return; 0 means 10, at most MaxLimit

	Project, Session, Agent, Kind, Tool string

	Before, After memex.ID // zero: no bound

	// Literal takes Text as plain words only: no phrases, no filters
	// (for searching with a command line or a log line as it is).
	Literal bool
}

// Limits of one query.
const (
	DefaultLimit = 10
	MaxLimit     = 1000
	MaxWords     = 32
)

// Since is text narrowed to entries created at t or later, in the query
// syntax (after:T, to the nanosecond); text itself when t is zero.
func Since(text string, t time.Time) string {
	if t.IsZero() {
		return text
	}
	return text + " after:" + t.UTC().Format(time.RFC3339Nano)
}

// parsed is a query after parsing: what the bleve query is built from.
type parsed struct {
	words   []qword
	phrases []qphrase
	filters map[string][]string // keyword field → alternatives
	exits   []int
	before  memex.ID
	after   memex.ID

	content []qword // the words that score, once scoring has chosen them
}

// qword is a word of the query, restricted to one text field or not.
type qword struct {
	w     word
	field string // "" for all text fields
}

// qphrase is a quoted phrase: its words, in order.
type qphrase struct {
	words []qword
	text  string
}

var keywordFields = map[string]bool{fProject: true, fSession: true, fAgent: true, fKind: true, fTool: true, fPath: true}
var textFields = map[string]bool{fSummary: true, fContent: true, fInput: true}

// parse parses q.Text and merges q's filters. Malformed input fails with
// memex.ErrInvalid.
func parse(q Query) (*parsed, error) {
	p := &parsed{filters: map[string][]string{}, before: q.Before, after: q.After}
	for f, v := range map[string]string{fProject: q.Project, fSession: q.Session, fAgent: q.Agent, fKind: q.Kind, fTool: q.Tool} {
		if v != "" {
			p.filters[f] = []string{v}
		}
	}
	// Filters given in Text are alternatives among themselves, and must
	// hold together with those of the struct.
	textFilters := map[string][]string{}
	seen := map[string]bool{}
	addWords := func(s, field string) {
		for _, w := range wordsOf(s) {
			key := field + "\x00" + w.whole
			if seen[key] || len(seen) >= MaxWords {
				continue
			}
			seen[key] = true
			p.words = append(p.words, qword{w: w, field: field})
		}
	}
	if q.Literal {
		addWords(q.Text, "")
	} else {
		toks, err := lex(q.Text)
		if err != nil {
			return nil, err
		}
		for _, t := range toks {
			switch {
			case t.field == "" && t.quoted:
				ph := phraseOf(t.value, "")
				if len(ph.words) > 0 {
					p.phrases = append(p.phrases, ph)
				}
			case t.field == "":
				addWords(t.value, "")
			case textFields[t.field]:
				if t.quoted {
					ph := phraseOf(t.value, t.field)
					if len(ph.words) > 0 {
						p.phrases = append(p.phrases, ph)
					}
				} else {
					addWords(t.value, t.field)
				}
			case keywordFields[t.field]:
				v := t.value
				if t.field == fPath {
					pv, ok := pathOf(v)
					if !ok {
						pv = strings.Trim(v, "/")
					}
					if t := pathTerm(pv); t != "" {
						pv = t
					}
					v = pv
				}
				textFilters[t.field] = append(textFilters[t.field], v)
			case t.field == fExit:
				n, err := strconv.Atoi(t.value)
				if err != nil {
					return nil, fmt.Errorf("index: query: %w", memex.Errorf(memex.ErrInvalid, "exit:%s: not an exit status", t.value))
				}
				p.exits = append(p.exits, n)
			case t.field == "before" || t.field == "after":
				id, err := boundOf(t.field, t.value)
				if err != nil {
					return nil, err
				}
				if t.field == "before" && (p.before.IsZero() || id.Compare(p.before) < 0) {
					p.before = id
				}
				if t.field == "after" && (p.after.IsZero() || id.Compare(p.after) > 0) {
					p.after = id
				}
			}
		}
	}
	for f, vs := range textFilters {
		if old, ok := p.filters[f]; ok {
			// Both the struct and the text name this field: the struct's
			// value must be among the text's alternatives.
			keep := false
			for _, v := range vs {
				if v == old[0] {
					keep = true
				}
			}
			if !keep {
				p.filters[f] = []string{"\x00none"}
			}
			continue
		}
		p.filters[f] = vs
	}
	return p, nil
}

// boundOf is the ID a before: or after: value stands for: an ID as it
// is, a time as the first ID of its millisecond (so after:T keeps what was
// created at T or later, before:T what was created earlier).
func boundOf(field, value string) (memex.ID, error) {
	if id, err := memex.ParseID(value); err == nil {
		return id, nil
	}
	t, err := memex.ParseTime(value, time.Now())
	if err != nil {
		return memex.ID{}, fmt.Errorf("index: query: %w", memex.Errorf(memex.ErrInvalid, "%s:%s: want an entry ID or a time: %s", field, value, memex.TimeForms))
	}
	return memex.IDFloor(t), nil
}

// wordsOf splits plain text into query words the way the tokenizer splits
// documents.
func wordsOf(s string) []word {
	var out []word
	for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) }) {
		if len(run) > maxRunBytes {
			for _, seg := range pathSegments([]byte(run)) {
				out = append(out, wordsOf(string(seg))...)
			}
			continue
		}
		// A word longer than a term (a deep path) is still looked for by
		// its parts and, for a path, as the path filter holds it.
		if w := wordOf(run); w.whole != "" && (len(w.whole) <= maxTermBytes || len(w.parts) > 0) {
			out = append(out, w)
		}
	}
	return out
}

func phraseOf(s, field string) qphrase {
	ph := qphrase{text: s}
	for _, w := range wordsOf(s) {
		ph.words = append(ph.words, qword{w: w, field: field})
	}
	return ph
}

// token is one lexical item of the query text.
type token struct {
	field  string // lower-cased known field name, or ""
	value  string
	quoted bool
}

// queryFields are the names recognised before a colon.
var queryFields = map[string]bool{
	fProject: true, fSession: true, fAgent: true, fKind: true, fTool: true, fPath: true,
	fExit: true, "before": true, "after": true, fSummary: true, fContent: true, fInput: true,
}

// lex splits the query text into words, quoted phrases and field:value
// pairs. An unterminated quote or a field with no value is an error.
func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		r := rune(s[i])
		if r < 0x80 && unicode.IsSpace(r) {
			i++
			continue
		}
		// field:value?
		if k := fieldPrefix(s[i:]); k > 0 {
			field := strings.ToLower(s[i : i+k])
			i += k + 1
			if i >= len(s) || s[i] == ' ' || s[i] == '\t' || s[i] == '\n' {
				return nil, fmt.Errorf("index: query: %w", memex.Errorf(memex.ErrInvalid, "%s: has no value", field))
			}
			v, quoted, next, err := value(s, i)
			if err != nil {
				return nil, err
			}
			if v == "" {
				return nil, fmt.Errorf("index: query: %w", memex.Errorf(memex.ErrInvalid, "%s: empty value", field))
			}
			toks = append(toks, token{field: field, value: v, quoted: quoted})
			i = next
			continue
		}
		v, quoted, next, err := value(s, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, token{value: v, quoted: quoted})
		i = next
	}
	return toks, nil
}

// fieldPrefix returns the length of a known field name at the start of s
// followed by a colon, or 0.
func fieldPrefix(s string) int {
	k := strings.IndexByte(s, ':')
	if k <= 0 || k > 8 {
		return 0
	}
	if !queryFields[strings.ToLower(s[:k])] {
		return 0
	}
	return k
}

// value reads a quoted string or a bare word starting at s[i].
func value(s string, i int) (v string, quoted bool, next int, err error) {
	if s[i] == '"' {
		end := strings.IndexByte(s[i+1:], '"')
		if end < 0 {
			return "", false, 0, fmt.Errorf("index: query: %w", memex.Errorf(memex.ErrInvalid, "unterminated quote at offset %d", i))
		}
		return s[i+1 : i+1+end], true, i + 2 + end, nil
	}
	j := i
	for j < len(s) && !(s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r') {
		if s[j] == '"' && j > i {
			break
		}
		j++
	}
	return s[i:j], false, j, nil
}

// scoring is the words the ranking uses: every word of a query in code
// (one word with a joiner, an underscore or a case change: `generate_html`,
// `auth/middleware.go:42`, `TypeError: cannot read`), where `if`, `go` and
// `on` may be what is looked for; of a query in plain words ("what failed
// when we ran the migrations") only the words that are not function words,
// unless it has no others.
func (p *parsed) scoring() []qword {
	if p.content != nil {
		return p.content
	}
	p.content = p.words
	for _, w := range p.words {
		if len(w.w.parts) > 0 || len(w.w.extra) > 0 || !isAllLetters(w.w.whole) && !isDigits(w.w.whole) {
			return p.content
		}
	}
	var keep []qword
	for _, w := range p.words {
		if !stopWords[w.w.whole] {
			keep = append(keep, w)
		}
	}
	if len(keep) > 0 {
		p.content = keep
	}
	return p.content
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// stopWords are English function words: pronouns, articles,
// prepositions, conjunctions, auxiliaries and question words, and the
// letters an apostrophe leaves (it's → it, s). A question is asked with
// them; an answer rarely shares them in a way that tells it apart.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an the and or but nor so yet if then than as of at by for from in into on onto to
		with without within about above below over under after before between through during
		since until upon off out up down again further once here there when where why how
		what which who whom whose this that these those
		i me my mine myself we us our ours ourselves you your yours yourself yourselves
		he him his himself she her hers herself it its itself they them their theirs themselves
		am is are was were be been being have has had having do does did doing done
		will would shall should can could may might must ought
		not no all any both each few more most other some such only own same too very just
		s t d ll m o re ve y don didn doesn isn aren wasn weren hasn haven hadn won wouldn
		shouldn couldn mustn
		also ever let lets get got`) {
		m[w] = true
	}
	return m
}()
