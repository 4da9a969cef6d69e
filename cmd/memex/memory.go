package main

import (
	"fmt"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/memory"
	"github.com/spf13/cobra"
)

func (a *app) handoffCommand() *cobra.Command {
	var req api.HandoffRequest
	var asJSON bool
	c := &cobra.Command{
		Use:   "handoff [--project P] [--budget N] [--json]",
		Short: "What the next agent needs to know of a project: sessions, notes, open failures, files, commits",
		Long: `Print the handoff capsule of a project, for an agent (any host) starting on it, within
--budget tokens (a hard bound under memex's tokenizer): the latest sessions by any agent
(which agent, when, their task), the notes and decisions (kind note, memex_compress
summaries), the failures still open (a failing command that no later run of it passed),
the files most edited, and the recent commits (memex ingest git). Every line starts with
the ID of its evidence: memex show ID reads it exactly.

Edited files are checked against the current checkout: a line says "file changed since"
when what the last edit showed no longer stands there, "file gone" when the file is.

The project defaults to the current directory's. Agent hosts get the capsule at the start
of a session through memex's SessionStart hook (see docs/memory.md).

` + cli.JSONHelp(memory.Capsule{}),
		Example: `  memex handoff
  memex handoff --project github.com/acme/api --budget 800 --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if req.Budget < 0 {
				return cli.Usagef("--budget must be a positive number of tokens")
			}
			req.Checkout = service.WorkingRoot()
			capsule, err := ask(ctx, a.memory, home.Options{Shared: true}, api.Memory.Handoff, req)
			if err != nil {
				return err
			}
			return cli.Print(a.stdout, asJSON, capsule, capsule.Text)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&req.Project}, "project", "the project (default: the current directory's)")
	f.IntVar(&req.Budget, "budget", memory.DefaultHandoffBudget, "tokens for the whole capsule")
	f.BoolVar(&asJSON, "json", false, "print the capsule as JSON")
	return c
}

func (a *app) staleCommand() *cobra.Command {
	var req api.StaleRequest
	var asJSON bool
	c := &cobra.Command{
		Use:   "stale [--project P] [--limit N] [--json]",
		Short: "Archived reads and edits whose files changed since, newest first",
		Long: `List the memories of a project that no longer hold: entries that showed lines of a
file (a read, a view, an edit's snippet, grep hits with line numbers) when those lines
no longer stand in the current checkout verbatim ("changed", with the first line that
differs and what it reads now) or the file is gone ("gone"). Newest first. Only the
files those entries name are read, within a time bound; a list cut by it says so.

The checkout is the current directory's repository; its project is the default,
and --project names it too: the memories of another project are checked in a
checkout of that one (elsewhere every file would read as gone).

` + cli.JSONHelp(memory.StaleResult{}),
		Example: `  memex stale
  memex stale --limit 20 --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if req.Checkout = service.WorkingRoot(); req.Checkout == "" {
				return fmt.Errorf("stale: no current directory to check against")
			}
			res, err := ask(ctx, a.memory, home.Options{Shared: true}, api.Memory.Stale, req)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(a.stdout, res)
			}
			return render.Stale(a.stdout, a.stderr, res, req.Checkout, service.StaleTimeout)
		},
	}
	f := c.Flags()
	f.Var(projectValue{&req.Project}, "project", "the project (default: the current directory's)")
	f.IntVar(&req.Limit, "limit", 0, "list at most N (0: all)")
	f.BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}
