package deref

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// DefaultContextBudget is the budget the surfaces (CLI, HTTP, MCP, the
// viewer) give a context request that names none.
const DefaultContextBudget = 4000

// ContextOptions select the entries of an IndexedSummary. Session, Project
// or both must be set. The zero Before means no bound. Budget is the
// bound itself, never a default: a caller that computes what is left of a
// larger budget may pass 0, and gets memex.ErrBudgetTooSmall rather than
// DefaultContextBudget tokens (a caller with no budget of its own passes
// DefaultContextBudget).
type ContextOptions struct {
	Session string
	// Agent narrows Session to that agent's session of the name.
	Agent   string
	Project string
	Budget  int
	Before  memex.ID // only entries strictly before this ID
	// Checkout, when set, marks the entries whose file lines it can
	// check (see stale.go); the mark is part of the entry's line.
	Checkout *Checkout
}

// ContextEntry is one line of an IndexedSummary.
type ContextEntry struct {
	ID      string     `json:"id"`
	Summary string     `json:"summary"`
	Tokens  int64      `json:"tokens"`
	Kind    memex.Kind `json:"kind"`
	Tool    string     `json:"tool"`
	Created time.Time  `json:"created"`
	// Mark and Evidence: see Item.
	Mark     string `json:"mark,omitempty"`
	Evidence []Mark `json:"evidence,omitempty"`
}

// ContextResult is an IndexedSummary: Total entries matched, Omitted of
// them left out for the budget, Entries the rest in session order. Used
// counts the tokens of Text, which the budget bounds.
type ContextResult struct {
	Budget  int            `json:"budget"`
	Used    int            `json:"used"`
	Total   int            `json:"total"`
	Omitted int            `json:"omitted"`
	Entries []ContextEntry `json:"entries"`

	// Text is the plain rendering: a header with totals, one line
	// "ID  summary  (N tok)" per entry, and a footer when entries were
	// left out.
	Text string `json:"-"`
}

// Context builds the IndexedSummary of a session and/or project within the
// budget, keeping the entries doc.go ranks highest. It fails with
// memex.ErrInvalid when neither session nor project is given or the
// budget is negative, memex.ErrNotFound when nothing matches, and
// memex.ErrBudgetTooSmall (naming the minimum) when the header and footer
// alone do not fit, as in a budget of 0.
func (r *Reader) Context(ctx context.Context, opts ContextOptions) (ContextResult, error) {
	budget := opts.Budget
	if budget < 0 {
		return ContextResult{}, fmt.Errorf("deref: context: budget %d: %w", budget, memex.ErrInvalid)
	}
	entries, err := r.contextEntries(ctx, opts)
	if err != nil {
		return ContextResult{}, err
	}
	res := ContextResult{Budget: budget, Total: len(entries), Entries: []ContextEntry{}}
	hdr := contextHeader(opts, entries)
	lines := make([]string, len(entries))
	cost := make([]int, len(entries))
	all := count(hdr + "\n")
	marks := r.CheckEntries(ctx, opts.Checkout, entries)
	for i, e := range entries {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return ContextResult{}, err
			}
		}
		lines[i] = contextLine(e, MarkText(marks[i]))
		cost[i] = count(lines[i])
		all += cost[i]
	}
	prio := priorities(entries)
	// Highest priority first; within a priority, the most recent first.
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		if prio[order[a]] != prio[order[b]] {
			return prio[order[a]] > prio[order[b]]
		}
		return order[a] > order[b]
	})
	keep := make([]bool, len(entries))
	kept := len(entries)
	for i := range keep {
		keep[i] = true
	}
	render := func() string {
		var sb strings.Builder
		sb.WriteString(hdr)
		sb.WriteByte('\n')
		for i, l := range lines {
			if keep[i] {
				sb.WriteString(l)
			}
		}
		if kept < len(entries) {
			sb.WriteString(contextFooter(opts, len(entries)-kept, len(entries), all))
		}
		return sb.String()
	}
	if all > budget {
		// Plan with the summed line counts, then check the exact count.
		footer := count(contextFooter(opts, len(entries), len(entries), all))
		minimum := count(hdr+"\n") + footer
		if budget < minimum {
			return ContextResult{}, fmt.Errorf("deref: context: %w", memex.Errorf(memex.ErrBudgetTooSmall,
				"a budget of %s is too small for the context's header: need at least %d", plural(budget, "token"), minimum))
		}
		for i := range keep {
			keep[i] = false
		}
		kept = 0
		room := budget - minimum
		for _, i := range order {
			if cost[i] <= room {
				keep[i] = true
				kept++
				room -= cost[i]
			}
		}
	}
	text := render()
	used := count(text)
	// Counts of lines add up to at least the count of their concatenation
	// in practice; should they not, drop the lowest-ranked kept lines.
	for j := len(order) - 1; used > budget && j >= 0; j-- {
		if i := order[j]; keep[i] {
			keep[i] = false
			kept--
			text = render()
			used = count(text)
		}
	}
	if used > budget {
		return ContextResult{}, fmt.Errorf("deref: context: cannot fit %d tokens: %w", budget, memex.ErrBudgetTooSmall)
	}
	for i, e := range entries {
		if keep[i] {
			res.Entries = append(res.Entries, ContextEntry{
				ID: e.ID.String(), Summary: e.DisplaySummary(), Tokens: e.Tokens,
				Kind: e.Kind, Tool: e.Tool, Created: e.Created, Mark: Worst(marks[i]), Evidence: marks[i],
			})
		}
	}
	res.Omitted = len(entries) - kept
	res.Text, res.Used = text, used
	return res, nil
}

