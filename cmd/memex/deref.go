package main

import (
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

// aliasHelp says what names an entry, for the commands that take one.
const aliasHelp = `An entry is named by its ID (any case) or an alias: a name given with --alias, the
host's own id of a tool call (a Claude Code tool_use id, a Codex call_id), or
SESSION#N, the N-th tool call of an imported session counted from 0 (tool calls only,
so it differs from replay's step numbers once messages are interleaved), SESSION being
the session's name or a unique prefix of it (as memex sessions shows a UUID).`

func (a *app) derefCommand() *cobra.Command {
	var req api.DerefRequest
	var asJSON, noCheck bool
	c := &cobra.Command{
		Use:   "deref ID|ALIAS... [--budget N] [--query Q] [--json]",
		Short: "Exact evidence of entries, within a token budget",
		Long: `Return the exact content of the entries named, within --budget tokens in all
(headers, markers and content, counted with memex's tokenizer). An entry that fits is
returned whole; otherwise exact windows of it: lines matching --query and error-looking
lines with context, plus head and tail. Each elided span is marked on its own line with
its line range, its token cost and the memex show command that returns it. Several
entries share the budget: each gets its header and best window before any gets more.

An entry that is not valid UTF-8 (binary) is never printed raw: its content is one line,
"[memex: binary content (N bytes) not shown; memex show ID > FILE saves it]", and
"binary": true in --json. --base64 gives its bytes as base64 instead (76 columns a line,
the header ending "base64 of N bytes"), from the start, within the budget like any
content: what does not fit is cut at a line, and one line says which bytes were not
shown ("[memex: base64 cut: bytes A-N of N not shown; memex show ID > FILE saves all]");
--json adds "encoding": "base64". The same for memex_read ("base64": true) and POST
/v1/deref ("base64": true).

References that name nothing are listed as missing; the rest still returns. A budget
too small for anything useful is an error that names the minimum.

` + aliasHelp + `

` + cli.JSONHelp(deref.Result{}) + `

An entry that showed lines of a file of the current checkout's project (a read, a view,
an edit's snippet, grep hits) is checked against the file as it is now: its header says
"file current", "file changed since" (with the first line that differs) or "file gone",
and --json carries "mark" and "evidence" (--no-check skips it). The mark is counted in
the budget.`,
		Example: `  memex deref 01JD8X3N6Q4W0G2Y7T5R9KZC1M --budget 1500 --query "nil map"
  memex deref toolu_01ABC sess-42#3 --budget 4000 --json`,
		Args: cli.NeedArgs("deref needs at least one ID or alias"),
		RunE: func(c *cobra.Command, args []string) error {
			if req.Budget < 0 {
				return cli.Usagef("--budget must be a positive number of tokens")
			}
			req.Refs = args
			if !noCheck {
				req.Checkout = service.WorkingRoot()
			}
			res, err := ask(c.Context(), a.service, home.Options{Shared: true}, api.Service.Deref, req)
			if err != nil {
				return err
			}
			if err := cli.Print(a.stdout, asJSON, res.Result, res.Text); err != nil {
				return err
			}
			if len(res.Items) == 0 {
				return cli.Exit(cli.ExitFailure)
			}
			return nil
		},
	}
	f := c.Flags()
	f.IntVar(&req.Budget, "budget", deref.DefaultBudget, "tokens for the whole output")
	f.StringVar(&req.Query, "query", "", "terms whose lines are shown first")
	f.BoolVar(&req.Base64, "base64", false, "give a binary entry's bytes as base64 within the budget, not a note")
	f.BoolVar(&noCheck, "no-check", false, "do not check the file lines entries showed against the current checkout")
	f.Var(projectValue{&req.Project}, "project", "narrow aliases that name entries in several projects")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}

func (a *app) contextCommand() *cobra.Command {
	var req api.ContextRequest
	var asJSON, noCheck bool
	c := &cobra.Command{
		Use:   "context [--session S [--agent A] | --project P] [--budget N] [--before ID] [--json]",
		Short: "The IndexedSummary of a session or project: one line per entry, with IDs",
		Long: `Print the IndexedSummary that an agent keeps in its context: a header with totals, then
one line per entry, "ID  summary  (N tok)", within --budget tokens. When not everything
fits, failures and their fixes, edits, decisions and notes are kept over repeated reads
and listings, and recent entries over old ones; a footer says how many were left out.

With neither --session nor --project: the session of $MEMEX_SESSION,
$CLAUDE_CODE_SESSION_ID or $CODEX_THREAD_ID, else the project of the current directory.
--before ID shows the view as it was just before that entry. Entries whose file lines
no longer stand in the current checkout say so on their line (--no-check skips it).

` + cli.JSONHelp(deref.ContextResult{}) + `
with entries in session order.`,
		Example: `  memex context --session 5f0c2a91 --budget 2000
  memex context --project ~/src/api --before 01JD8X3N6Q4W0G2Y7T5R9KZC1M --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			if req.Budget < 0 {
				return cli.Usagef("--budget must be a positive number of tokens")
			}
			if !noCheck {
				req.Checkout = service.WorkingRoot()
			}
			req.Session, req.Project = service.Scope(req.Session, req.Project)
			res, err := ask(ctx, a.service, home.Options{Shared: true}, api.Service.Context, req)
			if err != nil {
				return err
			}
			return cli.Print(a.stdout, asJSON, res.ContextResult, res.Text)
		},
	}
	f := c.Flags()
	f.StringVar(&req.Session, "session", "", "the session to summarize")
	f.StringVar(&req.Agent, "agent", "", "the session's agent, when sessions of several agents share its name")
	f.Var(projectValue{&req.Project}, "project", "the project to summarize (all its sessions)")
	f.StringVar(&req.Before, "before", "", "only entries before this ID or alias")
	f.BoolVar(&noCheck, "no-check", false, "do not check the file lines entries showed against the current checkout")
	f.IntVar(&req.Budget, "budget", deref.DefaultContextBudget, "tokens for the whole summary")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}
