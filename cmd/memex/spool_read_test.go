package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/spool"
	"github.com/memex-archive/memex/internal/testutil"
)

// spoolHook spools a Bash call as memex-hook does without a server
// (hosts.ToolEntry, then spool.Hook), and starts no drain.
func spoolHook(t *testing.T, home, session, toolUse, stdout string) {
	t.Helper()
	resp, _ := json.Marshal(map[string]any{"stdout": stdout, "stderr": ""})
	e, body := hosts.ToolEntry("claude-code", hosts.HookInput{
		SessionID: session, ToolName: "Bash", ToolUseID: toolUse,
		ToolInput: json.RawMessage(`{"command":"make check"}`), ToolResponse: resp,
	})
	if _, err := spool.Hook(home, spool.Item{Entry: &e, Content: body}); err != nil {
		t.Fatal(err)
	}
}

// A read right after a hook finds the call the hook spooled, though no
// drain ran: a command that reads archives the spool first when it can
// take the store.
func TestReadsSeeWhatHooksSpooled(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("first"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	spoolHook(t, home, "sess-spooled", "toolu_show", "quartz marker one\n")
	if r := run(t, home, nil, "show", "toolu_show"); r.code != 0 || r.stdout != "quartz marker one\n" {
		t.Fatalf("show right after a spooling hook: %+v", r)
	}
	spoolHook(t, home, "sess-spooled", "toolu_deref", "quartz marker two\n")
	if r := run(t, home, nil, "deref", "toolu_deref"); r.code != 0 || !strings.Contains(r.stdout, "quartz marker two") {
		t.Fatalf("deref right after a spooling hook: %+v", r)
	}
	spoolHook(t, home, "sess-other", "toolu_sessions", "quartz marker three\n")
	if r := run(t, home, nil, "sessions", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"sess-other"`) {
		t.Fatalf("sessions right after a spooling hook: %+v", r)
	}
	spoolHook(t, home, "sess-other", "toolu_context", "quartz marker four\n")
	if r := run(t, home, nil, "context", "--session", "sess-other"); r.code != 0 || strings.Count(r.stdout, "make check") != 2 {
		t.Fatalf("context right after a spooling hook: %+v", r)
	}
	spoolHook(t, home, "sess-other", "toolu_search", "quartz marker five\n")
	if r := run(t, home, nil, "search", "five", "--json"); r.code != 0 || !strings.Contains(r.stdout, "quartz marker five") {
		t.Fatalf("search right after a spooling hook: %+v", r)
	}
	if left, _ := spool.Leftover(home); len(left) != 0 {
		t.Fatalf("left in the spool: %v", left)
	}
}

// A reader that cannot write (a read-only view of the home) reads what
// is archived, and leaves the spool for the next process that can.
func TestReadOnlyReadLeavesTheSpool(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("first"), "add", "--alias", "first", "-"); r.code != 0 {
		t.Fatal(r)
	}
	spoolHook(t, home, "sess-ro", "toolu_ro", "quartz marker ro\n")
	ro := testutil.ReadOnlyView(t, home)
	if r := run(t, ro, nil, "show", "first"); r.code != 0 || r.stdout != "first" {
		t.Fatalf("show on a read-only home with a spool: %+v", r)
	}
	if r := run(t, ro, nil, "show", "toolu_ro"); r.code != 1 {
		t.Fatalf("show of a spooled call on a read-only home: %+v", r)
	}
	if left, _ := spool.Leftover(home); len(left) != 1 || filepath.Dir(left[0]) != filepath.Join(home, "spool") {
		t.Fatalf("spool after a read-only read: %v", left)
	}
	if r := run(t, home, nil, "show", "toolu_ro"); r.code != 0 || r.stdout != "quartz marker ro\n" {
		t.Fatalf("show once the home is writable: %+v", r)
	}
}
