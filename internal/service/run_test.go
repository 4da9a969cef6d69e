package service

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
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
