package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

type runOptions struct {
	entry                 memex.Entry // the flags' session, project and summary
	alias                 string
	quiet, json, noRedact bool
}

func (a *app) runCommand() *cobra.Command {
	var o runOptions
	c := &cobra.Command{
		Use:   "run [flags] -- CMD [ARGS...]",
		Short: "Run a command, archive its whole output, and exit with its status",
		Long: `Run CMD, show its output live (unless --quiet), archive the combined stdout and
stderr with the exit status, and end with one line on stderr: the entry's ID, its
summary, the tokens archived and how to read it back. memex exits with CMD's status.

With --quiet that one line is all the caller sees: an agent keeps a 5,000-line test
log out of its context and still has every byte of it by ID.

The output is spooled to a file under $MEMEX_HOME/spool while the command runs (with
credentials already replaced, unless --no-redact), so a long command never holds the
store. If archiving fails (a busy store, memex killed), the spooled output and its entry
stay there and the next memex command that can take the store archives them; memex verify lists
what is left.

The session is --session, else the agent's session memex runs in ($MEMEX_SESSION,
$CLAUDE_CODE_SESSION_ID, $CODEX_THREAD_ID), else one per project and local day:
run-NAME-YYYY-MM-DD, NAME the last element of the project (the git repository of the
current directory). memex sessions lists it and memex replay walks the day's runs.

SIGINT, SIGTERM and SIGHUP sent to memex are passed on to CMD (a Ctrl-C typed at the
terminal reaches CMD directly and is not sent twice); what CMD printed until then is
archived with its status, 128+N for signal N. When the reader of the output goes away
(memex run -- CMD | head), CMD is read no more, as in a pipe without memex: it gets
SIGPIPE on its next write, and what it printed until then is archived (--quiet reads
it all).`,
		Example: `  memex run --quiet -- go test ./...
  memex run -- make lint
  memex run --session fix-auth --alias auth-tests-before-fix -- pytest -x tests/`,
		Args: cli.NeedArgs("run needs a command"),
		RunE: func(c *cobra.Command, args []string) error { return a.runRun(c, o, args) },
	}
	f := c.Flags()
	f.SetInterspersed(false) // everything after the command name belongs to it
	f.StringVar(&o.entry.Session, "session", "", "session (default: $MEMEX_SESSION, $CLAUDE_CODE_SESSION_ID or $CODEX_THREAD_ID, else run-PROJECT-DATE)")
	f.Var(projectValue{&o.entry.Project}, "project", "project (default: the git repository of the current directory)")
	f.StringVar(&o.alias, "alias", "", "another name for the entry")
	f.StringVar(&o.entry.AgentSummary, "summary", "", "your own one-line summary")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not show the output; print only the closing line")
	f.BoolVar(&o.noRedact, "no-redact", false, "store credentials as they are (by default they become [REDACTED:kind])")
	f.BoolVar(&o.json, "json", false, `print the closing line as JSON on stdout: {"id","summary","tokens","bytes","exit"}`)
	return c
}

func (a *app) runRun(c *cobra.Command, o runOptions, args []string) error {
	ctx := c.Context()
	if c.Flags().Changed("alias") {
		// Refused before CMD runs, not when its output is archived.
		if err := checkAliases(o.alias); err != nil {
			return err
		}
		o.entry.Aliases = []string{o.alias}
	}
	e := service.RunEntry(o.entry, args)
	run := service.Command{Args: args, Stdin: a.stdin, Redact: !o.noRedact}
	if !o.quiet {
		run.Live = a.stdout
		if o.json {
			run.Live = a.stderr
		}
	}
	ran, err := service.Exec(a.home, &e, run)
	if errors.Is(err, service.ErrNotStarted) {
		err = fmt.Errorf("run: %w", err)
		if errors.Is(err, fs.ErrNotExist) {
			// No such command: not_found in --json.
			err = &memex.Error{Kind: memex.ErrNotFound, What: err.Error(), Err: err}
		}
		return cli.ExitWith(ran.Exit, err)
	}
	if err != nil {
		return err
	}
	defer ran.Spool.Close() // what is not archived stays spooled
	code := ran.Exit

	// The command's result must not be lost to an interrupt that arrived
	// while it ran: archive with a context of its own, through a running
	// server when there is one, else locally.
	actx := context.WithoutCancel(ctx)
	svc, err := a.service(actx, home.Options{})
	if err == nil {
		e, err = ran.Archive(actx, svc, e)
	}
	if err != nil {
		return cli.ExitWith(code, fmt.Errorf("run: could not archive the output (spooled in %s, archived by the next memex command that writes): %s",
			ran.Spool.Path(), cli.Message(err)))
	}
	render.Replaced(a.stderr, e.Redacted)
	if o.json {
		if err := cli.WriteJSON(a.stdout, addedOf(e, &code)); err != nil {
			return err
		}
	} else {
		render.Archived(a.stderr, e)
	}
	return cli.Exit(code)
}
