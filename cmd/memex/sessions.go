package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func (a *app) sessionsCommand() *cobra.Command {
	var f api.SessionFilter
	var asJSON, wide bool
	c := &cobra.Command{
		Use:   "sessions [--project P] [--agent A] [--since T] [--limit N] [--wide] [--json]",
		Short: "List archived sessions",
		Long: `List the archived sessions, oldest first: name, agent, project, start, how long it
ran, entries and tokens archived, and compactions (CMP: points where the agent lost its
context) when a session has any.

The table fits 100 columns: a UUID is shown by its first characters, as many as tell
it from the others listed (memex replay takes that prefix), a longer name without its
middle, and a project by its last path element. --wide prints whole names, whole project paths and the end time; --json
always has them.

--since T keeps the sessions active at or after T (their last entry): 2d, 12h,
2026-11-01, RFC 3339. --limit N keeps the N most recently started of those.`,
		Example: `  memex sessions
  memex sessions --since 2d --agent claude-code
  memex sessions --limit 5 --json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if f.Limit < 0 {
				return usagef("--limit takes a positive number of sessions (0: all)")
			}
			svc, err := a.service(c.Context(), home.Options{Shared: true})
			if err != nil {
				return err
			}
			list, err := svc.Sessions(c.Context(), f)
			if err != nil {
				return err
			}
			return a.printSessions(list, asJSON, wide)
		},
	}
	c.Flags().Var(projectValue{&f.Project}, "project", "only sessions of this project")
	c.Flags().StringVar(&f.Agent, "agent", "", "only sessions of this agent")
	c.Flags().Var(&timeValue{t: &f.Since}, "since", "only sessions active since this time: 2d, 12h, 2026-11-01, RFC 3339")
	c.Flags().IntVar(&f.Limit, "limit", 0, "only the N most recently started sessions (0: all)")
	c.Flags().BoolVar(&wide, "wide", false, "whole names and project paths, and the end time")
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}

// printSessions prints a session listing as memex sessions does.
func (a *app) printSessions(list []api.SessionInfo, asJSON, wide bool) error {
	if asJSON {
		if list == nil {
			list = []api.SessionInfo{}
		}
		return writeJSON(a.stdout, api.SessionList{Sessions: list})
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	if wide {
		fmt.Fprintln(w, "SESSION\tAGENT\tPROJECT\tSTART\tEND\tENTRIES\tTOKENS\tCOMPACTIONS")
		for _, si := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", si.Session, si.Agent, si.Project,
				si.Start.Format("2006-01-02 15:04"), si.End.Format("2006-01-02 15:04"), si.Entries, si.Tokens, si.Compactions)
		}
		return w.Flush()
	}
	compactions := false
	for _, si := range list {
		compactions = compactions || si.Compactions > 0
	}
	names := make([]string, len(list))
	for i, si := range list {
		names[i] = si.Session
	}
	short := shortNames(names)
	head := "SESSION\tAGENT\tPROJECT\tSTART\tTOOK\tENTRIES\tTOKENS"
	if compactions {
		head += "\tCMP"
	}
	fmt.Fprintln(w, head)
	for i, si := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s", short[i], si.Agent, projectName(si.Project),
			si.Start.Format("2006-01-02 15:04"), span(si.End.Sub(si.Start)), si.Entries, shortCount(si.Tokens))
		if compactions {
			fmt.Fprintf(w, "\t%d", si.Compactions)
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

// Widths of the narrow table's name columns, so that it fits 100 columns
// with the longest agent name (mini-swe-agent) and every other column full.
const (
	maxName    = 22
	maxProject = 12
)

// shortNames abbreviates the UUIDs among names (Claude Code's and Codex's
// session names) to their shortest prefix of at least 8 characters that
// no other name listed starts with, which replay takes; another name
// longer than maxName loses its middle (--wide shows it whole).
func shortNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if !isUUID(n) {
			if r := []rune(n); len(r) > maxName {
				// The end tells tasks apart (django__django-11292).
				out[i] = string(r[:maxName-12]) + "…" + string(r[len(r)-11:])
			}
			continue
		}
		k := 8
		for j, m := range names {
			for j != i && k < len(n) && strings.HasPrefix(m, n[:k]) {
				k++
			}
		}
		out[i] = n[:k]
	}
	return out
}

// isUUID reports whether s is written as a UUID: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", c):
			return false
		}
	}
	return true
}

// projectName is a project as the narrow table shows it: its last path
// element (claude-code-log for /Users/x/claude-code-log, django for
// github.com/django/django), cut to maxProject characters.
func projectName(p string) string {
	if p == "" {
		return "-"
	}
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		p = p[i+1:]
	}
	if r := []rune(p); len(r) > maxProject {
		return string(r[:maxProject-1]) + "…"
	}
	return p
}

// span words how long a session ran: 45s, 12m, 3h05m, 2d04h.
func span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// shortCount words a token count in at most 5 characters: 812, 35.2k,
// 412k, 1.3M.
func shortCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

type replayStep struct {
	Step       int       `json:"step"`
	ID         memex.ID  `json:"id"`
	Created    time.Time `json:"created"`
	Kind       string    `json:"kind"`
	Role       string    `json:"role,omitempty"` // a message's author: user, assistant, ...
	Tool       string    `json:"tool,omitempty"`
	Summary    string    `json:"summary"`
	Tokens     int64     `json:"tokens"`
	Compaction bool      `json:"compaction,omitempty"`
	Content    *string   `json:"content,omitempty"`
}

func (a *app) replayCommand() *cobra.Command {
	var full, asJSON bool
	var ref memex.SessionRef
	c := &cobra.Command{
		Use:   "replay SESSION [--project P] [--agent A] [--full] [--json]",
		Short: "Walk a session step by step",
		Long: `Replay a session in order: time, kind (a message's role: user, assistant), tool, ID
and summary of each step, with the points where the agent's context was compacted
marked, and a line with the date where each day starts when the session spans days.
--full prints each entry's exact content under its line. On a terminal the output goes
through $PAGER (less).
A session is its name, project and agent together: a name that several sessions share
(one task run by two models, imported under two projects) is an error listing them,
and --project or --agent picks one. A unique prefix of a name names it; a name that
starts with '-' is read as the name (memex replay -fix-auth), or give it after --.`,
		Example: `  memex replay 5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b
  memex replay django__django-10097 --full
  memex replay 5f0c2a91 --json | jq '.[] | select(.kind=="tool")'`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			svc, err := a.service(ctx, home.Options{Shared: true})
			if err != nil {
				return err
			}
			ref.Session = args[0]
			entries, err := svc.Replay(ctx, api.ReplayRequest{Ref: ref, Content: full})
			if err != nil {
				return err
			}
			steps := make([]replayStep, 0, len(entries))
			for i, e := range entries {
				var content *string
				if full {
					b, ok, err := e.Body()
					if err != nil || !ok {
						return fmt.Errorf("replay: entry %s came without its content: %v", e.ID, err)
					}
					text := string(b)
					content = &text
				}
				steps = append(steps, newReplayStep(i, e.Entry, content))
			}
			return a.printReplay(steps, asJSON)
		},
	}
	c.Flags().Var(projectValue{&ref.Project}, "project", "the session of this project, when several share its name")
	c.Flags().StringVar(&ref.Agent, "agent", "", "the session of this agent, when several share its name")
	c.Flags().BoolVar(&full, "full", false, "print each entry's content")
	c.Flags().BoolVar(&asJSON, "json", false, "print the steps as JSON")
	return c
}

// newReplayStep is step n of a replay: entry e, with its content when
// --full asked for it.
func newReplayStep(n int, e memex.Entry, content *string) replayStep {
	return replayStep{Step: n, ID: e.ID, Created: e.Created, Kind: string(e.Kind), Role: e.Attrs["role"], Tool: e.Tool,
		Summary: e.DisplaySummary(), Tokens: e.Tokens, Compaction: service.IsCompaction(e), Content: content}
}

// printReplay prints a replay as memex replay does, whether its steps were
// read from the store or from a running server.
func (a *app) printReplay(steps []replayStep, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, steps)
	}
	out, done := a.pager()
	defer done()
	// A session that spans days gets a line with the date where each day
	// starts: a step's line holds its time of day only.
	days := len(steps) > 0 && !sameDay(steps[0].Created, steps[len(steps)-1].Created)
	for i, st := range steps {
		if days && (i == 0 || !sameDay(steps[i-1].Created, st.Created)) {
			fmt.Fprintf(out, "──────── %s ────────\n", st.Created.Format("Monday 2006-01-02"))
		}
		if st.Compaction {
			fmt.Fprintf(out, "──────── context compacted here ────────\n")
		}
		what := st.Kind
		switch {
		case st.Tool != "":
			what += ":" + st.Tool
		case st.Kind == string(memex.KindMessage) && st.Role != "":
			what = st.Role // user, assistant: who said it
		}
		fmt.Fprintf(out, "%4d  %s  %-16s %s  %s  (%d tok)\n", st.Step, st.Created.Format("15:04:05"), what, st.ID, st.Summary, st.Tokens)
		if st.Content != nil {
			fmt.Fprintln(out, indent(*st.Content))
		}
	}
	return nil
}

// sameDay reports whether a and b fall on the same calendar day (in a's
// location, the one the lines print).
func sameDay(a, b time.Time) bool {
	b = b.In(a.Location())
	return a.YearDay() == b.YearDay() && a.Year() == b.Year()
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "      │ " + strings.ReplaceAll(s, "\n", "\n      │ ")
}

// pager returns where long output should go: $PAGER (default less -FRX)
// when stdout is a terminal, else stdout itself. done waits for the pager.
func (a *app) pager() (io.Writer, func()) {
	f, ok := a.stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return a.stdout, func() {}
	}
	p := os.Getenv("PAGER")
	if p == "" {
		p = "less -FRX"
	}
	cmd := exec.Command("sh", "-c", p)
	cmd.Stdout, cmd.Stderr = f, a.stderr
	in, err := cmd.StdinPipe()
	if err != nil || cmd.Start() != nil {
		return a.stdout, func() {}
	}
	return in, func() {
		in.Close()
		cmd.Wait()
	}
}
