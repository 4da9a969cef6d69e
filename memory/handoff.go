package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/summarize"
)

// DefaultHandoffBudget is the budget of a Handoff whose budget is zero.
const DefaultHandoffBudget = 1500

// HandoffOptions configure Handoff. Project is required.
type HandoffOptions struct {
	Project string
	// Budget bounds the capsule's text in tokens; 0 means
	// DefaultHandoffBudget.
	Budget int
	// Exclude is a session left out (the one being started), so that the
	// capsule speaks of the earlier ones.
	Exclude string
	// Checkout, when set, marks the evidence of edited files.
	Checkout *deref.Checkout
	// Now replaces time.Now (tests).
	Now func() time.Time
}

// Limits of the sections before the budget cuts them.
const (
	maxSessions = 5
	maxNotes    = 8
	maxFailures = 6
	maxFiles    = 6
	maxCommits  = 5
)

// Section names, in the capsule's order.
const (
	SectionSessions = "sessions"
	SectionNotes    = "notes"
	SectionFailures = "failures"
	SectionFiles    = "files"
	SectionCommits  = "commits"
)

var sectionTitles = map[string]string{
	SectionSessions: "Latest sessions",
	SectionNotes:    "Notes and decisions",
	SectionFailures: "Failures still open (no later passing run)",
	SectionFiles:    "Files most edited",
	SectionCommits:  "Recent commits",
}

// Item is one line of the capsule: the ID of its evidence and what the
// line says of it.
type Item struct {
	ID      string    `json:"id"`
	Text    string    `json:"text"`
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session,omitempty"`
	Created time.Time `json:"created"`
	// Path and Edits: the file and its count of edits (section files).
	Path  string `json:"path,omitempty"`
	Edits int    `json:"edits,omitempty"`
	// Mark and Evidence: whether what the entry showed of a file still
	// stands (see deref.Mark).
	Mark     string       `json:"mark,omitempty"`
	Evidence []deref.Mark `json:"evidence,omitempty"`
}

// Section is one part of the capsule; Omitted counts its items left out
// for the budget.
type Section struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Items   []Item `json:"items"`
	Omitted int    `json:"omitted,omitempty"`
}

// Capsule is the handoff of a project: its sections within the budget,
// and their plain rendering (Text), whose token count is Used.
type Capsule struct {
	Project  string    `json:"project"`
	Budget   int       `json:"budget"`
	Used     int       `json:"used"`
	Sessions int       `json:"sessions"` // earlier sessions of the project found
	Entries  int       `json:"entries"`  // entries read for it
	Sections []Section `json:"sections"`
	Text     string    `json:"text"`
}

