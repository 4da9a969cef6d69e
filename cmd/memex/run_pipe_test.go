package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/cli"
)

// TestRunIntoAClosedPipe: memex run -- CMD | head must not die of the
// pipe that head closes and leave the output unarchived: CMD gets SIGPIPE
// as it would without memex, and what it printed is archived with that
// status, which memex exits with.
func TestRunIntoAClosedPipe(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(memexBin, "--home", home, "run", "--alias", "piped", "--", "yes", "a line")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "a line\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	out.Close() // head has read enough
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 141 {
		t.Fatalf("memex run ended with %v, want exit 141 (yes's SIGPIPE); stderr %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "memex: ") || !strings.Contains(stderr.String(), " · exit 141 · ") {
		t.Errorf("stderr %q, want the closing line of the archived run", stderr.String())
	}
	r := run(t, home, nil, "show", "piped", "--json")
	var e struct {
		Content string
		Exit    *int
		Bytes   int64
	}
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatal(err, r.stdout, r.stderr)
	}
	if e.Exit == nil || *e.Exit != 141 || !strings.HasPrefix(e.Content, "a line\na line\n") {
		t.Errorf("archived %d bytes (%.30q), exit %v: want yes's output and 141", e.Bytes, e.Content, e.Exit)
	}
}

// TestRunRefusesABadAliasBeforeRunning: an --alias the archive refuses (of
// an ID's form, empty) is a usage error before the command runs; it was
// found only when the output was archived, and left a spooled run that
// every later command failed to archive again.
func TestRunRefusesABadAliasBeforeRunning(t *testing.T) {
	home := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	for _, alias := range []string{"01M96ZVPR9KARJDQ26944T2TMK", " "} {
		r := run(t, home, nil, "run", "--alias", alias, "--", "sh", "-c", "echo ran > "+marker)
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--alias") {
			t.Errorf("run --alias %q: %+v; want a usage error naming --alias", alias, r)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("run --alias %q ran the command", alias)
		}
	}
	r := run(t, home, []byte("x\n"), "add", "--alias", "01M96ZVPR9KARJDQ26944T2TMK", "-")
	if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--alias") {
		t.Errorf("add --alias of an ID's form: %+v; want a usage error naming --alias", r)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "spool")); len(entries) != 0 {
		t.Errorf("spool holds %d files", len(entries))
	}
}

// TestRunJSONErrors: with --json, a command that does not start is told
// as the JSON error line on stderr (as every --json command's errors are),
// and memex still exits 127, the shell's status for it.
func TestRunJSONErrors(t *testing.T) {
	home := t.TempDir()
	missing := filepath.Join(t.TempDir(), "no-such-command")
	r := run(t, home, nil, "run", "--json", "--", missing)
	var got struct{ Error, Code string }
	if r.code != 127 || r.stdout != "" || strings.Count(r.stderr, "\n") != 1 || json.Unmarshal([]byte(r.stderr), &got) != nil ||
		!strings.Contains(got.Error, missing) || got.Code != "not_found" {
		t.Errorf("run --json of a missing command: %+v", r)
	}
	if r := run(t, home, nil, "run", "--", missing); r.code != 127 || !strings.HasPrefix(r.stderr, "memex: run: ") || !strings.Contains(r.stderr, missing) {
		t.Errorf("run of a missing command: %+v", r)
	}
}
