package main

import (
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
	"github.com/spf13/cobra"
)

func (a *app) reindexCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "reindex [--json]",
		Short: "Drop the search index and rebuild it from the archive",
		Long: `Drop the search index and rebuild it from the archive alone (the archive is the
source of truth; the index is derived). Needed after an upgrade that changes the
index schema: search then says so. Shows a progress bar on a terminal and prints the
number of entries indexed.

A rebuild can be stopped at any point (Ctrl-C, kill, a crash): the next memex command
that searches, or memex reindex again, finishes it, and memex verify says that it is
unfinished meanwhile. An index that cannot be opened at all (a damaged file) needs no
reindex: it is dropped and rebuilt from the archive by the next search, which says so.`,
		Example: `  memex reindex
  memex reindex --json    # {"indexed":N,"no_content":M}`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			svc, err := a.service(ctx, home.Options{MustExist: true})
			if err != nil {
				return err
			}
			res, err := svc.Reindex(ctx)
			if err != nil {
				return err
			}
			if asJSON {
				return cli.WriteJSON(a.stdout, res)
			}
			render.Reindex(a.stdout, a.stderr, res)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return c
}

// progressFunc returns the progress bar of a reindex on a terminal (nil
// elsewhere, and with --json).
func (a *app) progressFunc() func(done, total int) { return cli.Counter(a.stderr, "reindex", a.quiet) }

// indexProgressFunc returns the progress bar of the catch-up a search
// runs first (on a terminal, without --json), shown for a backlog of at
// least catchUpBar entries: the first search after ingest --no-index
// indexes everything it imported, for a minute at 500 MB.
func (a *app) indexProgressFunc() func(done, total int) {
	bar := cli.Counter(a.stderr, "indexing new entries", a.quiet)
	if bar == nil {
		return nil
	}
	return func(done, total int) {
		if total >= catchUpBar {
			bar(done, total)
		}
	}
}

// catchUpBar is the smallest backlog whose catch-up shows a bar: one
// chunk of the catch-up (about a second), which a bar could only flash.
const catchUpBar = 4096
