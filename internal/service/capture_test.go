package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/internal/spool"
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

// OpenHome archives what was spooled when it opens for writing, and only
// then: a reader writes nothing.
func TestOpenHomeDrainsForWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open(t, dir, true).Close() // a store to read
	e, body := hooked("toolu_waiting")
	if _, err := spool.Write(dir, spool.Item{Entry: &e, Content: body}); err != nil {
		t.Fatal(err)
	}
	for _, shared := range []bool{true, false} {
		h, err := service.OpenHome(ctx, dir, home.Options{Shared: shared}, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		left, _ := spool.List(dir)
		st, _ := service.New(h, service.Options{}).Stats(ctx)
		h.Close()
		if want := 1; shared && (len(left) != want || st.Entries != 0) {
			t.Errorf("a reader: %d spooled, %d entries; want the item left", len(left), st.Entries)
		}
		if !shared && (len(left) != 0 || st.Entries != 1) {
			t.Errorf("a writer: %d spooled, %d entries; want the item archived", len(left), st.Entries)
		}
	}
}
