package service_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/internal/spool"
	"github.com/memex-archive/memex/internal/testutil"
)

// hooked is a tool call as a hook captures it, under its key.
func hooked(id string) (memex.Entry, []byte) {
	return hosts.ToolEntry("claude-code", hosts.HookInput{SessionID: "s", ToolName: "Bash", ToolUseID: id,
		ToolInput: []byte(`{"command":"echo hi"}`), ToolResponse: []byte(`{"stdout":"hi\n","stderr":""}`)})
}

func TestCaptureArchivesACallOnce(t *testing.T) {
	ctx := context.Background()
	h := open(t, t.TempDir(), true)
	defer h.Close()
	svc := service.New(h, service.Options{})
	e, body := hooked("toolu_1")
	got, err := service.Capture(ctx, svc, e, body)
	if err != nil || got.ID.IsZero() {
		t.Fatalf("capture: %+v, %v", got, err)
	}
	e2, body2 := hooked("toolu_1") // the same call again: a new ID, the same key
	again, err := service.Capture(ctx, svc, e2, body2)
	if err != nil || !again.ID.IsZero() {
		t.Fatalf("capture again: %+v, %v", again, err)
	}
	st, _ := svc.Stats(ctx)
	if st.Entries != 1 {
		t.Fatalf("%d entries, want 1", st.Entries)
	}
}

// A spooled item is archived as it was spooled, once: the write policy was
// applied before it reached the disk, or the item was asked to be kept as
// it is (memex run --no-redact). A call archived already under its key is
// not archived again.
func TestDrainSpoolThroughTheService(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	e, body := hooked("toolu_spooled")
	e.Attrs["note"] = "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	if _, err := spool.Write(dir, spool.Item{Entry: &e, Content: body}); err != nil {
		t.Fatal(err)
	}
	dup, dupBody := hooked("toolu_done")
	if _, err := spool.Write(dir, spool.Item{Entry: &dup, Content: dupBody}); err != nil {
		t.Fatal(err)
	}
	h := open(t, dir, true)
	defer h.Close()
	svc := service.New(h, service.Options{})
	done, doneBody := hooked("toolu_done")
	done.ID = memex.NewID(time.Now())
	if _, err := service.Capture(ctx, svc, done, doneBody); err != nil {
		t.Fatal(err)
	}
	for range 2 { // a second drain finds nothing to do
		if err := service.DrainSpool(ctx, h, service.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := svc.Entry(ctx, e.ID.String(), "")
	if err != nil || got.Attrs["note"] != e.Attrs["note"] || got.Redacted != 0 {
		t.Fatalf("drained entry %+v, %v", got, err)
	}
	st, _ := svc.Stats(ctx)
	if st.Entries != 2 {
		t.Fatalf("%d entries, want 2 (the spooled call, the one archived before)", st.Entries)
	}
	if left, _ := spool.List(dir); len(left) != 0 {
		t.Fatalf("spool left %+v", left)
	}
}

// A spooled import of a Claude Code transcript (a Stop the busy store
// could not take) imports its subagents' transcripts with it, as the hook
// would have.
func TestDrainSpoolImportsTheSessionsSubagents(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	proj := filepath.Join(testutil.Corpora(t), "claude-code", "projects", "-experiments-worktrees")
	subagents, _ := filepath.Glob(filepath.Join(proj, "ef958aa1-0e93-49f0-bb71-150f63befcd1", "subagents", "agent-*.jsonl"))
	item := spool.Item{Ingest: filepath.Join(proj, "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"), Format: "claude-code"}
	if _, err := spool.Write(dir, item); err != nil {
		t.Fatal(err)
	}
	h := open(t, dir, true)
	defer h.Close()
	if err := service.DrainSpool(ctx, h, service.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := service.New(h, service.Options{}).Sessions(ctx, api.SessionFilter{})
	if err != nil || len(subagents) == 0 || len(got) != 1+len(subagents) {
		t.Fatalf("%d sessions, %v; want the main one and %d subagents", len(got), err, len(subagents))
	}
}

// OpenHome archives what was spooled before a writer or a reader uses
// the store, when the store is free to take.
func TestOpenHomeDrainsForReadersAndWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open(t, dir, true).Close() // a store to read
	for n, shared := range []bool{true, false} {
		e, body := hooked(fmt.Sprintf("toolu_waiting_%d", n))
		if _, err := spool.Write(dir, spool.Item{Entry: &e, Content: body}); err != nil {
			t.Fatal(err)
		}
		h, err := service.OpenHome(ctx, dir, home.Options{Shared: shared}, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		left, _ := spool.List(dir)
		st, _ := service.New(h, service.Options{}).Stats(ctx)
		h.Close()
		if len(left) != 0 || st.Entries != int64(n+1) {
			t.Errorf("shared %v: %d spooled, %d entries; want the item archived", shared, len(left), st.Entries)
		}
	}
}

// spoolEntry spools a note as a hook spools its call, and returns its ID.
func spoolEntry(t *testing.T, dir, text string) memex.ID {
	t.Helper()
	now := time.Now()
	e := memex.Entry{ID: memex.NewID(now), Created: now, Project: "p", Session: "s", Agent: "cli", Kind: memex.KindNote}
	if _, err := spool.Write(dir, spool.Item{Entry: &e, Content: []byte(text)}); err != nil {
		t.Fatal(err)
	}
	return e.ID
}

// A call of memex mcp (LockedHome) reads what hooks spooled since the
// last write, whether it reads or writes.
func TestLockedHomeReadsTheSpool(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l := service.LockedHome(dir, time.Second, "memex mcp", service.Options{})
	if _, err := l.Add(ctx, api.AddRequest{Entry: memex.Entry{Project: "p", Session: "s", Agent: "cli", Kind: memex.KindNote}, Body: strings.NewReader("a note\n")}); err != nil {
		t.Fatal(err)
	}
	id := spoolEntry(t, dir, "spooled for a read\n")
	if got, err := l.Entry(ctx, id.String(), ""); err != nil || got.ID != id {
		t.Fatalf("entry spooled before a read: %+v, %v", got, err)
	}
	id = spoolEntry(t, dir, "spooled for a zircon search\n")
	res, err := l.Search(ctx, api.Query{Text: "zircon", Limit: 5})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != id {
		t.Fatalf("search after a spooled entry: %+v, %v", res, err)
	}
	if spool.Pending(dir) {
		t.Fatal("the spool still holds work")
	}
}

// A reader that cannot take the store for writing (another reader holds
// it past the wait) reads what is archived and leaves the spool.
func TestOpenHomeReadsAsIsWhenTheStoreIsTaken(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, err := home.Open(ctx, dir, home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	id := spoolEntry(t, dir, "waits for a writer\n")
	other, err := home.Open(ctx, dir, home.Options{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	h, err := service.OpenHome(ctx, dir, home.Options{Shared: true, Wait: 10 * time.Millisecond}, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := h.Store.Get(ctx, id); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("get of a spooled entry while the store is taken: %v", err)
	}
	if !spool.Pending(dir) {
		t.Fatal("the spool was emptied without its entry archived")
	}
}