// contextEntries collects the selected entries in ID (session) order.
func (r *Reader) contextEntries(ctx context.Context, opts ContextOptions) ([]memex.Entry, error) {
	var out []memex.Entry
	keep := func(e memex.Entry) error {
		if opts.Project != "" && e.Project != opts.Project {
			return nil
		}
		if !opts.Before.IsZero() && e.ID.Compare(opts.Before) >= 0 {
			return nil
		}
		out = append(out, e)
		return nil
	}
	switch {
	case opts.Session != "":
		ref, err := ResolveSession(ctx, r.store, memex.SessionRef{Session: opts.Session, Project: opts.Project, Agent: opts.Agent})
		if err != nil {
			return nil, fmt.Errorf("deref: context: %w", err)
		}
		if err := r.store.Session(ctx, ref, keep); err != nil {
			return nil, fmt.Errorf("deref: context: %w", err)
		}
	case opts.Project != "":
		var to time.Time
		if !opts.Before.IsZero() {
			to = opts.Before.Time().Add(time.Millisecond)
		}
		if err := r.store.Scan(ctx, time.Time{}, to, keep); err != nil {
			return nil, fmt.Errorf("deref: context: %w", err)
		}
	default:
		return nil, fmt.Errorf("deref: context: give a session or a project: %w", memex.ErrInvalid)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("deref: context: %w", memex.Errorf(memex.ErrNotFound, "no entries for %s: not found", scope(opts)))
	}
	return out, nil
}

func scope(opts ContextOptions) string {
	var parts []string
	if opts.Session != "" {
		parts = append(parts, "session "+opts.Session)
	}
	if opts.Project != "" {
		parts = append(parts, "project "+opts.Project)
	}
	if !opts.Before.IsZero() {
		parts = append(parts, "before "+opts.Before.String())
	}
	return strings.Join(parts, " · ")
}

// contextHeader sums up the entries: count, tokens archived, time span and
// agents.
func contextHeader(opts ContextOptions, entries []memex.Entry) string {
	var tokens int64
	for _, e := range entries {
		tokens += e.Tokens
	}
	first, last, names := Span(entries)
	s := "[memex context · " + scope(opts) + " · " + plural(len(entries), "entry") + " · " + commas(int(tokens)) + " tokens archived · " +
		first.UTC().Format("2006-01-02 15:04:05") + " → " + last.UTC().Format("2006-01-02 15:04:05") + " UTC"
	if len(names) > 0 {
		s += " · agents: " + strings.Join(names, ", ")
	}
	return s + "]"
}

// Span returns the earliest and latest creation times of entries (which
// must not be empty) and the agents that wrote them, sorted.
func Span(entries []memex.Entry) (first, last time.Time, agents []string) {
	seen := map[string]bool{}
	first, last = entries[0].Created, entries[0].Created
	for _, e := range entries {
		if e.Agent != "" && !seen[e.Agent] {
			seen[e.Agent] = true
			agents = append(agents, e.Agent)
		}
		if e.Created.Before(first) {
			first = e.Created
		}
		if e.Created.After(last) {
			last = e.Created
		}
	}
	sort.Strings(agents)
	return first, last, agents
}

// contextLine is "ID  summary  (N tok)\n", with " · mark" after the
// summary when mark is set.
func contextLine(e memex.Entry, mark string) string {
	sum := strings.Join(strings.Fields(strings.ToValidUTF8(e.DisplaySummary(), "\uFFFD")), " ")
	if sum == "" {
		sum = string(e.Kind)
	}
	if mark != "" {
		sum += " · " + mark
	}
	return e.ID.String() + "  " + sum + "  (" + commas(int(e.Tokens)) + " tok)\n"
}

// contextFooter says how many entries were left out and how to list them
// all: the same command with a budget that holds every line.
func contextFooter(opts ContextOptions, omitted, total, all int) string {
	cmd := "memex context"
	if opts.Session != "" {
		cmd += " --session " + shellQuote(opts.Session)
		if opts.Agent != "" {
			cmd += " --agent " + shellQuote(opts.Agent)
		}
	}
	if opts.Project != "" {
		cmd += " --project " + shellQuote(opts.Project)
	}
	if !opts.Before.IsZero() {
		cmd += " --before " + opts.Before.String()
	}
	need := (all + all/8 + 99) / 100 * 100
	return "[memex: " + commas(omitted) + " of " + commas(total) + " entries left out (older steps, repeated reads and listings first); list them all: " +
		cmd + " --budget " + fmt.Sprint(need) + "]\n"
}

