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
	var project, agent string
	var asJSON bool
	c := &cobra.Command{
		Use:   "sessions [--project P] [--agent A] [--json]",
		Short: "List archived sessions",
		Long: `List the archived sessions, oldest first: agent, project, start, end, entries, tokens
archived and the number of compactions (points where the agent lost its context).`,
		Example: `  memex sessions
  memex sessions --agent claude-code --json`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			svc, err := a.service(c.Context(), home.Options{Shared: true})
			if err != nil {
				return err
			}
			list, err := svc.Sessions(c.Context(), api.SessionFilter{Project: project, Agent: agent})
			if err != nil {
				return err
			}
			return a.printSessions(list, asJSON)
		},
	}
	c.Flags().Var(projectValue{&project}, "project", "only sessions of this project")
	c.Flags().StringVar(&agent, "agent", "", "only sessions of this agent")
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}

// printSessions prints a session listing as memex sessions does, whether
// it was read from the store or from a running server.
func (a *app) printSessions(list []api.SessionInfo, asJSON bool) error {
	if asJSON {
		if list == nil {
			list = []api.SessionInfo{}
		}
		return writeJSON(a.stdout, api.SessionList{Sessions: list})
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "SESSION\tAGENT\tPROJECT\tSTART\tEND\tENTRIES\tTOKENS\tCOMPACTIONS")
	for _, si := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", si.Session, si.Agent, si.Project,
			si.Start.Format("2006-01-02 15:04"), si.End.Format("2006-01-02 15:04"), si.Entries, si.Tokens, si.Compactions)
	}
	return w.Flush()
}

type replayStep struct {
	Step       int       `json:"step"`
	ID         memex.ID  `json:"id"`
	Created    time.Time `json:"created"`
	Kind       string    `json:"kind"`
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
		Long: `Replay a session in order: time, kind, tool, summary and ID of each step, with the
points where the agent's context was compacted marked. --full prints each entry's
exact content under its line. On a terminal the output goes through $PAGER (less).
A session is its name, project and agent together: a name that several sessions share
(one task run by two models, imported under two projects) is an error listing them,
and --project or --agent picks one.`,
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
	return replayStep{Step: n, ID: e.ID, Created: e.Created, Kind: string(e.Kind), Tool: e.Tool,
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
	for _, st := range steps {
		if st.Compaction {
			fmt.Fprintf(out, "──────── context compacted here ────────\n")
		}
		what := st.Kind
		if st.Tool != "" {
			what += ":" + st.Tool
		}
		fmt.Fprintf(out, "%4d  %s  %-16s %s  %s  (%d tok)\n", st.Step, st.Created.Format("15:04:05"), what, st.ID, st.Summary, st.Tokens)
		if st.Content != nil {
			fmt.Fprintln(out, indent(*st.Content))
		}
	}
	return nil
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
