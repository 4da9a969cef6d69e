package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/spf13/cobra"
)

// install writes memex's hooks and MCP server into an agent host's
// configuration files (internal/hosts knows which and how); this file is
// its flags and its printing.

type installOptions struct {
	scope  string
	dryRun bool
	bin    string
}

func (a *app) installCommand() *cobra.Command {
	return a.installLike("install", `Set up memex for an agent host in one command: its hooks (capture every tool output,
import the transcript before a compaction, inject the IndexedSummary after it) and the
memex MCP server (memex_search, memex_read, memex_compress, memex_context).

`+hosts.Layout+`
Existing files are merged, not replaced; a changed file is backed up first; running it
again changes nothing. --dry-run prints the changes without writing.`,
		`  memex install claude-code
  memex install codex --scope project --dry-run`)
}

func (a *app) uninstallCommand() *cobra.Command {
	return a.installLike("uninstall", `Remove what memex install added to a host's configuration: the memex hook handlers
and the memex MCP server entry. Everything else stays as it is; a changed file is backed
up first.`, `  memex uninstall claude-code
  memex uninstall opencode --scope project`)
}

func (a *app) installLike(verb, long, example string) *cobra.Command {
	var o installOptions
	c := &cobra.Command{
		Use:     verb + " " + strings.Join(hosts.Names, "|") + " [--scope user|project] [--dry-run]",
		Short:   strings.ToUpper(verb[:1]) + verb[1:] + " memex's hooks and MCP server in an agent host's configuration",
		Long:    long,
		Example: example,
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return a.runInstall(o, verb, args[0])
		},
	}
	c.Flags().StringVar(&o.scope, "scope", "user", "user (your home) or project (the current directory)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the changes without writing them")
	c.Flags().StringVar(&o.bin, "bin", "memex", "the memex command the host runs")
	return c
}

func (a *app) runInstall(o installOptions, verb, host string) error {
	if o.scope != "user" && o.scope != "project" {
		return usagef("--scope %q: want user or project", o.scope)
	}
	if !hosts.Known(host) {
		return usagef("unknown host %q: want %s", host, strings.Join(hosts.Names, ", "))
	}
	changes, err := hosts.Plan(host, hosts.Options{Project: o.scope == "project", Bin: o.bin}, verb == "uninstall")
	if err != nil {
		if errors.Is(err, memex.ErrInvalid) {
			return err
		}
		return fmt.Errorf("%s %s: %w", verb, host, err)
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for _, c := range changes {
		switch {
		case !c.Changed():
			fmt.Fprintf(a.stdout, "%s: nothing to change\n", c.Path)
		case o.dryRun:
			hosts.Diff(a.stdout, c, verb)
		default:
			backup, err := hosts.Apply(c, stamp)
			if err != nil {
				return err
			}
			if backup != "" {
				fmt.Fprintf(a.stdout, "%s: updated (backup in %s)\n", c.Path, backup)
			} else {
				fmt.Fprintf(a.stdout, "%s: created\n", c.Path)
			}
		}
	}
	return nil
}
