package main

import (
	"fmt"

	"github.com/memex-archive/memex/internal/buildinfo"

	"github.com/memex-archive/memex/internal/cli"
	"github.com/spf13/cobra"
)

// version is memex's release. A release build sets it with
// -ldflags "-X main.version=1.2.3"; it is what --version, /healthz and the
// MCP server report.
var version = "0.1.0"

func (a *app) versionCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print memex's version",
		Long: `Print the version of this memex binary (also: memex --version), with the commit it was
built from when known.`,
		Example: `  memex version
  memex version --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			if asJSON {
				return cli.WriteJSON(a.stdout, buildinfo.Read(version))
			}
			_, err := fmt.Fprintln(a.stdout, buildinfo.Read(version))
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON: version, commit, modified, go")
	return c
}
