package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/summarize"
	"github.com/spf13/cobra"
)

type runOptions struct {
	session, project, alias, summary string
	quiet, json, noRedact            bool
}

func (a *app) runCommand() *cobra.Command {
	var o runOptions
	c := &cobra.Command{
		Use:   "run [flags] -- CMD [ARGS...]",
		Short: "Run a command, archive its whole output, and exit with its status",
		Long: `Run CMD, show its output live (unless --quiet), archive the combined stdout and
stderr with the exit status, and end with one line on stderr: the entry's ID, its
summary, the tokens archived and how to read it back. memex exits with CMD's status.

With --quiet that one line is all the caller sees: an agent keeps a 5,000-line test
log out of its context and still has every byte of it by ID.

The output is spooled to a file under $MEMEX_HOME/spool while the command runs, so a
long command never holds the store; if archiving fails the spool file is kept and
named.

SIGINT, SIGTERM and SIGHUP sent to memex are passed on to CMD (a Ctrl-C typed at the
terminal reaches CMD directly and is not sent twice); what CMD printed until then is
archived with its status, 128+N for signal N.`,
		Example: `  memex run --quiet -- go test ./...
  memex run -- make lint
  memex run --session fix-auth --alias auth-tests-before-fix -- pytest -x tests/`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("run needs a command\nUsage: %s", c.UseLine())
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return a.runRun(c, o, args) },
	}
	f := c.Flags()
	f.SetInterspersed(false) // everything after the command name belongs to it
	f.StringVar(&o.session, "session", "", "session (default: $MEMEX_SESSION, $CLAUDE_CODE_SESSION_ID or $CODEX_THREAD_ID)")
	f.Var(projectValue{&o.project}, "project", "project (default: the git repository of the current directory)")
	f.StringVar(&o.alias, "alias", "", "another name for the entry")
	f.StringVar(&o.summary, "summary", "", "your own one-line summary")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "do not show the output; print only the closing line")
	f.BoolVar(&o.noRedact, "no-redact", false, "store credentials as they are (by default they become [REDACTED:kind])")
	f.BoolVar(&o.json, "json", false, `print the closing line as JSON on stdout: {"id","summary","tokens","bytes","exit"}`)
	return c
}

func (a *app) runRun(c *cobra.Command, o runOptions, args []string) error {
	ctx := c.Context()
	spoolDir := filepath.Join(a.home, "spool")
	if err := os.MkdirAll(spoolDir, 0o700); err != nil {
		return err
	}
	spool, err := os.CreateTemp(spoolDir, "run-*.out")
	if err != nil {
		return err
	}
	spoolPath := spool.Name()
	keep := false
	defer func() {
		spool.Close()
		if !keep {
			os.Remove(spoolPath)
		}
	}()

	started := time.Now()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin = a.stdin
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		fmt.Fprintf(a.stderr, "memex: run: %v\n", err)
		return &exitStatus{code: 127}
	}
	pw.Close()
	stopForwarding := forwardSignals(cmd.Process)
	var sink io.Writer = spool
	if !o.quiet && !o.json {
		sink = io.MultiWriter(spool, a.stdout)
	} else if !o.quiet {
		sink = io.MultiWriter(spool, a.stderr)
	}
	_, copyErr := io.Copy(sink, pr)
	pr.Close()
	waitErr := cmd.Wait()
	stopForwarding()
	code := exitCodeOf(cmd.ProcessState, waitErr)
	if copyErr != nil {
		keep = true
		return fmt.Errorf("run: spool output to %s: %w", spoolPath, copyErr)
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		keep = true
		return err
	}

	e := memex.Entry{
		Project:      o.project,
		Session:      o.session,
		Agent:        "cli",
		Kind:         memex.KindTool,
		Tool:         "run",
		Input:        shellJoin(args),
		Exit:         memex.IntPtr(code),
		Created:      started,
		AgentSummary: o.summary,
	}
	if o.alias != "" {
		e.Aliases = []string{o.alias}
	}
	fillDefaults(&e)
	// The command's result must not be lost to an interrupt that arrived
	// while it ran: archive with a context of its own, through a running
	// server when there is one (it owns the store and redacts), else
	// locally.
	actx := context.WithoutCancel(ctx)
	if _, r, ok := a.runningServer(actx); ok {
		e, err = r.add(actx, e, spool)
	} else {
		var s *archive.Store
		if s, err = a.store(actx); err == nil {
			body, done := a.redacting(&e, spool, o.noRedact)
			if e, err = s.Add(actx, e, body); err == nil {
				done(e)
			}
		}
	}
	if err != nil {
		keep = true
		fmt.Fprintf(a.stderr, "memex: run: could not archive the output (kept in %s): %v\n", spoolPath, userMessage(err))
		return &exitStatus{code: code}
	}
	if o.json {
		out := map[string]any{"id": e.ID, "summary": e.DisplaySummary(),
			"tokens": e.Tokens, "bytes": e.Bytes, "exit": code}
		if e.Redacted > 0 {
			out["redacted"] = e.Redacted
		}
		if err := writeJSON(a.stdout, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(a.stderr, "memex: %s · %s · %s tokens archived · memex show %s\n",
			e.ID, e.DisplaySummary(), summarize.Commas(int(e.Tokens)), e.ID)
	}
	return &exitStatus{code: code}
}

// forwardSignals passes SIGINT, SIGTERM and SIGHUP sent to memex on to
// the command while it runs, so that a supervisor stopping memex by its
// PID stops the command too, and its output and status (128+N) are still
// archived. A Ctrl-C typed at the terminal already reached the command
// (the terminal signals the whole foreground process group), so SIGINT is
// not sent twice then. The returned func stops forwarding.
func forwardSignals(p *os.Process) func() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sig := range sigs {
			if sig == syscall.SIGINT && terminalSignalsUs() {
				continue
			}
			_ = p.Signal(sig)
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(sigs)
		<-done
	}
}

// exitCodeOf is the shell's view of a finished process: its exit status,
// or 128+N when signal N killed it.
func exitCodeOf(ps *os.ProcessState, err error) int {
	if ps == nil {
		return 1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) || err == nil {
		return ps.ExitCode()
	}
	return 1
}

// shellJoin quotes args the way a POSIX shell would read them back.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, s := range args {
		if s != "" && strings.IndexFunc(s, func(r rune) bool {
			return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || r == '=' || r == ',' || r == '+' || r == '@' || r == '%' ||
				r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0 {
			out[i] = s
			continue
		}
		out[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
