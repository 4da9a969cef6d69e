package testutil

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Repo is a git repository made by a test, with a fixed identity and a
// clock that advances one minute per commit, so that its history is the
// same on every run.
type Repo struct {
	tb    testing.TB
	Dir   string
	clock time.Time
}

// NewRepo makes a repository in a temporary directory, with origin set to
// remote when it is not empty. It skips tb when git is not installed.
func NewRepo(tb testing.TB, remote string) *Repo {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git not installed")
	}
	r := &Repo{tb: tb, Dir: tb.TempDir(), clock: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	r.Git("init", "-q", "-b", "main")
	if remote != "" {
		r.Git("remote", "add", "origin", remote)
	}
	return r
}

// Git runs git in the repository and returns its output; a failure fails
// tb.
func (r *Repo) Git(args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.Dir}, args...)...)
	date := r.clock.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com",
		"GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com",
		"GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Write writes files (path -> content, "" removes the file) in the
// working tree.
func (r *Repo) Write(files map[string]string) {
	r.tb.Helper()
	for p, content := range files {
		full := filepath.Join(r.Dir, p)
		if content == "" {
			if err := os.Remove(full); err != nil {
				r.tb.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
}

// Commit writes files, stages everything and commits it with message,
// one minute after the previous commit; it returns the commit's hash.
func (r *Repo) Commit(message string, files map[string]string) string {
	r.tb.Helper()
	r.Write(files)
	r.clock = r.clock.Add(time.Minute)
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	return strings.TrimSpace(r.Git("rev-parse", "HEAD"))
}

// Tick advances the repository's clock by d (for --since tests).
func (r *Repo) Tick(d time.Duration) { r.clock = r.clock.Add(d) }

// Now is the time the next git command is stamped with.
func (r *Repo) Now() time.Time { return r.clock }

// String names the repository in test messages.
func (r *Repo) String() string { return fmt.Sprintf("repo %s", r.Dir) }
