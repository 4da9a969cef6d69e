package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/cli"
)

func TestNotFoundOnTheCommandLine(t *testing.T) {
	home := t.TempDir()
	run(t, home, []byte("x\n"), "add", "--session", "s1", "--project", "p")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", "--session", "nosuch"}, `memex: session "nosuch": not found; memex sessions lists them`},
		{[]string{"context", "--project", "nosuch"}, "memex: no entries for project nosuch: not found"},
		{[]string{"show", "nosuch", "--budget", "100"}, "memex: nosuch: not found"},
		{[]string{"show", "nosuch"}, "memex: nosuch: not found"},
		{[]string{"replay", "nosuch"}, `memex: session "nosuch": not found; memex sessions lists them`},
		{[]string{"forget", "--project", "nosuch", "--yes"}, "memex: no entries for project nosuch: not found"},
	} {
		r := run(t, home, nil, c.args...)
		if r.code != cli.ExitFailure || r.stderr != c.want+"\n" {
			t.Errorf("memex %s: code %d stderr %q; want 1 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}

// TestUsageErrorsInJSON: with --json, a command line that does not parse
// (an unknown command or flag, a flag's bad value, a wrong argument count)
// fails with the JSON error line too, code "usage", exit 2; without --json,
// or with --json after --, it is text.
func TestUsageErrorsInJSON(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"search", "x", "--limit", "many", "--json"},
		{"search", "--json", "x", "--no-such-flag"},
		{"show", "--json"},
		{"no-such-command", "--json"},
	} {
		r := run(t, home, nil, args...)
		var got struct{ Error, Code string }
		if r.code != cli.ExitUsage || strings.Count(r.stderr, "\n") != 1 || json.Unmarshal([]byte(r.stderr), &got) != nil ||
			got.Code != "usage" || got.Error == "" {
			t.Errorf("%v: %+v", args, r)
		}
	}
	for _, args := range [][]string{{"search", "x", "--limit", "many"}, {"run", "--no-such-flag", "--", "echo", "--json"}} {
		if r := run(t, home, nil, args...); r.code != cli.ExitUsage || !strings.HasPrefix(r.stderr, "memex: ") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// A file the user names that does not exist is not found, not an internal
// failure, and its message stays the open error.
func TestMissingFileIsNotFound(t *testing.T) {
	home := t.TempDir()
	missing := filepath.Join(t.TempDir(), "no-such-file.txt")
	for _, args := range [][]string{{"add", missing, "--json"}, {"tokens", missing, "--json"}} {
		r := run(t, home, nil, args...)
		var got struct{ Error, Code string }
		if r.code != cli.ExitFailure || json.Unmarshal([]byte(r.stderr), &got) != nil ||
			got.Code != "not_found" || !strings.Contains(got.Error, "no-such-file.txt: no such file or directory") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}

// TestShowFlagErrorsSayWhatIsWrong: a bad --lines or --budget is a usage
// error that says what is wrong with it, not only what is wanted.
func TestShowFlagErrorsSayWhatIsWrong(t *testing.T) {
	home := t.TempDir()
	id := strings.TrimSpace(run(t, home, []byte("a\nb\nc\n"), "add").stdout)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lines", "5:3"}, `memex: --lines: line range "5:3": line 3 comes before line 5; want A:B (1-based, inclusive), A: or A`},
		{[]string{"--lines", "0:2"}, `memex: --lines: line range "0:2": lines count from 1; want A:B (1-based, inclusive), A: or A`},
		{[]string{"--lines", "a:b"}, `memex: --lines: line range "a:b": "a" is not a line number; want A:B (1-based, inclusive), A: or A`},
		{[]string{"--lines", "2:x"}, `memex: --lines: line range "2:x": "x" is not a line number; want A:B (1-based, inclusive), A: or A`},
		{[]string{"--budget", "-1"}, `memex: --budget -1: want a positive number of tokens (0: no bound)`},
		{[]string{"--budget", "5", "--lines", "1:2"}, `memex: --budget and --lines do not combine: give one of them`},
	} {
		r := run(t, home, nil, append([]string{"show", id}, c.args...)...)
		if r.code != cli.ExitUsage || r.stderr != c.want+"\n" {
			t.Errorf("memex show ID %s: code %d stderr %q; want 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, c.want)
		}
	}
}

// TestContextBudgetTooSmall: a --budget below the context's header is one
// sentence that names the least budget, as deref's and show's are.
func TestContextBudgetTooSmall(t *testing.T) {
	home := t.TempDir()
	run(t, home, []byte("x\n"), "add", "--session", "s1", "--project", "p")
	r := run(t, home, nil, "context", "--session", "s1", "--budget", "5")
	want := regexp.MustCompile(`^memex: a budget of 5 tokens is too small for the context's header: need at least \d+\n$`)
	if r.code != cli.ExitFailure || !want.MatchString(r.stderr) {
		t.Errorf("context --budget 5: code %d stderr %q; want 1 and %s", r.code, r.stderr, want)
	}
	r = run(t, home, nil, "context", "--session", "s1", "--budget", "5", "--json")
	var got struct{ Error, Code string }
	if err := json.Unmarshal([]byte(r.stderr), &got); err != nil || got.Code != "budget_too_small" || !strings.HasPrefix(got.Error, "a budget of 5 tokens") {
		t.Errorf("context --budget 5 --json: %q", r.stderr)
	}
}

// TestShowPastTheEnd: a --lines past an entry's last line says how many
// lines it has, in a sentence, for one line too.
func TestShowPastTheEnd(t *testing.T) {
	home := t.TempDir()
	id := strings.TrimSpace(run(t, home, []byte("one line\n"), "add").stdout)
	for _, lines := range []string{"2", "2:9", "5:"} {
		r := run(t, home, nil, "show", id, "--lines", lines)
		want := "memex: line " + strings.SplitN(lines, ":", 2)[0] + " is past the end of " + id + " (1 line)\n"
		if r.code != cli.ExitFailure || r.stderr != want {
			t.Errorf("show --lines %s: code %d stderr %q; want 1 and %q", lines, r.code, r.stderr, want)
		}
	}
}
