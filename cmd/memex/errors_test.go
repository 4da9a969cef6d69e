package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// TestNotFoundReadsAsOneSentence: a not-found error reaches the user as
// what is missing, without the chain of package and operation prefixes;
// other errors keep every word.
func TestNotFoundReadsAsOneSentence(t *testing.T) {
	wrap := func(format string, args ...any) error { return fmt.Errorf(format, args...) }
	nf := memex.ErrNotFound
	for _, c := range []struct {
		err  error
		want string
	}{
		{wrap("deref: context: %w", wrap("archive: session %q: %w", "nosuch", nf)), `session "nosuch": not found`},
		{wrap("deref: show %s: %w", "X", wrap("archive: %s: %w", "X", nf)), "X: not found"},
		{wrap("deref: context: no entries for project %s: %w", "/src/api", nf), "no entries for project /src/api: not found"},
		{wrap("archive: get %s: %w", "01JD8X3N6Q4W0G2Y7T5R9KZC1M", nf), "get 01JD8X3N6Q4W0G2Y7T5R9KZC1M: not found"},
		// A reference that is itself one lowercase word is kept.
		{wrap("archive: %s: %w", "zzz", nf), "zzz: not found"},
		{wrap("deref: show %s: %w", "zzz", wrap("archive: %s: %w", "zzz", nf)), "zzz: not found"},
		// Words an outer layer adds beyond an operation's name stay.
		{wrap("ingest: entries archived, indexing failed (the next search retries): %w", wrap("index: entry %s: %w", "01J", nf)),
			"entries archived, indexing failed (the next search retries): entry 01J: not found"},
		// A server's answer holds the sentinel without wrapping a chain.
		{&memex.Error{What: `deref: context: archive: session "s": not found`, Kind: nf}, `session "s": not found`},
		{nf, "not found"},
	} {
		if got := userMessage(c.err); got != c.want {
			t.Errorf("%q: %q, want %q", c.err, got, c.want)
		}
	}
	other := wrap("archive: get %s: %w", "01J", errors.New("checksum mismatch"))
	if got := userMessage(other); got != other.Error() {
		t.Errorf("another error: %q", got)
	}
}

func TestNotFoundOnTheCommandLine(t *testing.T) {
	home := t.TempDir()
	run(t, home, []byte("x\n"), "add", "--session", "s1", "--project", "p")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"context", "--session", "nosuch"}, `memex: session "nosuch": not found`},
		{[]string{"context", "--project", "nosuch"}, "memex: no entries for project nosuch: not found"},
		{[]string{"show", "nosuch", "--budget", "100"}, "memex: nosuch: not found"},
		{[]string{"show", "nosuch"}, "memex: nosuch: not found"},
		{[]string{"replay", "nosuch"}, `memex: session "nosuch": not found`},
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
