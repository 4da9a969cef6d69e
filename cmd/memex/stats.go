package main

import (
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
			return cli.Output(a.stdout, asJSON, st, render.Stats)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the figures as JSON")
	return c
}
