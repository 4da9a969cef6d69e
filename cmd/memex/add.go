package main

import (
	"errors"
	"fmt"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/redact"
	"github.com/memex-archive/memex/internal/render"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

func (a *app) addCommand() *cobra.Command {
	var req api.AddRequest
	var exit int
	var asJSON bool
	e := &req.Entry
	c := &cobra.Command{
		Use:   "add [flags] [FILE|-]",
		Short: "Archive one entry from a file or stdin and print its ID",
		Long: `Archive one entry: the exact bytes of FILE (or stdin, with - or no argument),
with the metadata given by flags. Prints the new entry's ID. An empty FILE or stdin
archives an empty entry (as "content": "" does over HTTP and in a JSONL line).

An alias names one entry in its project: adding another entry under an alias already
used in the project moves the alias to the new entry (show ALIAS then gives the new
one); the older entry keeps its ID, by which it can still be read. The same alias in
two projects names one entry in each, and --project picks one.

When the store stays busy past MEMEX_LOCK_TIMEOUT (a long import holds it), the entry
is not lost: it is spooled under $MEMEX_HOME/spool (redacted as it would be stored) and
its ID printed, and the next memex command that writes archives it under that ID
(--json then says "spooled": true, with summary and tokens not derived yet).

` + redact.Rule,
		Example: `  go test ./... 2>&1 | memex add --kind tool --tool bash --input "go test ./..." -
  memex add --kind note --alias ctx_auth_001 notes.md
  memex add --json report.txt    # {"id","summary","tokens","bytes"}`,
		Args: cli.RangeArgs(0, 1),
		RunE: func(c *cobra.Command, args []string) error {
			if c.Flags().Changed("exit") && exit >= 0 {
				e.Exit = memex.IntPtr(exit)
			}
			if err := checkAliases(e.Aliases...); err != nil {
				return err
			}
			return a.runAdd(c, req, asJSON, args)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&e.Project}, "project", "project the entry belongs to (default: the git repository of the current directory)")
	f.StringVar(&e.Session, "session", "", "session the entry belongs to (default: $MEMEX_SESSION, $CLAUDE_CODE_SESSION_ID or $CODEX_THREAD_ID)")
	f.StringVar(&e.Agent, "agent", "cli", "agent that produced the entry")
	f.StringVar((*string)(&e.Kind), "kind", "", "kind: tool, reasoning, message, note, commit, ... (default note, or tool with --tool)")
	f.StringVar(&e.Tool, "tool", "", "tool name (bash, read, grep, ...)")
	f.StringVar(&e.Input, "input", "", "the command or tool arguments that produced the content")
	f.StringVar(&e.AgentSummary, "summary", "", "your own one-line summary, kept beside the derived one")
	f.StringArrayVar(&e.Aliases, "alias", nil, "another name for the entry (repeatable); a name already used in the project moves to this entry")
	f.IntVar(&exit, "exit", 0, "exit status of the command, when known")
	f.BoolVar(&asJSON, "json", false, `print {"id","summary","tokens","bytes"} as JSON`)
	f.BoolVar(&req.NoRedact, "no-redact", false, "store credentials as they are (by default they become [REDACTED:kind])")
	return c
}

func (a *app) runAdd(c *cobra.Command, req api.AddRequest, asJSON bool, args []string) error {
	in, err := cli.Input(args, a.stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	req.Body = in
	service.FillDefaults(&req.Entry)
	svc, err := a.service(c.Context(), home.Options{})
	if errors.Is(err, memex.ErrBusy) {
		// The store stayed busy (a long import holds it): spooled, the
		// body is not lost with a pipe's input.
		spooled, serr := service.SpoolAdd(a.home, req)
		if serr != nil {
			return errors.Join(err, serr)
		}
		fmt.Fprintf(a.stderr, "memex: add: %s; spooled as %s, archived under it by the next memex command that writes\n", cli.Message(err), spooled.ID)
		render.Replaced(a.stderr, spooled.Redacted)
		if asJSON {
			out := addedOf(spooled, nil)
			out.Spooled = true
			return cli.WriteJSON(a.stdout, out)
		}
		return a.printAdded(spooled, false)
	}
	if err != nil {
		return err
	}
	got, err := svc.Add(c.Context(), req)
	if err != nil {
		return err
	}
	render.Replaced(a.stderr, got.Redacted)
	return a.printAdded(got, asJSON)
}

// printAdded prints a new entry's ID, or with asJSON what add --json
// prints of it (added).
func (a *app) printAdded(e memex.Entry, asJSON bool) error {
	if asJSON {
		return cli.WriteJSON(a.stdout, addedOf(e, nil))
	}
	_, err := fmt.Fprintln(a.stdout, e.ID)
	return err
}

// added is what add --json and run --json print of the entry archived:
// {"id","summary","tokens","bytes"}, run's "exit", and "redacted" when
// credentials were replaced.
type added struct {
	ID       memex.ID `json:"id"`
	Summary  string   `json:"summary"`
	Tokens   int64    `json:"tokens"`
	Bytes    int64    `json:"bytes"`
	Exit     *int     `json:"exit,omitempty"`
	Redacted int      `json:"redacted,omitempty"`
	// Spooled: the store stayed busy and the entry waits in the spool
	// for the next command that writes; its summary and tokens are
	// derived then (here they are your --summary and 0).
	Spooled bool `json:"spooled,omitempty"`
}

// checkAliases refuses, as a usage error, an --alias that the archive
// would refuse.
func checkAliases(aliases ...string) error {
	for _, a := range aliases {
		if err := memex.CheckAlias(a); err != nil {
			return cli.Usagef("--alias: %s", memex.Sentence(err))
		}
	}
	return nil
}

func addedOf(e memex.Entry, exit *int) added {
	return added{ID: e.ID, Summary: e.DisplaySummary(), Tokens: e.Tokens, Bytes: e.Bytes, Exit: exit, Redacted: e.Redacted}
}
