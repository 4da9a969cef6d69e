package eval

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/lazyre"
)

// Probe is one question put to a strategy: at the point At of Session
// (an entry ID, an alias, or the 0-based step index), the agent needs the
// exact string Answer, which appeared earlier, and knows it by Query.
// Kind says which rule derived it (rerun, failure, edit); it is optional.
// Derived probes name their point by step index: entry IDs differ between
// two imports of the same transcripts, step indices do not.
type Probe struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	Session string `json:"session"`
	At      string `json:"at"`
	Query   string `json:"query"`
	Answer  string `json:"answer"`
	Kind    string `json:"kind,omitempty"`
}

// Probe kinds.
const (
	KindRerun   = "rerun"
	KindFailure = "failure"
	KindEdit    = "edit"
	KindRead    = "read"
	KindGrep    = "grep"
)

// DefaultKinds are the rules Derive runs when DeriveOptions.Kinds is
// empty: the committed probe sets were derived with them alone.
var DefaultKinds = []string{KindRerun, KindFailure, KindEdit}

// AllKinds are every rule, rarest shape first.
var AllKinds = []string{KindEdit, KindGrep, KindFailure, KindRerun, KindRead}

// ParseKinds reads a list of rules separated by commas (memex eval probes
// --kinds), or "all" for AllKinds; a name that is no rule is an error that
// names it and the rules.
func ParseKinds(s string) ([]string, error) {
	if strings.TrimSpace(s) == "all" {
		return AllKinds, nil
	}
	var out []string
	for _, k := range strings.Split(s, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(AllKinds, k) {
			return nil, fmt.Errorf("%q is no rule; want some of %s, or all", k, strings.Join(AllKinds, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}

// DeriveOptions select the sessions and the sample. Sessions or Project
// must be given; Max zero keeps every probe.
type DeriveOptions struct {
	Sessions []string
	Project  string // every session whose entries belong to it
	All      bool   // every session of the archive
	Seed     uint64
	Max      int
	// PerSession caps the probes of one kind in one session, so that a
	// long session does not dominate the sample; zero means 3.
	PerSession int
	// Kinds selects the rules (KindRerun, KindFailure, KindEdit, KindRead,
	// KindGrep); empty means DefaultKinds.
	Kinds []string
}

// step is one entry of a session with its transcript rendering.
type step struct {
	e    memex.Entry
	body string
	text string // what a raw transcript shows for the entry
}

// render is the raw transcript form of an entry: a tool call shows its
// command line, then its output; anything else shows its content.
func render(e memex.Entry, body string) string {
	var sb strings.Builder
	if e.Kind == memex.KindTool && e.Input != "" {
		sb.WriteString("$ ")
		sb.WriteString(e.Input)
		sb.WriteByte('\n')
	}
	sb.WriteString(body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		sb.WriteByte('\n')
	}
	return sb.String()
}

// loadSession reads a session's entries and bodies in order.
func loadSession(ctx context.Context, s *archive.Store, session string) ([]step, error) {
	var entries []memex.Entry
	err := s.Session(ctx, memex.SessionRef{Session: session}, func(e memex.Entry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("eval: session %s: %w", session, err)
	}
	steps := make([]step, len(entries))
	for i, e := range entries {
		b, err := s.ReadAll(ctx, e.ID)
		if err != nil {
			return nil, fmt.Errorf("eval: session %s: %s: %w", session, e.ID, err)
		}
		steps[i] = step{e: e, body: string(b), text: render(e, string(b))}
	}
	return steps, nil
}

// projectSessions lists the sessions whose first entry belongs to project.
func projectSessions(ctx context.Context, s *archive.Store, project string) ([]string, error) {
	infos, err := s.Sessions(ctx)
	if err != nil {
		return nil, fmt.Errorf("eval: sessions: %w", err)
	}
	var out []string
	for _, in := range infos {
		p := in.Project
		if project == "" || p == project || strings.HasPrefix(p, project+"/") {
			out = append(out, in.Session)
		}
	}
	return out, nil
}

// Derive derives probes from the archived sessions opts selects. The
// result is a function of the archive's content and opts alone, sorted by
// session and step.
func Derive(ctx context.Context, s *archive.Store, opts DeriveOptions) ([]Probe, error) {
	sessions := opts.Sessions
	if len(sessions) == 0 {
		if opts.Project == "" && !opts.All {
			return nil, fmt.Errorf("eval: derive: name sessions or a project: %w", memex.ErrInvalid)
		}
		var err error
		if sessions, err = projectSessions(ctx, s, opts.Project); err != nil {
			return nil, err
		}
	}
	per := opts.PerSession
	if per <= 0 {
		per = 3
	}
	type cand struct {
		p    Probe
		step int
	}
	var all []cand
	for _, name := range sessions {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		steps, err := loadSession(ctx, s, name)
		if err != nil {
			return nil, err
		}
		kinds := opts.Kinds
		if len(kinds) == 0 {
			kinds = DefaultKinds
		}
		for _, c := range deriveSession(steps, opts.Seed, per, kinds) {
			all = append(all, cand{c, stepIndex(steps, c.At)})
		}
	}
	if opts.Max > 0 && len(all) > opts.Max {
		r := rand.New(rand.NewPCG(opts.Seed, 0))
		r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		all = all[:opts.Max]
	}
	slices.SortFunc(all, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.p.Session, b.p.Session), cmp.Compare(a.step, b.step), cmp.Compare(a.p.ID, b.p.ID))
	})
	out := make([]Probe, len(all))
	for i, c := range all {
		out[i] = c.p
	}
	return out, nil
}

// stepIndex reads a derived probe's point, which is always a step index.
func stepIndex(_ []step, at string) int {
	n, err := strconv.Atoi(at)
	if err != nil {
		return -1
	}
	return n
}

var (
	errorLine = lazyre.New(`(?i)(error|exception|fail|not found|no such|cannot|can't|invalid|denied|unexpected|traceback)`)
	readPath  = lazyre.New(`· read (\S+)`)
	editPath  = lazyre.New(`· edited (\S+)`)
	// nlPrefix is the line number `nl -ba` and `cat -n` put before a line.
	nlPrefix = lazyre.New(`^\s*\d+\t`)
)

// distinctive reports whether a (trimmed) line can serve as an answer: long
// enough to be specific, short enough to be a line a person would quote,
// with words in it, and not transcript markup.
func distinctive(l string) bool {
	if len(l) < 12 || len(l) > 200 {
		return false
	}
	letters := 0
	for _, r := range l {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			letters++
		}
	}
	if letters < 6 {
		return false
	}
	return !strings.Contains(l, "<returncode>") && !strings.Contains(l, "<output>") && !strings.Contains(l, "</output>")
}

// deriveSession applies the rules kinds names to one session.
func deriveSession(steps []step, seed uint64, per int, kinds []string) []Probe {
	on := map[string]bool{}
	for _, k := range kinds {
		on[k] = true
	}
	if len(steps) < 3 {
		return nil
	}
	var sb strings.Builder
	for _, st := range steps {
		sb.WriteString(st.text)
	}
	transcript := sb.String()
	session := steps[0].e.Session
	h := fnv.New64a()
	h.Write([]byte(session))
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	n := len(steps)

	used := map[string]bool{}
	// answer checks a candidate line: once in the transcript, not yet
	// used, and not inside the query (case-insensitively).
	answer := func(l, query string) bool {
		return distinctive(l) && !used[l] && strings.Count(transcript, l) == 1 &&
			!strings.Contains(strings.ToLower(query), strings.ToLower(l))
	}
	pick := func(ls []string) string { return ls[r.IntN(len(ls))] }
	later := func(after int) int {
		// A step after `after`, leaving at least one step between; the
		// session's last entry is the latest point a probe can name.
		lo := min(after+2, n-1)
		return lo + r.IntN(n-lo)
	}
	var out []Probe
	add := func(kind string, ev, at int, query, ans string, count map[string]int) {
		used[ans] = true
		count[kind]++
		out = append(out, Probe{
			ID:      fmt.Sprintf("%s#%s-%d", session, kind, ev),
			Project: steps[0].e.Project, Session: session,
			At: strconv.Itoa(at), Query: query, Answer: ans, Kind: kind,
		})
	}
	count := map[string]int{}

	// The rules run from the rarest shape to the commonest, so that a line
	// two rules could claim goes to the rarer.
	// edit: a file read, then edited; the answer is a line of the read
	// that the edit removed or changed: one the edit's sed command names
	// (s/OLD/NEW/ matches it, or N,Mc / N,Md covers its number), or one
	// whose neighbours a later read still shows but which it no longer has.
	for e, st := range steps {
		m := editPath().FindStringSubmatch(st.e.Summary)
		if !on[KindEdit] || m == nil || e+1 >= n || count[KindEdit] >= per {
			continue
		}
		path := m[1]
		before, after := -1, -1
		for k := e - 1; k >= 0 && before < 0; k-- {
			if rm := readPath().FindStringSubmatch(steps[k].e.Summary); rm != nil && rm[1] == path {
				before = k
			}
		}
		for k := e + 1; k < n && after < 0; k++ {
			if rm := readPath().FindStringSubmatch(steps[k].e.Summary); rm != nil && rm[1] == path {
				after = k
			}
		}
		if before < 0 {
			continue
		}
		orig := strings.Split(steps[before].body, "\n")
		var cands []string
		for _, l := range sedChanged(st.e.Input, steps[before].e.Summary, orig) {
			if answer(l, path) {
				cands = append(cands, l)
			}
		}
		if after >= 0 {
			now := lineSet(steps[after].body, true)
			for k := 1; k+1 < len(orig); k++ {
				l := strings.TrimSpace(nlPrefix().ReplaceAllString(orig[k], ""))
				prev := strings.TrimSpace(nlPrefix().ReplaceAllString(orig[k-1], ""))
				next := strings.TrimSpace(nlPrefix().ReplaceAllString(orig[k+1], ""))
				if prev != "" && next != "" && now[prev] && now[next] && !now[l] && answer(l, path) && !slices.Contains(cands, l) {
					cands = append(cands, l)
				}
			}
		}
		if len(cands) > 0 {
			add(KindEdit, before, later(e), path, pick(cands), count)
		}
	}
	// grep: a search of files (a Grep tool, grep, rg) whose output has
	// lines; the answer is one of them, the query the pattern searched
	// for, the point a later step.
	for i, st := range steps {
		if !on[KindGrep] || st.e.Kind != memex.KindTool || i+1 >= n-1 || count[KindGrep] >= per {
			continue
		}
		pattern, ok := grepPattern(st.e)
		if !ok {
			continue
		}
		var cands []string
		for _, l := range strings.Split(st.body, "\n") {
			if l = strings.TrimSpace(l); answer(l, pattern) {
				cands = append(cands, l)
			}
		}
		if len(cands) > 0 {
			add(KindGrep, i, later(i), pattern, pick(cands), count)
		}
	}
	// failure: a failed command with work after it; the key error line is
	// the last line that reads like an error.
	for i, st := range steps {
		if !on[KindFailure] || st.e.Kind != memex.KindTool || st.e.Exit == nil || *st.e.Exit == 0 || i+1 >= n-1 || count[KindFailure] >= per {
			continue
		}
		query := askedAs(st.e) + " error"
		lines := strings.Split(st.body, "\n")
		for k := len(lines) - 1; k >= 0; k-- {
			l := strings.TrimSpace(lines[k])
			if errorLine().MatchString(l) && answer(l, query) {
				add(KindFailure, i, later(i), query, l, count)
				break
			}
		}
	}

	// rerun: consecutive runs of one command with different output.
	lastRun := map[string]int{}
	for j, st := range steps {
		if !on[KindRerun] || st.e.Kind != memex.KindTool || strings.TrimSpace(st.e.Input) == "" {
			continue
		}
		cmdline := askedAs(st.e)
		i, ok := lastRun[cmdline]
		lastRun[cmdline] = j
		if !ok || steps[i].body == st.body || count[KindRerun] >= per {
			continue
		}
		now := lineSet(st.body, false)
		var cands []string
		for _, l := range strings.Split(steps[i].body, "\n") {
			l = strings.TrimSpace(l)
			if !now[l] && answer(l, cmdline) {
				cands = append(cands, l)
			}
		}
		if len(cands) > 0 {
			add(KindRerun, i, j, cmdline, pick(cands), count)
		}
	}
	// read: a file read whose content the agent needs later; the answer
	// is a line of it, the query the file's path.
	for i, st := range steps {
		m := readPath().FindStringSubmatch(st.e.Summary)
		if !on[KindRead] || m == nil || i+1 >= n-1 || count[KindRead] >= per {
			continue
		}
		var cands []string
		for _, l := range strings.Split(st.body, "\n") {
			l = strings.TrimSpace(nlPrefix().ReplaceAllString(readNumber().ReplaceAllString(l, ""), ""))
			if answer(l, m[1]) && !errorLine().MatchString(l) {
				cands = append(cands, l)
			}
		}
		if len(cands) > 0 {
			add(KindRead, i, later(i), strings.TrimRight(m[1], ":"), pick(cands), count)
		}
	}

	return out
}

// readNumber is the line number Claude Code's Read puts before a line
// ("    12→").
var readNumber = lazyre.New(`^\s*\d+→`)

// askedAs is how an agent names a tool call when it searches for it: a
// shell command as it was typed; a structured call (a JSON object of
// arguments, as Claude Code's tools take) by its command, path, pattern or
// URL; else the input as it is.
func askedAs(e memex.Entry) string {
	in := strings.TrimSpace(e.Input)
	if !strings.HasPrefix(in, "{") {
		return in
	}
	var args map[string]any
	if json.Unmarshal([]byte(in), &args) != nil {
		return in
	}
	for _, k := range []string{"command", "file_path", "notebook_path", "pattern", "path", "url", "query"} {
		if v, ok := args[k].(string); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return in
}

// grepCommand finds the pattern of a grep or rg command line.
var grepCommand = lazyre.New(`(?:^|[|;&]\s*)(?:grep|rg|egrep)\s+(?:-\S+\s+)*(?:'([^']+)'|"([^"]+)"|([^\s|;&'"-][^\s|;&]*))`)

// grepPattern is what a search of files looked for: the pattern argument
// of a Grep tool, or of a grep or rg command.
func grepPattern(e memex.Entry) (string, bool) {
	in := strings.TrimSpace(e.Input)
	if strings.HasPrefix(in, "{") {
		var args map[string]any
		if json.Unmarshal([]byte(in), &args) == nil {
			if v, ok := args["pattern"].(string); ok && strings.TrimSpace(v) != "" && strings.EqualFold(e.Tool, "grep") {
				return strings.TrimSpace(v), true
			}
		}
		return "", false
	}
	if m := grepCommand().FindStringSubmatch(in); m != nil {
		return m[1] + m[2] + m[3], true
	}
	return "", false
}

var (
	sedScript = lazyre.New(`sed\s+-i(?:\.\w+)?\s+(?:-e\s+)?(?:'([^']*)'|"([^"]*)")`)
	readRange = lazyre.New(`· read \S+?(?::| \((?:lines (\d+)-\d+|first \d+ lines)\))`)
	sedLines  = lazyre.New(`^(\d+)(?:,(\d+))?[cd]`)
	sedAddr   = lazyre.New(`^(?:(\d+)(?:,(\d+))?)?s(.)`)
	nlNumber  = lazyre.New(`^\s*(\d+)\t`)
)

// sedChanged returns the trimmed lines of a read (numbers stripped) that
// the sed -i command in input removes or rewrites. It understands
// [N[,M]]s/OLD/NEW/ with a literal OLD and N[,M]c / N[,M]d on a read with
// line numbers; anything else yields nothing rather than a guess.
func sedChanged(input, readSummary string, read []string) []string {
	m := sedScript().FindStringSubmatch(input)
	if m == nil {
		return nil
	}
	script := m[1] + m[2]
	// A read without line numbers of its own is numbered from where the
	// summary says it starts (the whole file and a head start at 1), its
	// first line being the one after the <output> wrapper when present.
	first := 0
	if rm := readRange().FindStringSubmatch(readSummary); rm != nil {
		first = 1
		if rm[1] != "" {
			first, _ = strconv.Atoi(rm[1])
		}
	}
	start := slices.Index(read, "<output>") + 1
	type line struct {
		num  int // 0 when the read has no numbers
		text string
	}
	lines := make([]line, 0, len(read))
	for i, l := range read {
		num := 0
		if nm := nlNumber().FindStringSubmatch(l); nm != nil {
			num, _ = strconv.Atoi(nm[1])
		} else if first > 0 && i >= start {
			num = first + i - start
		}
		lines = append(lines, line{num, strings.TrimSpace(nlPrefix().ReplaceAllString(l, ""))})
	}
	inRange := func(num int, from, to string) bool {
		if from == "" {
			return true
		}
		lo, _ := strconv.Atoi(from)
		hi := lo
		if to != "" {
			hi, _ = strconv.Atoi(to)
		}
		return num >= lo && num <= hi
	}
	var out []string
	if lm := sedLines().FindStringSubmatch(script); lm != nil {
		for _, l := range lines {
			if l.num > 0 && inRange(l.num, lm[1], lm[2]) && l.text != "" {
				out = append(out, l.text)
			}
		}
		return out
	}
	am := sedAddr().FindStringSubmatch(script)
	if am == nil {
		return nil
	}
	old, ok := sedLiteral(script[len(am[0]):], am[3][0])
	if !ok || strings.TrimSpace(old) == "" {
		return nil
	}
	for _, l := range lines {
		if strings.Contains(l.text, old) && (am[1] == "" || l.num > 0 && inRange(l.num, am[1], am[2])) {
			out = append(out, l.text)
		}
	}
	return out
}

// sedLiteral reads a sed pattern up to the delimiter and returns it as a
// literal string; ok is false when the pattern uses regular-expression
// operators other than '.' (taken literally: code is full of dots and the
// match is checked against the read anyway).
func sedLiteral(s string, delim byte) (string, bool) {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			sb.WriteByte(s[i])
		case c == delim:
			return sb.String(), true
		case strings.IndexByte("*[]^$", c) >= 0:
			return "", false
		default:
			sb.WriteByte(c)
		}
	}
	return "", false
}