// Handoff builds the capsule of opts.Project. It fails with
// memex.ErrInvalid without a project, memex.ErrNotFound when the archive
// holds nothing of it, and memex.ErrBudgetTooSmall (naming the minimum)
// when the header alone does not fit.
func Handoff(ctx context.Context, s Store, opts HandoffOptions) (Capsule, error) {
	if opts.Project == "" {
		return Capsule{}, fmt.Errorf("memory: handoff: give a project: %w", memex.ErrInvalid)
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = DefaultHandoffBudget
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	entries, err := recent(ctx, s, opts.Project, now(), func(es []memex.Entry) bool {
		return len(sessionsOf(es, opts.Exclude)) > maxSessions
	})
	if err != nil {
		return Capsule{}, err
	}
	var kept []memex.Entry
	for _, e := range entries {
		if e.Session != opts.Exclude || opts.Exclude == "" {
			kept = append(kept, e)
		}
	}
	entries = kept
	if len(entries) == 0 {
		return Capsule{}, fmt.Errorf("memory: handoff: %w", memex.Errorf(memex.ErrNotFound, "nothing archived for project %s: not found", opts.Project))
	}
	c := Capsule{Project: opts.Project, Budget: budget, Entries: len(entries)}
	sessions := sessionsOf(entries, "")
	c.Sessions = len(sessions)
	c.Sections = []Section{
		{Name: SectionSessions, Items: sessionItems(sessions)},
		{Name: SectionNotes, Items: noteItems(entries)},
		{Name: SectionFailures, Items: failureItems(entries)},
		{Name: SectionFiles, Items: fileItems(ctx, s, entries, opts.Checkout)},
		{Name: SectionCommits, Items: commitItems(entries)},
	}
	for i := range c.Sections {
		c.Sections[i].Title = sectionTitles[c.Sections[i].Name]
	}
	header := handoffHeader(c, entries)
	return fit(c, header, budget)
}

// fit keeps the header and as many lines as the budget holds, taking one
// line of each section in turn.
func fit(c Capsule, header string, budget int) (Capsule, error) {
	all := c.Sections
	keep := make([]int, len(all)) // lines kept per section
	render := func() string {
		var b strings.Builder
		b.WriteString(header)
		for i, s := range all {
			if keep[i] == 0 {
				continue
			}
			b.WriteString("\n" + s.Title + ":\n")
			for _, it := range s.Items[:keep[i]] {
				b.WriteString(itemLine(it))
			}
		}
		return b.String()
	}
	text := render()
	used := summarize.Count([]byte(text))
	if used > budget {
		return Capsule{}, fmt.Errorf("memory: handoff: a budget of %d tokens cannot hold the header: need at least %d: %w",
			budget, used, memex.ErrBudgetTooSmall)
	}
	for more := true; more; {
		more = false
		for i, s := range all {
			if keep[i] >= len(s.Items) {
				continue
			}
			keep[i]++
			t := render()
			n := summarize.Count([]byte(t))
			if n > budget {
				keep[i]--
				continue
			}
			text, used, more = t, n, true
		}
	}
	c.Sections = nil
	for i, s := range all {
		s.Omitted = len(s.Items) - keep[i]
		s.Items = append([]Item{}, s.Items[:keep[i]]...) // [] in JSON, not null, when empty
		c.Sections = append(c.Sections, s)
	}
	c.Text, c.Used = text, used
	return c, nil
}

func itemLine(it Item) string {
	text := it.Text
	if t := deref.MarkText(it.Evidence); t != "" {
		text += " · " + t
	}
	return it.ID + "  " + strings.Join(strings.Fields(strings.ToValidUTF8(text, "\uFFFD")), " ") + "\n"
}

func handoffHeader(c Capsule, entries []memex.Entry) string {
	first, last, names := deref.Span(entries)
	h := "[memex handoff · " + c.Project + " · " + summarize.Plural(c.Sessions, "earlier session") +
		" · " + summarize.Plural(len(entries), "entry") + " read · " + first.UTC().Format("2006-01-02") + " → " + last.UTC().Format("2006-01-02")
	if len(names) > 0 {
		h += " · by " + strings.Join(names, ", ")
	}
	return h + "]\nEach line starts with the ID of its evidence: read it exactly with memex show ID (or the memex_read tool); memex search finds more.\n"
}

// session is what the capsule says of one session.
type session struct {
	name, agent string
	first, last time.Time
	entries     int
	task        *memex.Entry // its first prompt
	start       memex.ID     // its first entry
}

// sessionsOf sums up the agent sessions of entries (not the histories
// memex ingest git files under "git:..."), newest first.
func sessionsOf(entries []memex.Entry, exclude string) []*session {
	by := map[string]*session{}
	var order []*session
	for i := range entries {
		e := &entries[i]
		if e.Session == "" || e.Session == exclude || e.Agent == "git" || e.Kind == memex.KindCommit || e.Kind == memex.KindTag ||
			e.Kind == memex.KindIssue || e.Kind == memex.KindPR {
			continue
		}
		s := by[e.Session]
		if s == nil {
			s = &session{name: e.Session, agent: e.Agent, first: e.Created, start: e.ID}
			by[e.Session] = s
			order = append(order, s)
		}
		s.entries++
		if e.Created.After(s.last) {
			s.last = e.Created
		}
		if s.task == nil && e.Kind == memex.KindMessage && e.Attrs["role"] == "user" && strings.TrimSpace(e.DisplaySummary()) != "" {
			s.task = e
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].last.After(order[j].last) })
	return order
}

func sessionItems(sessions []*session) []Item {
	var out []Item
	for _, s := range sessions[:min(len(sessions), maxSessions)] {
		id := s.start
		task := "(no prompt archived)"
		if s.task != nil {
			id = s.task.ID
			// An issue statement's summary says "task: " already.
			task = cut(strings.TrimPrefix(s.task.DisplaySummary(), "task: "), 140)
		}
		agent := s.agent
		if agent == "" {
			agent = "unknown agent"
		}
		text := agent + " · " + s.first.UTC().Format("2006-01-02 15:04") + " → " + s.last.UTC().Format("15:04") + " UTC · " +
			summarize.Plural(s.entries, "entry") + " · session " + s.name + " · task: " + task
		out = append(out, Item{ID: id.String(), Text: text, Agent: s.agent, Session: s.name, Created: s.first})
	}
	return out
}

func noteItems(entries []memex.Entry) []Item {
	var out []Item
	for i := len(entries) - 1; i >= 0 && len(out) < maxNotes; i-- {
		e := entries[i]
		if e.Kind != memex.KindNote {
			continue
		}
		out = append(out, Item{ID: e.ID.String(), Text: cut(e.DisplaySummary(), 180) + " (" + who(e) + ")",
			Agent: e.Agent, Session: e.Session, Created: e.Created})
	}
	return out
}

// runKey identifies a command across runs: the tool and its input, with
// spaces normalised.
func runKey(e memex.Entry) string {
	return strings.ToLower(e.Tool) + "\x00" + strings.Join(strings.Fields(e.Input), " ")
}

