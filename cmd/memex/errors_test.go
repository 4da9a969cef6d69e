package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// TestErrorsReadAsTheirSentence: an error that carries its sentence (a
// *memex.Error) reaches the user in its own words, whatever the layers on
// the way out wrapped it in, in text and in --json (the hint on its own
// there); other errors keep every word.
func TestErrorsReadAsTheirSentence(t *testing.T) {
	nf := memex.Errorf(memex.ErrNotFound, "session %q: not found", "nosuch").WithHint("memex sessions lists them")
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("deref: context: %w", fmt.Errorf("archive: %w", nf)), `session "nosuch": not found; memex sessions lists them`},
		{fmt.Errorf("deref: show: %w", memex.Errorf(memex.ErrNotFound, "%s: not found", "X")), "X: not found"},
		// What a client rebuilt from a server's answer reads the same.
		{&memex.Error{Kind: memex.ErrNotFound, What: `session "nosuch": not found`, Hint: "memex sessions lists them"}, `session "nosuch": not found; memex sessions lists them`},
		{fmt.Errorf("archive: get %s: %w", "01J", errors.New("checksum mismatch")), "archive: get 01J: checksum mismatch"},
		{fmt.Errorf("search: %w", context.Canceled), "interrupted"},
	} {
		if got := userMessage(c.err); got != c.want {
			t.Errorf("%q: %q, want %q", c.err, got, c.want)
		}
	}
	var stderr strings.Builder
	if code := printJSONError(fmt.Errorf("replay: %w", nf), &stderr); code != exitFailure ||
		stderr.String() != `{"error":"session \"nosuch\": not found","code":"not_found","hint":"memex sessions lists them"}`+"\n" {
		t.Errorf("--json: exit %d, %s", code, stderr.String())
	}
}

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
		if r.code != exitFailure || r.stderr != c.want+"\n" {
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
		if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 || json.Unmarshal([]byte(r.stderr), &got) != nil ||
			got.Code != "usage" || got.Error == "" {
			t.Errorf("%v: %+v", args, r)
		}
	}
	for _, args := range [][]string{{"search", "x", "--limit", "many"}, {"run", "--no-such-flag", "--", "echo", "--json"}} {
		if r := run(t, home, nil, args...); r.code != exitUsage || !strings.HasPrefix(r.stderr, "memex: ") {
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
		if r.code != exitFailure || json.Unmarshal([]byte(r.stderr), &got) != nil ||
			got.Code != "not_found" || !strings.Contains(got.Error, "no-such-file.txt: no such file or directory") {
			t.Errorf("%v: %+v", args, r)
		}
	}
}
