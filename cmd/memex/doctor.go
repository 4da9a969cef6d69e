package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
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
				printDoctor(a, rep)
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
	def, _ := home.Default() // "" when there is no home directory
	_, c, _ := service.Running(ctx, a.home)
	return service.Doctor(ctx, service.DoctorOptions{Version: version, Client: c, Message: cli.Message,
		Hosts: hosts.CheckOptions{Home: a.home, InstallHome: a.installedHome(), DefaultHome: def}})
}

func printDoctor(a *app, rep service.DoctorReport) {
	w := a.stdout
	fmt.Fprintf(w, "memex %s, store in %s\n", rep.Version, rep.Home)
	if len(rep.Hosts) == 0 {
		fmt.Fprintf(w, "hosts: memex is installed in none (memex install %s)\n", strings.Join(hosts.Names, "|"))
	}
	for _, h := range rep.Hosts {
		fmt.Fprintf(w, "%s (%s scope): %d of %d hooks", h.Host, h.Scope, len(h.Hooks), len(h.Hooks)+len(h.Missing))
		if h.Server != nil {
			fmt.Fprint(w, ", MCP server")
		} else {
			fmt.Fprint(w, ", no MCP server")
		}
		if len(h.WritesTo) > 0 {
			fmt.Fprintf(w, ", writing to %s", strings.Join(h.WritesTo, " and "))
		}
		fmt.Fprintln(w)
		for _, b := range h.Binaries {
			if b.Runs {
				fmt.Fprintf(w, "  runs %s (%s)\n", b.Path, b.Version)
			} else {
				fmt.Fprintf(w, "  runs %s: %s\n", b.Path, b.Error)
			}
		}
		if h.LastHook != nil {
			outcome := "ok"
			if h.LastHook.Error != "" {
				outcome = "failed: " + h.LastHook.Error
			}
			fmt.Fprintf(w, "  last hook: %s at %s, %s\n", h.LastHook.Event, h.LastHook.At.Local().Format(time.DateTime), outcome)
		} else if len(h.Hooks) > 0 {
			fmt.Fprintln(w, "  last hook: none has run yet")
		}
	}
	switch {
	case !rep.Server.Running:
		fmt.Fprintln(w, "server: none running")
	case rep.Server.Answering:
		fmt.Fprintf(w, "server: %s answering (memex %s)\n", rep.Server.Addr, rep.Server.Version)
	default:
		fmt.Fprintf(w, "server: %s not answering\n", rep.Server.Addr)
	}
	if rep.Store.Exists && rep.Store.Schema > 0 {
		fmt.Fprintf(w, "store: schema v%d, %d entries waiting for the index (the next memex search indexes them first)", rep.Store.Schema, rep.Store.PendingIndex)
		if rep.Store.Note != "" {
			fmt.Fprintf(w, " (%s)", rep.Store.Note)
		}
		fmt.Fprintln(w)
	} else if rep.Store.Note != "" {
		fmt.Fprintf(w, "store: %s\n", rep.Store.Note)
	}
	if len(rep.Problems) == 0 {
		fmt.Fprintln(w, "no problems found")
		return
	}
	fmt.Fprintf(w, "\n%d problem(s):\n", len(rep.Problems))
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "- %s: %s\n", p.Where, p.Problem)
		if p.Fix != "" {
			fmt.Fprintf(w, "  fix: %s\n", p.Fix)
		}
	}
}