func failureItems(entries []memex.Entry) []Item {
	open := map[string]int{} // run key -> index of its last failure, while no later run passed
	for i, e := range entries {
		if e.Kind != memex.KindTool || strings.TrimSpace(e.Input) == "" || deref.Edited(e) {
			continue
		}
		k := runKey(e)
		if deref.Failed(e) {
			open[k] = i
		} else if e.Exit != nil || looksLikeRun(e) {
			delete(open, k)
		}
	}
	idx := make([]int, 0, len(open))
	for _, i := range open {
		idx = append(idx, i)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(idx)))
	var out []Item
	for _, i := range idx[:min(len(idx), maxFailures)] {
		e := entries[i]
		out = append(out, Item{ID: e.ID.String(), Text: cut(e.DisplaySummary(), 200) + " (" + who(e) + ")",
			Agent: e.Agent, Session: e.Session, Created: e.Created})
	}
	return out
}

// looksLikeRun reports a tool entry that ran a command without a stated
// exit status (a pass is then what its summary does not call a failure).
func looksLikeRun(e memex.Entry) bool {
	switch strings.ToLower(e.Tool) {
	case "bash", "shell", "exec_command", "shell_command", "local_shell", "run":
		return true
	}
	return false
}

// who is "agent, date" of an entry.
func who(e memex.Entry) string {
	a := e.Agent
	if a == "" {
		a = "unknown"
	}
	return a + ", " + e.Created.UTC().Format("2006-01-02 15:04")
}

func fileItems(ctx context.Context, s Store, entries []memex.Entry, co *deref.Checkout) []Item {
	type file struct {
		path  string
		edits int
		last  memex.Entry
	}
	by := map[string]*file{}
	for _, e := range entries {
		if e.Kind != memex.KindTool || !deref.Edited(e) {
			continue
		}
		for _, p := range editedPaths(e) {
			f := by[p]
			if f == nil {
				f = &file{path: p}
				by[p] = f
			}
			f.edits++
			f.last = e
		}
	}
	files := make([]*file, 0, len(by))
	for _, f := range by {
		files = append(files, f)
	}
	sort.Slice(files, func(i, j int) bool {
		if files[i].edits != files[j].edits {
			return files[i].edits > files[j].edits
		}
		if c := files[i].last.ID.Compare(files[j].last.ID); c != 0 {
			return c > 0
		}
		return files[i].path < files[j].path
	})
	files = files[:min(len(files), maxFiles)]
	var out []Item
	var lasts []memex.Entry
	for _, f := range files {
		lasts = append(lasts, f.last)
	}
	marks := deref.New(s).CheckEntries(ctx, co, lasts)
	for i, f := range files {
		it := Item{ID: f.last.ID.String(), Path: f.path, Edits: f.edits, Agent: f.last.Agent, Session: f.last.Session, Created: f.last.Created,
			Text: f.path + " · " + summarize.Plural(f.edits, "edit") + ", the last by " + who(f.last)}
		for _, m := range marks[i] {
			if m.Path == f.path || strings.HasSuffix(f.path, "/"+m.Path) || strings.HasSuffix(m.Path, "/"+f.path) {
				it.Evidence = append(it.Evidence, m)
			}
		}
		it.Mark = deref.Worst(it.Evidence)
		out = append(out, it)
	}
	return out
}

// editedPaths are the files an edit entry changed, relative to its
// repository when it recorded them so (attribute shows), else to its
// working directory.
func editedPaths(e memex.Entry) []string {
	var paths []string
	add := func(p string) {
		p = relPath(p, e.Attrs["cwd"])
		for _, q := range paths {
			if q == p {
				return
			}
		}
		if p != "" {
			paths = append(paths, p)
		}
	}
	if attr := e.Attrs["shows"]; attr != "" {
		for _, s := range summarize.DecodeShown(attr) {
			add(s.Path)
		}
		if len(paths) > 0 {
			return paths
		}
	}
	var args struct {
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		Command  string `json:"command"`
	}
	if json.Unmarshal([]byte(e.Input), &args) == nil {
		switch {
		case args.FilePath != "":
			add(args.FilePath)
		case args.Path != "" && args.Command != "view":
			add(args.Path)
		}
	}
	// apply_patch: "*** Update File: path", "*** Add File: path".
	for _, l := range strings.Split(e.Input, "\n") {
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), p); ok {
				add(strings.TrimSpace(rest))
			}
		}
	}
	return paths
}

// relPath is p relative to cwd when it lies inside it, else p cleaned.
func relPath(p, cwd string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) && cwd != "" {
		if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return path.Clean(filepath.ToSlash(p))
}

func commitItems(entries []memex.Entry) []Item {
	var out []Item
	for i := len(entries) - 1; i >= 0 && len(out) < maxCommits; i-- {
		e := entries[i]
		if e.Kind != memex.KindCommit {
			continue
		}
		out = append(out, Item{ID: e.ID.String(), Text: cut(e.DisplaySummary(), 200), Agent: e.Agent, Created: e.Created})
	}
	return out
}

// cut shortens s to about n bytes on a rune boundary, with "...".
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	i := n - 3
	for i > 0 && !utf8Start(s[i]) {
		i--
	}
	return s[:i] + "..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
