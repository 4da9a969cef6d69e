package main

import (
	"context"

	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/homedir"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

func (a *app) doctorCommand() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "doctor [--json]",
		Short: "Check memex's installs in the agent hosts and the store they write to",
		Long: `Check that memex works where it was installed, and say how to fix what does not:

  hosts   for each agent host memex is installed in (user and project scope): whether its
          configuration still holds memex's hooks and MCP server, whether the memex
          binary they name runs, which store they write to (this one?), and the last hook
          that ran and how it went
  server  whether a memex serve named in the home is running and answering
  store   whether the store opens (schema), entries not yet in the search index, hook
          captures left in the spool, files other users can read

Exits 1 when something is wrong; --json prints the whole report.`,
		Example: `  memex doctor
  memex --home ~/work/memex doctor --json`,
		Args: cli.ExactArgs(0),
		RunE: func(c *cobra.Command, _ []string) error {
			rep := a.doctor(c.Context())
			if asJSON {
				if err := cli.WriteJSON(a.stdout, rep); err != nil {
					return err
				}
			} else {
				service.WriteDoctor(a.stdout, rep)
			}
			if !rep.OK {
				return cli.Exit(cli.ExitFailure)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}

func (a *app) doctor(ctx context.Context) service.DoctorReport {
	def, _ := homedir.Default() // "" when there is no home directory
	return service.Doctor(ctx, service.DoctorOptions{Version: version, Message: cli.Message,
		Hosts: hosts.CheckOptions{Home: a.home, InstallHome: homedir.Flag(a.home), DefaultHome: def}})
}
