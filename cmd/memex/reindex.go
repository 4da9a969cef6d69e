package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/summarize"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"
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
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			ctx := c.Context()
			a.quiet = asJSON
			svc, err := a.service(ctx, home.Options{MustExist: true})
			if err != nil {
				return err
			}
			res, err := svc.Reindex(ctx)
			if err != nil {
				return err
			}
			return a.printReindex(res, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the counts as JSON")
	return c
}

// progressFunc returns the progress bar of a reindex on a terminal (nil
// elsewhere, and with --json).
func (a *app) progressFunc() func(done, total int) {
	f, ok := a.stderr.(*os.File)
	if !ok || a.quiet || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	var bar *progressbar.ProgressBar
	return func(done, total int) {
		if bar == nil {
			bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(f),
				progressbar.OptionSetDescription("reindex"), progressbar.OptionShowCount(),
				progressbar.OptionClearOnFinish())
		}
		_ = bar.Set(done)
	}
}

// reindexStore rebuilds ix from s: memex reindex, locally or through a
// running server.
func reindexStore(ctx context.Context, s *archive.Store, ix *index.Index, progress func(done, total int)) (api.ReindexResult, error) {
	// Indexing allocates at a high rate; a bulk rebuild spends a third
	// less CPU with a larger heap target (measured in
	// index.BenchmarkIndexCorpora, see docs/search.md).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	st, err := catchup.Reindex(ctx, s, ix, progress)
	return api.ReindexResult{Indexed: st.Indexed, NoContent: st.NoContent}, err
}

func (a *app) printReindex(res api.ReindexResult, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, res)
	}
	fmt.Fprintf(a.stdout, "reindexed %s\n", summarize.Plural(res.Indexed, "entry"))
	if res.NoContent > 0 {
		fmt.Fprintf(a.stderr, "%d entries indexed without content (unreadable body; run memex verify)\n", res.NoContent)
	}
	return nil
}
