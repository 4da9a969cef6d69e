package main

import (
	"context"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

func (a *app) completionCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "completion bash|zsh|fish",
		Short: "Print the shell completion script for bash, zsh or fish",
		Long: `Print a script that makes your shell complete memex's commands and flags, the agent
hosts (memex install <TAB>), the transcript formats (memex ingest <TAB>), and the
session names of your store (memex replay <TAB>, --session <TAB>), read from the store
(or the running memex serve) as you type.

  bash  source <(memex completion bash)              # in ~/.bashrc (needs bash-completion)
  zsh   memex completion zsh > "${fpath[1]}/_memex"  # then start a new shell
  fish  memex completion fish > ~/.config/fish/completions/memex.fish`,
		Example: `  source <(memex completion bash)
  memex completion zsh > ~/.zsh/completions/_memex`,
		Args:      cli.ExactArgs(1),
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(c *cobra.Command, args []string) error {
			root := c.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(a.stdout, true)
			case "zsh":
				return root.GenZshCompletion(a.stdout)
			case "fish":
				return root.GenFishCompletion(a.stdout, true)
			}
			return cli.Usagef("completion %q: want bash, zsh or fish", args[0])
		},
	}
	return c
}

// addCompletions tells cobra what completes which argument and flag:
// hosts, formats, events, agents, kinds and the store's session names.
func (a *app) addCompletions(root *cobra.Command) {
	formats := ingest.FormatNames(ingest.Formats)
	agents := append(append([]string{}, hosts.Names...), "swe-agent", "mini-swe-agent", "cli", "git", "github", "mcp")
	sessions := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return a.sessionNames(), cobra.ShellCompDirectiveNoFileComp
	}
	for _, c := range root.Commands() {
		switch c.Name() {
		case "install", "uninstall":
			c.ValidArgsFunction = cli.First(hosts.Names, cobra.ShellCompDirectiveNoFileComp)
		case "ingest":
			c.ValidArgsFunction = cli.First(formats, cobra.ShellCompDirectiveDefault)
		case "hook":
			c.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
				switch len(args) {
				case 0:
					return hosts.HookHosts, cobra.ShellCompDirectiveNoFileComp
				case 1:
					return hosts.Specs(args[0]), cobra.ShellCompDirectiveNoFileComp
				}
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
		case "replay":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, s string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return sessions(cmd, args, s)
			}
		}
		for name, fn := range map[string]cobra.CompletionFunc{"session": sessions, "agent": cli.Words(agents...), "kind": cli.Words(memex.KindNames...)} {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
	}
}

// sessionNames lists the store's session names for completion, from the
// Service: the running server's, or the one over the store opened for
// reading; nothing when neither answers at once (a completion must not
// wait for a lock).
func (a *app) sessionNames() []string {
	if a.log == nil {
		if err := a.setup(); err != nil {
			return nil
		}
	}
	return service.SessionNames(context.Background(), a.home)
}