func shellQuote(s string) string {
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c == '/' || c == ':' || c == '@' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// Priorities of IndexedSummary lines: what a developer would keep when the
// budget forces a choice (see doc.go).
const (
	prioRepeat  = iota // a read, listing or search of an input seen before
	prioLookup         // reads, listings, searches, host events
	prioReason         // reasoning blocks
	prioTool           // other tool calls
	prioWork           // edits, commits, messages (decisions)
	prioFix            // edits after a failure, and the passing rerun
	prioFailure        // failed runs: the evidence of what went wrong
	prioLesson         // failure lessons (package memory): what the failures came to, kept before them
	prioNote           // agent- or user-written notes
)

func priorities(entries []memex.Entry) []int {
	prio := make([]int, len(entries))
	seen := map[string]bool{}
	failed := map[string]bool{} // inputs that failed, for the run that fixes them
	openFailure := false        // a failure not yet followed by a passing run
	for i, e := range entries {
		key := e.Tool + "\x00" + e.Input
		switch {
		case e.Kind == memex.KindNote:
			prio[i] = prioNote
		case e.Kind == memex.KindLesson:
			prio[i] = prioLesson
		case isFailure(e):
			prio[i] = prioFailure
			failed[key] = true
			openFailure = true
		case e.Kind == memex.KindMessage || e.Kind == memex.KindCommit:
			prio[i] = prioWork
		case e.Kind == memex.KindReasoning:
			prio[i] = prioReason
		case e.Kind == memex.KindEvent:
			prio[i] = prioLookup
		case isEdit(e):
			prio[i] = prioWork
			if openFailure {
				prio[i] = prioFix
			}
		case isLookup(e):
			prio[i] = prioLookup
			if seen[key] {
				prio[i] = prioRepeat
			}
		default:
			prio[i] = prioTool
			if failed[key] {
				// The same command passing after it failed: the fix's proof.
				prio[i] = prioFix
				delete(failed, key)
				openFailure = len(failed) > 0
			}
		}
		seen[key] = true
	}
	return prio
}

func isFailure(e memex.Entry) bool {
	if e.Exit != nil && *e.Exit != 0 {
		return true
	}
	if e.Kind != memex.KindTool {
		// Prose that mentions a failure ("the test failed as expected")
		// is not one.
		return false
	}
	s := e.Summary
	for _, w := range []string{"FAIL", " failed", "Error:", "error:", "Traceback", "panic:", "Exception"} {
		if strings.Contains(s, w) && !strings.Contains(s, " 0 failed") {
			return true
		}
	}
	return false
}

func isEdit(e memex.Entry) bool {
	switch strings.ToLower(e.Tool) {
	case "edit", "multiedit", "write", "str_replace_editor", "str_replace_based_edit_tool", "apply_patch", "notebookedit", "write_file", "edit_file":
		return true
	}
	for _, p := range []string{" · edited ", " · wrote ", " · created ", " · diff: ", " · applied patch"} {
		if strings.Contains(e.Summary, p) {
			return true
		}
	}
	return false
}

func isLookup(e memex.Entry) bool {
	switch strings.ToLower(e.Tool) {
	case "read", "grep", "glob", "ls", "view", "read_file", "list_dir", "search", "find", "websearch", "webfetch":
		return true
	}
	f := strings.Fields(e.Input)
	if len(f) == 0 {
		return false
	}
	switch path.Base(f[0]) {
	case "cat", "nl", "head", "tail", "less", "grep", "rg", "ag", "find", "fd", "ls", "tree", "pwd", "wc":
		return true
	case "sed":
		return len(f) > 1 && f[1] == "-n"
	case "git":
		return len(f) > 1 && (f[1] == "status" || f[1] == "log" || f[1] == "show" || f[1] == "grep" || f[1] == "branch")
	}
	return false
}

// SessionResolver is the optional method of a Store that completes a
// unique prefix of a session's name (archive.Store has it).
type SessionResolver interface {
	// ResolveSession returns ref with its name completed when it is a
	// prefix of one session's name only, ref itself when it is a name or
	// no session's prefix, and memex.ErrAmbiguous, listing them, when it
	// starts the names of several.
	ResolveSession(ctx context.Context, ref memex.SessionRef) (memex.SessionRef, error)
}

// ResolveSession completes ref's name as s's ResolveSession does, so that
// the first characters of a UUID name its session wherever a session is
// read by name (memex replay 5f0c2a91, context --session 5f0c2a91); a
// Store without that method gets ref back as it is.
func ResolveSession(ctx context.Context, s any, ref memex.SessionRef) (memex.SessionRef, error) {
	if rs, ok := s.(SessionResolver); ok {
		return rs.ResolveSession(ctx, ref)
	}
	return ref, nil
}
