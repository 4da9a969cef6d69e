package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/spool"
)

// Command is a command memex run runs and archives.
type Command struct {
	Args   []string  // the command and its arguments
	Stdin  io.Reader // the command's stdin
	Live   io.Writer // where its output is shown as it comes; nil: nowhere
	Redact bool      // apply the write policy to the output as it is spooled
}

// Ran is a command that ran: its exit status and its output, spooled.
type Ran struct {
	Exit  int
	Body  io.Reader  // the output, to archive
	Spool *spool.Run // Done once the output is archived; Close leaves it for the next writer
}

// RunEntry is the entry memex run archives args' output under: e (its
// flags' session, project, summary and aliases) as a tool call of the
// cli agent's "run" tool, created now, with args shell-quoted as its
// input and FillDefaults' session and project where e names none; outside
// a host's session, the project's RunSession of the day.
func RunEntry(e memex.Entry, args []string) memex.Entry {
	now := time.Now()
	e.ID, e.Created = memex.NewID(now), now
	e.Agent, e.Kind, e.Tool, e.Input = "cli", memex.KindTool, "run", hosts.ShellJoin(args)
	FillDefaults(&e)
	if e.Session == "" {
		e.Session = RunSession(e.Project, now)
	}
	return e
}

// RunSession is the session of the runs made at t in project outside an
// agent's session (neither --session nor the environment names one):
// one per project and local day, "run-NAME-2006-01-02" with NAME the
// project's last path element ("run-2006-01-02" without a project). A
// shell's history is per terminal, but a terminal's identity is not
// something a person can name later; a project's day is, and memex
// sessions then lists the day's runs in a repository as one session
// that memex replay walks in order.
func RunSession(project string, t time.Time) string {
	day := t.Local().Format(time.DateOnly)
	name := strings.Join(strings.Fields(path.Base(filepath.ToSlash(strings.TrimRight(project, `/\`)))), "-")
	if name == "." || name == "" { // no project, or one of only slashes or spaces
		return "run-" + day
	}
	return "run-" + name + "-" + day
}

// Archive adds r's output under e (given to Exec) through svc as it was
// spooled (the write policy was applied then), and lets go of the spool
// once the entry is stored; the stored entry keeps e's Redacted count.
// On an error the spool stays, for the next memex that writes.
func (r Ran) Archive(ctx context.Context, svc api.Service, e memex.Entry) (memex.Entry, error) {
	got, err := svc.Add(ctx, api.AddRequest{Entry: e, Body: r.Body, NoRedact: true})
	if err != nil {
		return e, err
	}
	r.Spool.Done()
	got.Redacted = e.Redacted
	return got, nil
}

// ErrNotStarted is a command that could not be started: the shell's
// status 127 when it is not found, 126 when it is not executable.
var ErrNotStarted = errors.New("command not started")

// notStarted is ErrNotStarted with the reason its command gave.
type notStarted struct{ err error }

func (n notStarted) Error() string        { return n.err.Error() }
func (n notStarted) Is(target error) bool { return target == ErrNotStarted }
func (n notStarted) Unwrap() error        { return n.err }

// Exec runs c with its combined stdout and stderr spooled under dir beside
// e, redacted as they are written (the raw bytes reach c.Live only), and
// the signals SIGINT, SIGTERM and SIGHUP sent to memex passed on to it. A
// run killed before it is archived, or refused by a busy store, is
// archived by the next memex process that writes (DrainSpool). e gets the
// exit status, 128+N for signal N. When c.Live fails (its reader went
// away: memex run ... | head), the command is read no more, as a pipe's
// writer whose reader left, and what it printed until then is archived.
//
// A command that does not start is ErrNotStarted, with nothing left
// spooled.
func Exec(dir string, e *memex.Entry, c Command) (Ran, error) {
	run, err := spool.StartRun(dir)
	if err != nil {
		return Ran{}, err
	}
	toSpool, spooled := PolicyWriter(run, e, c.Redact)
	if err := run.Save(e); err != nil {
		run.Done()
		return Ran{}, err
	}
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	cmd.Stdin = c.Stdin
	pr, pw, err := os.Pipe()
	if err != nil {
		run.Done()
		return Ran{}, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		run.Done()
		code := 127 // not found
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOEXEC) {
			code = 126 // found, but not executable
		}
		return Ran{Exit: code}, notStarted{err}
	}
	pw.Close()
	stopForwarding := forwardSignals(cmd.Process)
	// A write to a closed pipe on memex's stdout or stderr (memex run ...
	// | head) fails with EPIPE instead of killing memex with the output
	// unarchived.
	brokenPipes := make(chan os.Signal, 1)
	signal.Notify(brokenPipes, syscall.SIGPIPE)
	defer signal.Stop(brokenPipes)
	var sink io.Writer = toSpool
	var live *liveWriter
	if c.Live != nil {
		live = &liveWriter{w: c.Live}
		sink = io.MultiWriter(toSpool, live)
	}
	_, copyErr := io.Copy(sink, pr)
	if live != nil && live.err != nil && errors.Is(copyErr, live.err) {
		// What showed the output is gone: the command is read no more,
		// as a pipe's reader that left, and gets SIGPIPE on its next
		// write; what it printed until then is spooled (MultiWriter
		// writes the spool first).
		copyErr = nil
	}
	pr.Close()
	spoolErr := spooled()
	waitErr := cmd.Wait()
	stopForwarding()
	code := exitCodeOf(cmd.ProcessState, waitErr)
	if copyErr == nil {
		copyErr = spoolErr
	}
	e.Exit = memex.IntPtr(code)
	if copyErr != nil {
		run.Close()
		return Ran{Exit: code}, fmt.Errorf("run: spool output to %s: %w", run.Path(), copyErr)
	}
	body, err := run.Finish(e)
	if err != nil {
		run.Close()
		return Ran{Exit: code}, err
	}
	return Ran{Exit: code, Body: body, Spool: run}, nil
}

// liveWriter is where a command's output is shown; err is the write error
// that ended the showing (the reader of memex's stdout went away).
type liveWriter struct {
	w   io.Writer
	err error
}

func (l *liveWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if err != nil {
		l.err = err
	}
	return n, err
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

// SpoolAdd spools an add the store refused (it stayed busy) under dir,
// as memex run spools its output: req's entry, given an ID of now unless
// it has one, and its body through the write policy unless req.NoRedact.
// The next memex process that writes archives it under that ID
// (DrainSpool). It returns the entry as spooled, Bytes its body's size.
func SpoolAdd(dir string, req api.AddRequest) (memex.Entry, error) {
	e := req.Entry
	if e.ID.IsZero() {
		now := time.Now()
		e.ID, e.Created = memex.NewID(now), now
	}
	run, err := spool.StartRun(dir)
	if err != nil {
		return e, err
	}
	toSpool, spooled := PolicyWriter(run, &e, !req.NoRedact)
	// The entry first, as Exec saves it: killed while the body is
	// copied, the spool holds what it is of, not an unnamed run.
	err = run.Save(&e)
	if err == nil {
		e.Bytes, err = io.Copy(toSpool, req.Body)
	}
	if serr := spooled(); err == nil {
		err = serr
	}
	if err == nil {
		err = run.Save(&e) // with the redactions counted
	}
	if err != nil {
		run.Done()
		return e, fmt.Errorf("add: spool: %w", err)
	}
	run.Close()
	return e, nil
}
