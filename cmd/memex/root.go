package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
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
	running        *cobra.Command // the command being run
	h              *home.Home     // the home, once opened
	svc            api.Service    // the Service, once chosen (store.go)
	mem            api.Memory     // the Memory, chosen with svc
	quiet          bool           // no progress bars (--json)
}

// Run runs memex with args (without the program name). It is main's only
// callee and what end-to-end tests call.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(dashOperands(root, args))
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
		var ue *usageError
		if !errors.As(err, &ue) {
			if merr := flagBeforeCommand(root, args); merr != nil {
				// A --json before the command is not the command's: the
				// line is told in text how to give it.
				return merr
			}
			err = usagef("%s\nRun 'memex --help' for usage.", err)
		}
		// The flags were not read, or not all: --json is looked for in
		// the words themselves.
		asJSON = asksJSON(args)
	}
	if err != nil && asJSON {
		// --json means the error too is JSON (exitCode prints it).
		err = &jsonError{err}
	}
	return err
}

// asksJSON reports whether args, a command line that failed to parse,
// give --json (before any --, after which the words are a command's own).
func asksJSON(args []string) bool {
	for _, w := range args {
		switch w {
		case "--":
			return false
		case "--json", "--json=true", "--json=1", "--json=t", "--json=TRUE", "--json=True":
			return true
		}
	}
	return false
}

// flagBeforeCommand explains a command line that gives a command's flag
// before the command's name (memex --json search nil). Cobra reads an
// unknown flag there as taking the next word for its value, so it reports
// the word after the command name as an unknown command. It returns nil
// when args hold no such flag.
//
// Such a line is not reordered and run: which words belong to a flag
// before the command cannot be known until the command is (--json takes
// none, --budget one), so a guess could run something else than meant.
func flagBeforeCommand(root *cobra.Command, args []string) error {
	var before []string // the words before the command's name
	for i, w := range args {
		if w == "--" {
			return nil
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			if sub, _, err := root.Find(args[i:]); err == nil && sub != root {
				return misplacedFlag(root, sub, before, args[i:])
			}
		}
		before = append(before, w)
	}
	return nil
}

// misplacedFlag is the usage error for the words before given ahead of
// sub, the command that rest starts with: the first flag that is not the
// root's, and the command line with the command's flags moved after it.
// The root's flags (--home, -v) stay where they are: they go anywhere.
func misplacedFlag(root, sub *cobra.Command, before, rest []string) error {
	var flags, keep []string // the command's flags, and the root's flags with their values
	for i := 0; i < len(before); i++ {
		w := before[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		f := root.PersistentFlags().Lookup(name)
		if !strings.HasPrefix(w, "--") {
			f = nil
			if strings.HasPrefix(w, "-") && len(name) == 1 {
				f = root.PersistentFlags().ShorthandLookup(name)
			}
		}
		if f == nil && (name == "help" || name == "h") {
			return nil // memex --help search: cobra's own business
		}
		if f != nil || !strings.HasPrefix(w, "-") {
			// A root flag, or the value of the flag before it.
			keep = append(keep, w)
			if f != nil && !hasValue && f.NoOptDefVal == "" && i+1 < len(before) {
				i++
				keep = append(keep, before[i])
			}
			continue
		}
		flags = append(flags, w)
		if !hasValue {
			if g := sub.Flags().Lookup(name); g != nil && g.NoOptDefVal == "" && i+1 < len(before) {
				i++
				flags = append(flags, before[i])
			}
		}
	}
	if len(flags) == 0 {
		return nil
	}
	name := strings.TrimLeft(flags[0], "-")
	name, _, _ = strings.Cut(name, "=")
	if sub.Flags().Lookup(name) == nil && (len(name) != 1 || sub.Flags().ShorthandLookup(name) == nil) {
		return usagef("unknown flag %s before the command %q, which has no such flag either\nRun '%s --help' for usage.",
			flags[0], sub.Name(), sub.CommandPath())
	}
	line := append([]string{"memex"}, keep...)
	line = append(append(line, rest...), flags...)
	return usagef("unknown flag %s before the command: flags of a command go after its name (%s)",
		flags[0], hosts.ShellJoin(line))
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
		Version:           readBuildInfo().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
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
	a.addCompletions(root)
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
	dir, err := home.Resolve(a.home)
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