// lineSet is the set of a body's trimmed lines, without `nl` numbers when
// stripNumbers is set.
func lineSet(body string, stripNumbers bool) map[string]bool {
	set := map[string]bool{}
	for _, l := range strings.Split(body, "\n") {
		if stripNumbers {
			l = nlPrefix().ReplaceAllString(l, "")
		}
		set[strings.TrimSpace(l)] = true
	}
	return set
}

// WriteProbes writes probes as JSON lines.
func WriteProbes(w io.Writer, probes []Probe) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range probes {
		if err := enc.Encode(p); err != nil {
			return fmt.Errorf("eval: write probes: %w", err)
		}
	}
	return nil
}

// ReadProbes reads JSON lines of probes; blank lines are skipped. A line
// that is not a probe, or lacks session, at or answer, fails with
// memex.ErrInvalid naming the line.
func ReadProbes(r io.Reader) ([]Probe, error) {
	var out []Probe
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var p Probe
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, fmt.Errorf("eval: probes line %d: %v: %w", n, err, memex.ErrInvalid)
		}
		if p.Session == "" || p.At == "" || p.Answer == "" {
			return nil, fmt.Errorf("eval: probes line %d: session, at and answer are required: %w", n, memex.ErrInvalid)
		}
		if p.ID == "" {
			p.ID = fmt.Sprintf("line-%d", n)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: read probes: %w", err)
	}
	return out, nil
}
