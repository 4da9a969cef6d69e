package main

import (
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/spf13/cobra"
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
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			if f.Limit < 0 {
				return cli.Usagef("--limit takes a positive number of sessions (0: all)")
			}
			list, err := ask(c.Context(), a.service, home.Options{Shared: true}, api.Service.Sessions, f)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(a.stdout, api.SessionList{Sessions: list})
			}
			return render.Sessions(a.stdout, list, wide)
		},
	}
	c.Flags().Var(projectValue{&f.Project}, "project", "only sessions of this project")
	c.Flags().StringVar(&f.Agent, "agent", "", "only sessions of this agent")
	c.Flags().Var(cli.Time(&f.Since), "since", "only sessions active since this time: 2d, 12h, 2026-11-01, RFC 3339")
	c.Flags().IntVar(&f.Limit, "limit", 0, "only the N most recently started sessions (0: all)")
	c.Flags().BoolVar(&wide, "wide", false, "whole names and project paths, and the end time")
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
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
--full prints each entry's exact content under its line; for an entry that is not
valid UTF-8 (binary) the line "[memex: binary content (N bytes) not shown; memex show
ID > FILE saves it]", and with --json "content_base64" instead of "content" (as memex
show --json). On a terminal the output goes through $PAGER (less).

A session is its name, project and agent together: a name that several sessions share
(one task run by two models, imported under two projects) is an error listing them,
and --project or --agent picks one. A unique prefix of a name names it; a name that
starts with '-' is read as the name (memex replay -fix-auth), or give it after --.`,
		Example: `  memex replay 5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b
  memex replay django__django-10097 --full
  memex replay 5f0c2a91 --json | jq '.[] | select(.kind=="tool")'`,
		Args: cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ctx := c.Context()
			ref.Session = args[0]
			entries, err := ask(ctx, a.service, home.Options{Shared: true}, api.Service.Replay, api.ReplayRequest{Ref: ref, Content: full})
			if err != nil {
				return err
			}
			steps, err := render.Steps(entries, full)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(a.stdout, steps)
			}
			// Through the pager on a terminal.
			out, done := cli.Pager(a.stdout, a.stderr)
			defer done()
			return render.Replay(out, steps)
		},
	}
	c.Flags().Var(projectValue{&ref.Project}, "project", "the session of this project, when several share its name")
	c.Flags().StringVar(&ref.Agent, "agent", "", "the session of this agent, when several share its name")
	c.Flags().BoolVar(&full, "full", false, "print each entry's content")
	c.Flags().BoolVar(&asJSON, "json", false, "print the steps as JSON")
	return c
}
