package main

import (
	"strings"
	"testing"
)

// TestRepeatedAliasNamesTheNewestEntry: `add --alias x` twice used to
// leave x naming two entries ("ambiguous alias", with advice to add
// --project, which could not help). The alias moves to the newer entry;
// the older one stays readable by its ID.
func TestRepeatedAliasNamesTheNewestEntry(t *testing.T) {
	home := t.TempDir()
	first := run(t, home, []byte("a\n"), "add", "--alias", "x", "--project", "p", "-")
	second := run(t, home, []byte("b\n"), "add", "--alias", "x", "--project", "p", "-")
	if first.code != 0 || second.code != 0 {
		t.Fatalf("add: %+v %+v", first, second)
	}
	if r := run(t, home, nil, "show", "x"); r.code != 0 || r.stdout != "b\n" {
		t.Fatalf("show x: %+v, want the newer entry", r)
	}
	if r := run(t, home, nil, "show", strings.TrimSpace(first.stdout)); r.code != 0 || r.stdout != "a\n" {
		t.Fatalf("show the older entry by its ID: %+v", r)
	}
	// Another project's x is another name: the project picks one.
	run(t, home, []byte("c\n"), "add", "--alias", "x", "--project", "q", "-")
	if r := run(t, home, nil, "show", "x"); r.code != 1 || !strings.Contains(r.stderr, "--project") {
		t.Fatalf("show x of two projects: %+v", r)
	}
	if r := run(t, home, nil, "show", "x", "--project", "p"); r.code != 0 || r.stdout != "b\n" {
		t.Fatalf("show x --project p: %+v", r)
	}
	if r := run(t, home, nil, "add", "--help"); !strings.Contains(r.stdout, "moves the alias to the new entry") {
		t.Errorf("add --help does not state the alias rule: %s", r.stdout)
	}
}
