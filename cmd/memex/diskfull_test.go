package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// TestFullDisk fills a small file system under the home: reads go on, an
// add fails with one line and exit 1, a hook exits 0 with its call spooled
// (or, with no room even for that, dropped with a line), and once space is
// freed writes go on with nothing acknowledged lost.
func TestFullDisk(t *testing.T) {
	disk := testutil.Tmpfs(t, 128<<20)
	home := filepath.Join(disk, "home")
	var ids []string
	for i := range 5 {
		r := run(t, home, []byte(strings.Repeat("acknowledged line\n", i+1)), "add", "-", "--alias", "k"+string(rune('a'+i)))
		if r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
		ids = append(ids, strings.TrimSpace(r.stdout))
	}
	if r := run(t, home, nil, "search", "acknowledged"); r.code != 0 {
		t.Fatalf("search: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(home, "ballast")); err != nil {
		t.Fatalf("no ballast kept: %v", err)
	}
	post := func(id string) result {
		return hookRun(t, home, "PostToolUse", map[string]any{"hook_event_name": "PostToolUse", "session_id": "full",
			"cwd": home, "tool_name": "Bash", "tool_input": map[string]string{"command": "echo"}, "tool_use_id": id,
			"tool_response": map[string]any{"stdout": "output of " + id + "\n", "stderr": "", "interrupted": false}})
	}

	// Room for a spooled call, not for the store.
	fill := testutil.FillTo(t, disk, 1<<20)
	for i, id := range ids {
		if r := run(t, home, nil, "show", id); r.code != 0 || r.stdout != strings.Repeat("acknowledged line\n", i+1) {
			t.Fatalf("show on a full disk: %+v", r)
		}
	}
	if r := run(t, home, nil, "search", "acknowledged"); r.code != 0 || !strings.Contains(r.stdout, ids[4]) {
		t.Fatalf("search on a full disk: %+v", r)
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Fatalf("verify on a full disk: %+v", r)
	}
	r := run(t, home, []byte("refused\n"), "add", "-")
	if r.code != 1 || !strings.Contains(r.stderr, "disk full") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || strings.Contains(r.stderr, "goroutine") {
		t.Fatalf("add on a full disk: want one disk-full line and exit 1, got %+v", r)
	}
	if r := post("toolu_spooled"); !strings.Contains(r.stderr, "spooled") {
		t.Fatalf("hook on a full disk: %+v", r)
	}
	if spooled, _ := filepath.Glob(filepath.Join(home, "spool", "*.json")); len(spooled) != 1 {
		t.Fatalf("spool holds %v", spooled)
	}

	// No room at all: the call is dropped, said in a line.
	testutil.FillUp(t, disk)
	if r := post("toolu_dropped"); !strings.Contains(r.stderr, "dropped") || strings.Contains(r.stderr, "goroutine") {
		t.Fatalf("hook on a disk with no room: %+v", r)
	}

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	r = run(t, home, []byte("after the disk was freed\n"), "add", "-")
	if r.code != 0 {
		t.Fatalf("add after freeing space: %+v", r)
	}
	ids = append(ids, strings.TrimSpace(r.stdout))
	for _, id := range append(ids, "toolu_spooled") {
		if r := run(t, home, nil, "show", id); r.code != 0 {
			t.Fatalf("show %s after freeing space: %+v", id, r)
		}
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Fatalf("verify after: %+v", r)
	}
}
