package main

import (
	"errors"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

func (a *app) ingestCommand() *cobra.Command {
	var req api.IngestRequest
	var quiet, asJSON bool
	names := ingest.FormatList(ingest.Formats)
	c := &cobra.Command{
		Use:   "ingest FORMAT [PATH...]",
		Short: "Import agent transcripts (Claude Code, Codex, Gemini CLI, OpenCode, SWE-agent, ...)",
		Long: `Import the transcripts agents already write to disk. FORMAT is one of
` + names + ` (auto detects each file).
With no PATH, the format's default location: ~/.claude/projects, ~/.codex/sessions and
~/.codex/archived_sessions, ~/.gemini/tmp, ~/.local/share/opencode.

Each tool call becomes one entry with its exact output; reasoning and messages become
entries too; compaction points are kept so that a replay shows where the agent lost its
context. Ingest is idempotent and incremental: a file read before adds only what was
appended since, and nothing is ever added twice. The keys that make it so (a record's
host id, a trajectory step, a JSONL key) are scoped by project: the same transcripts
imported under two projects are stored once per project. Another run of the same
sessions (a second model's trajectories of the same tasks) imported into the same
project is counted "with other content" and warned about, not stored: give each run
its own --project. Credentials are replaced with
[REDACTED:kind] before anything is stored (--no-redact to keep them).

A malformed line is reported as file:line: reason, skipped and counted; a line or a
trajectory that holds a value of another type than its format's (a version written as
a number) is read without that value, reported and counted the same way. The end report
(--json too) counts files, sessions, entries added and already present, lines skipped
by reason, secrets redacted and bytes. The new entries are indexed for search before
the command returns (--no-index to leave that to the next search, which shows its
progress on a terminal: 40 s or so for 500 MB of transcripts).

git reads a repository's history: each commit becomes an entry of kind commit in the
project sessions of that checkout get (message, author, date, files changed with +/-
counts in the summary, the patch as content, cut at 1 MiB; the hash, full and short, as
aliases), each tag an entry of kind tag. PATH is a repository (default: the current
directory). A re-run reads only the commits added since; --since and --max limit a run
to recent history (the next unlimited run reads the rest).

github reads issues and pull requests exported to JSON files (gh issue list --json ...,
gh pr list --json ..., or GitHub's REST API saved to a file): see docs/memory.md.

jsonl is memex's own format, one JSON object per line: "content" (required, a string;
"" archives an empty entry), and optionally "project", "session" (default: the file's
name), "agent", "kind" (default note), "tool", "input", "exit", "time" (RFC 3339, as
2026-11-29T10:00:00Z), "key" and "aliases" (names for the entry), "summary", "attrs".
A line is known by its session and its bytes: two identical lines of one session are
one entry, so give records that repeat (the same command, the same output) a "key"
or a "time" to keep each.

A PATH that yields no file is reported on stderr: one that does not exist, or a
directory holding no file FORMAT reads, with what FORMAT looks for (a file given as a
PATH is read whatever its name). So is a file of which nothing could be imported because
every line or record of it was malformed or of unknown types: most likely the wrong
FORMAT (with auto, the line says the format was not recognised and which one auto
tried). Exit status 1 when no PATH yielded a file, or when every file found was of that
kind; files already imported count as found, so a re-run that adds nothing exits 0. A
PATH or file that yields nothing next to others that do is reported but leaves the
status 0, as a malformed line does: the rest is imported. Default locations (no PATH)
may be missing or empty.

While memex serve runs, the server imports: it reads each PATH (sent absolute) and the
default locations on its own machine, and this command prints the same report.`,
		Example: `  memex ingest claude-code
  memex ingest auto ~/.codex/sessions ./trajectories
  memex ingest swe-agent --project django/django runs/ --json
  memex ingest git .                     # this repository's history
  memex ingest git ~/src/api --since 2025-01-01`,
		Args: cobra.MatchAll(cli.NeedArgs("ingest needs a FORMAT ("+names+")"), func(c *cobra.Command, args []string) error {
			if _, err := ingest.ParseFormat(args[0]); err != nil {
				return cli.Usagef("%s\nUsage: %s", memex.Sentence(err), c.UseLine())
			}
			return nil
		}),
		RunE: func(c *cobra.Command, args []string) error { return a.runIngest(c, req, quiet, asJSON, args) },
	}
	f := c.Flags()
	f.Var(projectValue{&req.Project}, "project", "project for every session read (default: detected from each session's directory)")
	f.BoolVar(&req.NoRedact, "no-redact", false, "store credentials as they are")
	f.BoolVar(&req.Full, "full", false, "read every file whole, ignoring the progress kept from earlier runs")
	f.BoolVar(&req.NoIndex, "no-index", false, "do not index the new entries now")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar and no per-line warnings")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.Var(cli.Time(&req.Since), "since", "git: only commits after this time: "+memex.TimeForms)
	f.IntVar(&req.Max, "max", 0, "git: at most this many commits, the most recent")
	return c
}

func (a *app) runIngest(c *cobra.Command, req api.IngestRequest, quiet, asJSON bool, args []string) error {
	ctx := c.Context()
	format, _ := ingest.ParseFormat(args[0])
	req.Format, req.Paths = string(format), args[1:]
	// The service owns the rules; broken here, they are a bad command
	// line, told in the words a served import answers with.
	if err := service.CheckIngest(req); err != nil {
		return cli.Usagef("ingest: %s", cli.Message(err))
	}
	// Ingest writes many entries: commit them without a sync each and sync
	// once at the end. The write-ahead log keeps order, so a crash loses at
	// most a suffix of the run, progress records included, and the next
	// run reads that part again.
	bulk := home.Options{NoSync: true}
	// A local import tells its problems as it meets them, a server's
	// answer once it is in (api.Client.Ingest): printed alike.
	w := &render.Warner{Out: a.stderr, JSON: asJSON}
	if !quiet {
		req.Warn = w.Warn
	}
	req.Progress = cli.Progress(a.stderr, "ingest", quiet || asJSON)
	res, err := ask(ctx, a.service, bulk, api.Service.Ingest, req)
	if err != nil {
		return err
	}
	if !quiet {
		w.More(len(res.Warnings) + res.MoreWarnings - w.Told())
	}
	return a.finishIngest(format, req.NoIndex, asJSON, res, w)
}

// finishIngest prints the report of an import and the file problems w
// has not printed yet, and returns the status.
func (a *app) finishIngest(format ingest.Format, noIndex, asJSON bool, res api.IngestResult, w *render.Warner) error {
	var err error
	if asJSON {
		// The problems were printed as they came, the first ones.
		res.Warnings, res.MoreWarnings = nil, 0
		err = cli.WriteJSON(a.stdout, res)
	} else {
		err = render.IngestReport(a.stdout, res, !noIndex)
	}
	if err != nil {
		return err
	}
	// Every file problem, after the report where it is seen last, but
	// once: the first ones were printed as they happened.
	w.Rest(res.FileErrors, res.Unusable)
	err = service.IngestOutcome(format, res)
	if errors.Is(err, service.ErrNoFile) {
		return cli.Exit(cli.ExitFailure) // each path got its line above
	}
	return err
}
