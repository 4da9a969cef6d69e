package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
)

func (a *app) statsCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "stats [--json]",
		Short: "Entries, sessions, raw and stored bytes, compression and dedup",
		Example: `  memex stats
  memex stats --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			svc, err := a.service(c.Context(), home.Options{Shared: true})
			if err != nil {
				return err
			}
			st, err := svc.Stats(c.Context())
			if err != nil {
				return err
			}
			return a.printStats(st, asJSON)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the figures as JSON")
	return c
}

// printStats prints the figures as memex stats does, whether they were
// read from the store or from a running server.
func (a *app) printStats(st api.Stats, asJSON bool) error {
	if asJSON {
		return cli.WriteJSON(a.stdout, st)
	}
	w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "entries\t%d\n", st.Entries)
	fmt.Fprintf(w, "sessions\t%d\n", st.Sessions)
	fmt.Fprintf(w, "tokens archived\t%d\n", st.Tokens)
	fmt.Fprintf(w, "raw bytes\t%s\n", summarize.ByteSize(st.RawBytes))
	fmt.Fprintf(w, "stored bytes\t%s (%.2fx)\n", summarize.ByteSize(st.StoredBytes), st.Ratio)
	fmt.Fprintf(w, "dedup saved\t%s (%d distinct bodies)\n", summarize.ByteSize(st.DedupSaved), st.Bodies)
	fmt.Fprintf(w, "on disk\t%s\n", summarize.ByteSize(st.DiskBytes))
	return w.Flush()
}
