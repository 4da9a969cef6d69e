package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// app is what every subcommand shares: the process's streams, the global
// flags, and the store, opened on first use.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	home           string
	verbose        bool
	bulk           bool // open the store without a sync per write (ingest syncs at the end)
	log            *slog.Logger
	st             *storeHandle
}

// Run runs memex with args (without the program name). It is main's only
// callee and what end-to-end tests call.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	started := false
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		started = true
		return a.setup()
	}
	err := root.ExecuteContext(ctx)
	if cerr := a.close(); err == nil {
		err = cerr
	}
	if err != nil && !started {
		// Cobra failed before any command ran: an unknown command, flag or
		// argument count.
		var ue *usageError
		if !errors.As(err, &ue) {
			err = usagef("%s\nRun 'memex --help' for usage.", err)
		}
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
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: true},
	}
	root.PersistentFlags().StringVar(&a.home, "home", "", "memex home directory (default $MEMEX_HOME or ~/.memex)")
	root.PersistentFlags().BoolVarP(&a.verbose, "verbose", "v", false, "log details to stderr")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usagef("%s\nUsage: %s", err, c.UseLine())
	})
	root.AddCommand(
		a.addCommand(),
		a.runCommand(),
		a.showCommand(),
		a.tokensCommand(),
		a.verifyCommand(),
		a.statsCommand(),
		a.searchCommand(), a.reindexCommand(), a.forgetCommand(),
		a.derefCommand(), a.contextCommand(),
		a.serveCommand(),
		a.mcpCommand(),
		a.hookCommand(),
		a.installCommand(), a.uninstallCommand(),
		a.ingestCommand(), a.sessionsCommand(), a.replayCommand(),
		a.evalCommand(),
	)
	return root
}

// setup resolves the home directory and the logger; it runs before every
// subcommand.
func (a *app) setup() error {
	level := slog.LevelWarn
	if a.verbose {
		level = slog.LevelDebug
	}
	a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	if a.home == "" {
		a.home = os.Getenv("MEMEX_HOME")
	}
	if a.home == "" {
		dir, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("cannot find a home directory (set MEMEX_HOME or --home): %w", err)
		}
		a.home = filepath.Join(dir, ".memex")
	}
	abs, err := filepath.Abs(a.home)
	if err != nil {
		return err
	}
	a.home = abs
	return nil
}

func (a *app) close() error {
	if a.st != nil {
		err := a.st.close()
		a.st = nil
		return err
	}
	return nil
}

// exactArgs, rangeArgs: argument-count checks that fail as usage errors.
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %d argument(s), got %d\nUsage: %s", c.Name(), n, len(args), c.UseLine())
		}
		return nil
	}
}

func rangeArgs(lo, hi int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usagef("%s takes %d to %d argument(s), got %d\nUsage: %s", c.Name(), lo, hi, len(args), c.UseLine())
		}
		return nil
	}
}

// lockTimeout is how long a command waits for another memex process to
// release the store: $MEMEX_LOCK_TIMEOUT (a Go duration), default 30s.
func lockTimeout() time.Duration {
	if v := strings.TrimSpace(os.Getenv("MEMEX_LOCK_TIMEOUT")); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return d
		}
	}
	return 30 * time.Second
}
