package main

import (
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/render"
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
	return render.Stats(a.stdout, st)
}
