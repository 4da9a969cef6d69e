package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/memex-archive/memex/internal/buildinfo"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/homedir"
	"github.com/spf13/cobra"
)

// app is what every subcommand shares: the process's streams, the global
// flags, and the store, opened on first use.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	home           string
	verbose        bool
	log            *slog.Logger
	running        *cobra.Command // the command being run
	h              *home.Home     // the home, once opened
	svc            api.Service    // the Service, once chosen (store.go)
	mem            api.Memory     // the Memory, chosen with svc
	quiet          bool           // --json given: no progress bar (a reindex's)
}

// nameCommands take one session name or alias, which may start with '-'
// (agents and scripts name sessions "-fix-auth"): replay and show.
var nameCommands = map[string]bool{"replay": true, "show": true}

// Run runs memex with args (without the program name). It is main's only
// callee and what end-to-end tests call.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(cli.DashOperands(root, args, nameCommands))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	started := false
	asJSON := false
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		started = true
		a.running = cmd
		if f := cmd.Flags().Lookup("json"); f != nil && f.Value.String() == "true" {
			asJSON = true
			a.quiet = true
		}
		return a.setup()
	}
	err := root.ExecuteContext(ctx)
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil && !started {
		// Cobra failed before any command ran: an unknown command, flag or
		// argument count.
		return cli.Unparsed(root, args, err)
	}
	if err != nil && asJSON {
		// --json means the error too is JSON (cli.ExitCode prints it).
		err = &cli.JSONError{Err: err}
	}
	return err
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "memex",
		Short: "memex — an indexed experience archive for coding agents",
		Long: `memex archives what coding agents see (tool outputs, reasoning, messages) at full
fidelity, compressed, under stable IDs, and gives the exact evidence back on demand,
within a token budget. The archive is shared across sessions and agents.

The store lives in $MEMEX_HOME (default ~/.memex); --home overrides it.`,
		Example: `  memex run --quiet -- go test ./...     # run, archive the whole output, print one line
  memex show 01JD8X3N6Q4W0G2Y7T5R9KZC1M     # the exact output, byte for byte
  memex show 01JD8X3N6Q4W0G2Y7T5R9KZC1M --lines 120:140
  echo "decided: keep the retry loop" | memex add --kind note -`,
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		Version:           buildinfo.Read(version).String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&a.home, "home", "", "memex home directory (default $MEMEX_HOME or ~/.memex)")
	root.PersistentFlags().BoolVarP(&a.verbose, "verbose", "v", false, "log details to stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return cli.Usagef("%s\nUsage: %s", err, c.UseLine())
	})
	root.AddCommand(
		a.addCommand(),
		a.runCommand(),
		a.showCommand(),
		a.tokensCommand(),
		a.verifyCommand(),
		a.statsCommand(),
		a.searchCommand(), a.reindexCommand(), a.forgetCommand(),
		a.derefCommand(), a.contextCommand(), a.handoffCommand(), a.staleCommand(),
		a.lessonsCommand(), a.proceduresCommand(), a.exportCommand(), a.distillCommand(),
		a.serveCommand(),
		a.mcpCommand(),
		a.hookCommand(),
		a.installCommand(), a.uninstallCommand(),
		a.ingestCommand(), a.sessionsCommand(), a.replayCommand(),
		a.evalCommand(),
		a.versionCommand(),
		a.doctorCommand(),
		a.completionCommand(),
	)
	root.SetHelpCommand(helpCommand(root))
	a.addCompletions(root)
	return root
}

// helpCommand is memex help [COMMAND]: cobra's own prints the root's usage
// for a command that does not exist and exits 0, where memex NAME is a
// usage error.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of any command: memex help show is memex show --help.",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err == nil && len(rest) > 0 && cmd.HasSubCommands() {
				err = fmt.Errorf("unknown command %q for %q", rest[0], cmd.CommandPath())
			}
			if err != nil || cmd == nil {
				return cli.Usagef("help: %v\nRun 'memex --help' for usage.", err)
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
}

// setup resolves the home directory and the logger; it runs before every
// subcommand.
func (a *app) setup() error {
	level := slog.LevelWarn
	if a.verbose {
		level = slog.LevelDebug
	}
	a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	dir, err := homedir.Resolve(a.home)
	if err != nil {
		return err
	}
	a.home = dir
	return nil
}

func (a *app) close() error {
	a.svc, a.mem = nil, nil
	if a.h != nil {
		err := a.h.Close()
		a.h = nil
		return err
	}
	return nil
}
