package main

import (
	"strings"
	"testing"

	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/memory"
)

// The --json fields a command's help lists are those of the type it
// prints (cli.JSONShape), every one of them.
func TestHelpListsTheJSONFields(t *testing.T) {
	for cmd, v := range map[string]any{
		"stale":      memory.StaleResult{},
		"handoff":    memory.Capsule{},
		"procedures": memory.ProceduresResult{},
		"lessons":    []memory.LessonItem{},
		"distill":    memory.UpdateReport{},
		"deref":      deref.Result{},
		"context":    deref.ContextResult{},
	} {
		r := run(t, t.TempDir(), nil, cmd, "--help")
		if want := cli.JSONHelp(v); r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("memex %s --help: want\n%s\nin\n%s", cmd, want, r.stdout)
		}
	}
	// stale's evidence says how far the lines moved.
	if r := run(t, t.TempDir(), nil, "stale", "--help"); !strings.Contains(r.stdout, `"moved"`) {
		t.Errorf("stale --help lists no \"moved\":\n%s", r.stdout)
	}
}

// TestHelpOfAnUnknownCommand: memex help NAME for a command that does not
// exist is a usage error (exit 2, on stderr), as memex NAME is; help of a
// command prints its help.
func TestHelpOfAnUnknownCommand(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, nil, "help", "shwo"); r.code != cli.ExitUsage || r.stdout != "" || !strings.Contains(r.stderr, `unknown command "shwo"`) {
		t.Errorf("memex help shwo: %+v", r)
	}
	if r := run(t, home, nil, "help", "eval", "nosuch"); r.code != cli.ExitUsage || !strings.Contains(r.stderr, `unknown command "nosuch" for "memex eval"`) {
		t.Errorf("memex help eval nosuch: %+v", r)
	}
	if r := run(t, home, nil, "help", "show"); r.code != 0 || !strings.Contains(r.stdout, "Print the exact content of an entry") {
		t.Errorf("memex help show: %+v", r)
	}
	if r := run(t, home, nil, "help"); r.code != 0 || !strings.Contains(r.stdout, "Available Commands") {
		t.Errorf("memex help: %+v", r)
	}
}
