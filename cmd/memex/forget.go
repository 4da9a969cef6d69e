package main

import (
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
)

func (a *app) forgetCommand() *cobra.Command {
	var req api.ForgetRequest
	var yes, asJSON bool
	c := &cobra.Command{
		Use:   "forget ID...|--session S [--agent A]|--project P [--yes]",
		Short: "Remove entries from the archive and the index for good",
		Long: `Remove entries from the archive and from the search index: their content can no
longer be found or shown. Takes IDs or aliases, or every entry of a session or a
project. Asks for confirmation on a terminal; elsewhere --yes is required.

What it guarantees: when forget returns without error, no file under $MEMEX_HOME holds
the forgotten entries' content or metadata (the store's tables and write-ahead log
are rewritten or deleted, and the index's segments are rewritten without them), and
none does after the store is opened again. Not covered: other entries with the same
content (forget them too), copies outside $MEMEX_HOME (the transcripts an entry was
imported from, backups), anything the spool holds that was never archived (memex
verify lists it), and the blocks of deleted files on the disk itself (use disk
encryption for that). If forget is interrupted, run it again on what is left.`,
		Example: `  memex forget 01JD8X3N6Q4W0G2Y7T5R9KZC1M
  memex forget --session 4e27c414-a885-46a0-b5c8-d58e1417377d --yes`,
		RunE: func(c *cobra.Command, args []string) error {
			n := 0
			// --project alone forgets a project; with --session it
			// narrows the session's name, as it does for replay.
			for _, set := range []bool{len(args) > 0, req.Session != "", req.Project != "" && req.Session == ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				return cli.Usagef("forget takes IDs, or --session, or --project (one of them)\nUsage: %s", c.UseLine())
			}
			if req.Agent != "" && req.Session == "" {
				return cli.Usagef("--agent narrows --session: give the session too\nUsage: %s", c.UseLine())
			}
			req.Refs = args
			return a.runForget(c, req, yes, asJSON)
		},
	}
	f := c.Flags()
	f.StringVar(&req.Session, "session", "", "forget every entry of this session")
	f.StringVar(&req.Agent, "agent", "", "with --session: the session's agent, when sessions of several agents share its name")
	f.Var(projectValue{&req.Project}, "project", "forget every entry of this project (with --session: of that session in this project)")
	f.BoolVar(&yes, "yes", false, "do not ask for confirmation")
	f.BoolVar(&asJSON, "json", false, `print {"forgotten":N} as JSON`)
	return c
}

func (a *app) runForget(c *cobra.Command, req api.ForgetRequest, yes, asJSON bool) error {
	ctx := c.Context()
	svc, err := a.service(ctx, home.Options{MustExist: true})
	if err != nil {
		return err
	}
	if !yes {
		// Count first, and ask.
		dry := req
		dry.DryRun = true
		res, err := svc.Forget(ctx, dry)
		if err != nil {
			return err
		}
		what := summarize.Plural(res.Matched, "entry")
		if err := cli.Confirm(a.stdin, a.stderr, "Forget "+what+" for good?", "forget "+what+" for good? add --yes to confirm"); err != nil {
			return err
		}
	}
	res, err := svc.Forget(ctx, req)
	if err != nil {
		return err
	}
	return cli.Output(a.stdout, asJSON, api.ForgetResult{Forgotten: res.Forgotten}, render.Forgot)
}
