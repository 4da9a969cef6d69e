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
