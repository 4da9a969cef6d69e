package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/spf13/cobra"
)

type ingestOptions struct {
	project  string
	noRedact bool
	full     bool
	noIndex  bool
	quiet    bool
	json     bool
}

func (a *app) ingestCommand() *cobra.Command {
	var o ingestOptions
	names := make([]string, len(ingest.Formats))
	for i, f := range ingest.Formats {
		names[i] = string(f)
	}
	c := &cobra.Command{
		Use:   "ingest FORMAT [PATH...]",
		Short: "Import agent transcripts (Claude Code, Codex, OpenCode, SWE-agent, ...)",
		Long: `Import the transcripts agents already write to disk. FORMAT is one of
` + strings.Join(names, ", ") + ` (auto detects each file).
With no PATH, the format's default location: ~/.claude/projects, ~/.codex/sessions and
~/.codex/archived_sessions, ~/.local/share/opencode.

Each tool call becomes one entry with its exact output; reasoning and messages become
entries too; compaction points are kept so that a replay shows where the agent lost its
context. Ingest is idempotent and incremental: a file read before adds only what was
appended since, and nothing is ever added twice. Credentials are replaced with
[REDACTED:kind] before anything is stored (--no-redact to keep them).

A malformed line is reported as file:line: reason, skipped and counted. The end report
(--json too) counts files, sessions, entries added and already present, lines skipped
by reason, secrets redacted and bytes. The new entries are indexed for search before
the command returns (--no-index to leave that to the next search).`,
		Example: `  memex ingest claude-code
  memex ingest auto ~/.codex/sessions ./trajectories
  memex ingest swe-agent --project django/django runs/ --json`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("ingest needs a FORMAT (%s)\nUsage: %s", strings.Join(names, ", "), c.UseLine())
			}
			if _, err := ingest.ParseFormat(args[0]); err != nil {
				return usagef("%s\nUsage: %s", strings.TrimPrefix(err.Error(), "ingest: "), c.UseLine())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return a.runIngest(c, o, args) },
	}
	f := c.Flags()
	f.Var(projectValue{&o.project}, "project", "project for every session read (default: detected from each session's directory)")
	f.BoolVar(&o.noRedact, "no-redact", false, "store credentials as they are")
	f.BoolVar(&o.full, "full", false, "read every file whole, ignoring the progress kept from earlier runs")
	f.BoolVar(&o.noIndex, "no-index", false, "do not index the new entries now")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar and no per-line warnings")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	return c
}

func (a *app) runIngest(c *cobra.Command, o ingestOptions, args []string) error {
	ctx := c.Context()
	format, _ := ingest.ParseFormat(args[0])
	// Ingest writes many entries: commit them without a sync each and sync
	// once at the end. The write-ahead log keeps order, so a crash loses at
	// most a suffix of the run, progress records included, and the next
	// run reads that part again.
	a.bulk = true
	s, err := a.store(ctx)
	if err != nil {
		return err
	}
	opts := ingest.Options{Format: format, Paths: args[1:], Project: o.project, NoRedact: o.noRedact, Full: o.full}
	warned := 0
	if !o.quiet {
		opts.Warn = func(msg string) {
			if warned++; warned <= 20 {
				fmt.Fprintln(a.stderr, "memex: ingest:", msg)
			} else if warned == 21 {
				fmt.Fprintln(a.stderr, "memex: ingest: more problems; see the report")
			}
		}
	}
	if bar := a.progress("ingest", o.quiet || o.json); bar != nil {
		opts.Progress = func(p ingest.Progress) { bar(p.Bytes, p.TotalBytes) }
	}
	rep, err := ingest.Run(ctx, s, opts)
	if serr := s.Sync(); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	indexed := 0
	if !o.noIndex && rep.Added > 0 {
		ix, err := index.Open(filepath.Join(a.home, "index"), &index.Options{Content: s.Body, Entry: s.Get})
		if err != nil {
			return err
		}
		st, err := catchup.CatchUp(ctx, s, ix)
		if cerr := ix.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("ingest: entries archived, indexing failed (the next search retries): %w", err)
		}
		indexed = st.Indexed
	}
	if o.json {
		return writeJSON(a.stdout, struct {
			ingest.Report
			Indexed int `json:"indexed"`
		}{rep, indexed})
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "files read\t%d (%d unchanged)\n", rep.Files, rep.Unchanged)
	fmt.Fprintf(w, "sessions\t%d\n", rep.Sessions)
	fmt.Fprintf(w, "entries added\t%d\n", rep.Added)
	fmt.Fprintf(w, "already present\t%d\n", rep.Present)
	fmt.Fprintf(w, "bytes read\t%s\n", human(rep.Bytes))
	fmt.Fprintf(w, "secrets redacted\t%d%s\n", rep.Redacted, countsSuffix(rep.RedactedKinds))
	fmt.Fprintf(w, "lines skipped\t%d%s\n", rep.SkippedTotal(), countsSuffix(rep.Skipped))
	if len(rep.Unknown) > 0 {
		fmt.Fprintf(w, "unknown records\t%s\n", strings.TrimPrefix(countsSuffix(rep.Unknown), " "))
	}
	if !o.noIndex {
		fmt.Fprintf(w, "indexed\t%d\n", indexed)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, fe := range rep.FileErrors {
		fmt.Fprintln(a.stderr, "memex: ingest:", fe)
	}
	if len(rep.FileErrors) > 0 && rep.Files == 0 && rep.Unchanged == 0 {
		return &exitStatus{code: exitFailure}
	}
	return nil
}

// countsSuffix renders {"a":2,"b":1} as " (a 2, b 1)", sorted by key.
func countsSuffix(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
