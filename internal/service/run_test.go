package service

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
)

func TestExec(t *testing.T) {
	dir := t.TempDir()
	e := memex.Entry{ID: memex.NewID(time.Now()), Kind: memex.KindTool, Tool: "run"}
	var live bytes.Buffer
	ran, err := Exec(dir, &e, Command{Args: []string{"sh", "-c", "echo out; echo err >&2; exit 3"}, Live: &live, Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(ran.Body)
	if ran.Exit != 3 || e.Exit == nil || *e.Exit != 3 {
		t.Errorf("exit %d, entry's %v: want 3", ran.Exit, e.Exit)
	}
	if got := string(body); got != "out\nerr\n" || live.String() != got {
		t.Errorf("body %q, shown %q: want both streams, once each", got, live.String())
	}
	// The output is redacted as it is spooled; what is shown is not.
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	live.Reset()
	ran2, err := Exec(dir, &e, Command{Args: []string{"echo", secret}, Live: &live, Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	body2, _ := io.ReadAll(ran2.Body)
	ran2.Spool.Done()
	if strings.Contains(string(body2), secret) || !strings.Contains(live.String(), secret) || e.Redacted != 1 {
		t.Errorf("spooled %q, shown %q, redacted %d: want the token replaced in the spool only", body2, live.String(), e.Redacted)
	}
	if n := spooled(t, dir); n != 2 {
		t.Errorf("%d spool files before Done, want the output and its entry", n)
	}
	ran.Spool.Done()
	if n := spooled(t, dir); n != 0 {
		t.Errorf("%d spool files after Done", n)
	}

	_, err = Exec(dir, &e, Command{Args: []string{filepath.Join(dir, "no-such-command")}})
	if !errors.Is(err, ErrNotStarted) || !strings.Contains(err.Error(), "no-such-command") {
		t.Errorf("a command that does not start: %v", err)
	}
	if n := spooled(t, dir); n != 0 {
		t.Errorf("%d spool files left by a command that did not start", n)
	}
}

// A command killed by a signal exits 128+N, as the shell says.
func TestExecKilled(t *testing.T) {
	e := memex.Entry{ID: memex.NewID(time.Now())}
	ran, err := Exec(t.TempDir(), &e, Command{Args: []string{"sh", "-c", "kill -TERM $$"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ran.Spool.Done()
	if ran.Exit != 128+15 {
		t.Errorf("exit %d, want 143", ran.Exit)
	}
}

// failingAdd is a Service whose Add fails, as a busy store's does.
type failingAdd struct{ api.Service }

func (failingAdd) Add(context.Context, api.AddRequest) (memex.Entry, error) {
	return memex.Entry{}, memex.ErrBusy
}

// A run's entry is a cli tool call of "run" with its command line as
// input; Archive stores the output as it was spooled (redacted then),
// keeps the redaction count, and lets go of the spool only once the
// entry is stored.
func TestRunEntryArchive(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h, err := home.Open(ctx, dir, home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	args := []string{"sh", "-c", "echo $0", secret}
	e := RunEntry(memex.Entry{Session: "s", Project: "p", AgentSummary: "mine"}, args)
	if e.Agent != "cli" || e.Kind != memex.KindTool || e.Tool != "run" || e.Input != "sh -c 'echo $0' "+secret ||
		e.Session != "s" || e.Project != "p" || e.AgentSummary != "mine" || e.Created.IsZero() || e.ID.IsZero() {
		t.Fatalf("RunEntry: %+v", e)
	}
	for _, fail := range []bool{true, false} {
		e := e
		ran, err := Exec(dir, &e, Command{Args: args, Redact: true})
		if err != nil {
			t.Fatal(err)
		}
		var svc api.Service = New(h, Options{})
		if fail {
			svc = failingAdd{}
		}
		got, err := ran.Archive(ctx, svc, e)
		ran.Spool.Close()
		if fail {
			if !errors.Is(err, memex.ErrBusy) || spooled(t, dir) != 2 {
				t.Fatalf("a failed add: %v, %d spool files, want the output and its entry kept", err, spooled(t, dir))
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := spooled(t, dir); n != 2 { // the failed run's, left for the next writer
			t.Errorf("%d spool files, want the failed run's two", n)
		}
		rc, err := svc.Lines(ctx, api.LinesRequest{ID: got.ID})
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		if got.Redacted == 0 || got.Redacted != e.Redacted || strings.Contains(string(body), secret) || !strings.Contains(string(body), "[REDACTED:") {
			t.Errorf("stored %q, redacted %d: want the spooled, redacted output and its count", body, got.Redacted)
		}
	}
}

func spooled(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && strings.HasPrefix(fi.Name(), "run-") {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Outside an agent's session a run is filed under its project's session
// of the day; a session the flags or the environment name wins.
func TestRunEntrySession(t *testing.T) {
	for _, v := range []string{"MEMEX_SESSION", "CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID"} {
		t.Setenv(v, "")
	}
	e := RunEntry(memex.Entry{Project: "github.com/acme/demo"}, []string{"make"})
	if day := e.Created.Local().Format(time.DateOnly); e.Session != "run-demo-"+day {
		t.Errorf("outside a session: %q, want run-demo-%s", e.Session, day)
	}
	if e := RunEntry(memex.Entry{Project: "github.com/acme/demo", Session: "fix-auth"}, []string{"make"}); e.Session != "fix-auth" {
		t.Errorf("--session: %q", e.Session)
	}
	t.Setenv("CLAUDE_CODE_SESSION_ID", "5f0c2a91")
	if e := RunEntry(memex.Entry{Project: "github.com/acme/demo"}, []string{"make"}); e.Session != "5f0c2a91" {
		t.Errorf("in a Claude Code session: %q", e.Session)
	}
	for project, want := range map[string]string{
		"/home/u/My Project/": "run-My-Project-2026-12-02",
		"":                    "run-2026-12-02",
		"/":                   "run-2026-12-02",
	} {
		at := time.Date(2026, 12, 2, 12, 0, 0, 0, time.Local)
		if got := RunSession(project, at); got != want {
			t.Errorf("RunSession(%q) = %q, want %q", project, got, want)
		}
	}
}

// brokenPipe is a Live writer whose reader went away (memex run ... |
// head): it takes the first write and fails the next ones with EPIPE.
type brokenPipe struct{ writes int }

func (b *brokenPipe) Write(p []byte) (int, error) {
	if b.writes++; b.writes > 1 {
		return 0, syscall.EPIPE
	}
	return len(p), nil
}

// TestExecLiveReaderGone: when what shows the output fails (its reader
// went away), the command is no longer read, as a pipe's writer whose
// reader left: it gets SIGPIPE, and what it printed until then is
// archived with that status, not lost with an error.
func TestExecLiveReaderGone(t *testing.T) {
	e := memex.Entry{ID: memex.NewID(time.Now())}
	ran, err := Exec(t.TempDir(), &e, Command{Args: []string{"yes", "a line"}, Live: &brokenPipe{}, Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ran.Spool.Done()
	body, err := io.ReadAll(ran.Body)
	if err != nil {
		t.Fatal(err)
	}
	if ran.Exit != 128+int(syscall.SIGPIPE) || len(body) == 0 || !strings.HasPrefix(string(body), "a line\na line\n") {
		t.Errorf("exit %d, %d bytes archived (%.20q): want 141 and what yes printed", ran.Exit, len(body), body)
	}
}

// A command that exists but cannot be executed exits 126, one that does
// not exist 127, as the shell says.
func TestExecNotStartedStatus(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(plain, []byte("echo hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]int{plain: 126, filepath.Join(dir, "missing"): 127} {
		e := memex.Entry{ID: memex.NewID(time.Now())}
		ran, err := Exec(t.TempDir(), &e, Command{Args: []string{path}})
		if !errors.Is(err, ErrNotStarted) || ran.Exit != want {
			t.Errorf("%s: exit %d, %v; want %d, not started", filepath.Base(path), ran.Exit, err, want)
		}
	}
}
