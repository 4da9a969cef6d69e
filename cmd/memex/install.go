package main

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/homedir"
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
The commands written run this memex binary by its absolute path (--bin another; install
checks that it runs), with --home when the store is not the default one, so that the
agent's hooks archive where you read. When memex-hook sits beside that binary (go
install ./cmd/... installs both), the PostToolUse hooks of Claude Code and Codex run it:
it spools a tool call without loading the store, and hands everything else to memex.
Existing files are merged, not replaced; a
changed file is first copied to FILE.memex-backup-TIME (never over an earlier backup);
a symlinked file stays a link and its target is written; running it again changes
nothing. --dry-run prints the changes without writing.`,
		`  memex install claude-code
  memex install codex --scope project --dry-run`)
}

func (a *app) uninstallCommand() *cobra.Command {
	return a.installLike("uninstall", `Remove what memex install added to a host's configuration: the memex hook handlers
and the memex MCP server entry, whatever binary and home they name. Everything else
stays as it is; a changed file is backed up first. With the home install was run with
(it keeps a record there, installs.json), a file install created is removed when
nothing else is in it (and so is a directory install made for it, once empty), and a
file nobody changed since install gets back your original bytes.`, `  memex uninstall claude-code
  memex uninstall opencode --scope project`)
}

func (a *app) installLike(verb, long, example string) *cobra.Command {
	var o installOptions
	c := &cobra.Command{
		Use:     verb + " " + strings.Join(hosts.Names, "|") + " [--scope user|project] [--dry-run]",
		Short:   strings.ToUpper(verb[:1]) + verb[1:] + " memex's hooks and MCP server in an agent host's configuration",
		Long:    long,
		Example: example,
		Args:    cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return a.runInstall(c.Context(), o, verb, args[0])
		},
	}
	c.Flags().StringVar(&o.scope, "scope", "user", "user (your home) or project (the current directory)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the changes without writing them")
	c.Flags().StringVar(&o.bin, "bin", "", "absolute path of the memex binary the host runs (default: this one)")
	return c
}

func (a *app) runInstall(ctx context.Context, o installOptions, verb, host string) error {
	if o.scope != "user" && o.scope != "project" {
		return cli.Usagef("--scope %q: want user or project", o.scope)
	}
	if !hosts.Known(host) {
		return cli.Usagef("unknown host %q: want %s", host, strings.Join(hosts.Names, ", "))
	}
	opts := hosts.Options{Project: o.scope == "project", Bin: o.bin, Home: homedir.Flag(a.home),
		Manifest: filepath.Join(a.home, hosts.ManifestFile)}
	return hosts.Install(ctx, a.stdout, host, opts, verb == "uninstall", o.dryRun)
}
