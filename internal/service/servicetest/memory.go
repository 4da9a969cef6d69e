package servicetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/memory"
)

// MemoryFactory returns a Service over a new, empty archive and the
// Memory over the same archive. The Memory's checkout of a directory names
// the project "p" (CheckoutOf); the Service distils the runs it adds.
type MemoryFactory func(t *testing.T) (api.Service, api.Memory)

// CheckoutOf is the checkout the Memories under test give a directory:
// dir itself, of the project "p".
func CheckoutOf(dir string) *deref.Checkout { return deref.NewCheckout(dir, "p") }

// RunMemory runs the memory tests of the suite: handoff, stale,
// procedures, hints, lessons and distill answer the same locally and
// served (memex lessons and distill could not be served at all).
func RunMemory(t *testing.T, new MemoryFactory) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, api.Service, api.Memory)
	}{
		{"HandoffOfAProject", testHandoff},
		{"HandoffProjectOfTheCheckout", testHandoffCheckout},
		{"HandoffUnknownIsNotFound", testHandoffUnknown},
		{"StaleAgainstTheNamedCheckout", testStale},
		{"StaleNegativeLimitIsInvalid", testStaleLimit},
		{"ProceduresOfAFamily", testProcedures},
		{"LessonsAndHint", testLessonsAndHint},
		{"LessonsNegativeLimitIsInvalid", testLessonsLimit},
		{"UnknownStatusOrFamilyIsInvalid", testUnknownStatusOrFamily},
		{"DistillEverySession", testDistill},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, m := new(t)
			tc.fn(t, s, m)
		})
	}
}

func testHandoff(t *testing.T, s api.Service, m api.Memory) {
	fill(t, s)
	c, err := m.Handoff(context.Background(), api.HandoffRequest{Project: "p"})
	if err != nil || c.Project != "p" || c.Sessions != 2 || !strings.Contains(c.Text, "p") || c.Used > c.Budget {
		t.Fatalf("handoff: %+v, %v", c, err)
	}
	c, err = m.Handoff(context.Background(), api.HandoffRequest{Project: "p", Exclude: "plain", Budget: 400})
	if err != nil || c.Sessions != 1 || c.Budget != 400 {
		t.Fatalf("handoff leaving out plain: %+v, %v", c, err)
	}
}

func testHandoffCheckout(t *testing.T, s api.Service, m api.Memory) {
	fill(t, s)
	c, err := m.Handoff(context.Background(), api.HandoffRequest{Checkout: t.TempDir()})
	if err != nil || c.Project != "p" || c.Sessions != 2 {
		t.Fatalf("handoff of the checkout's project: %+v, %v", c, err)
	}
}

func testHandoffUnknown(t *testing.T, s api.Service, m api.Memory) {
	fill(t, s)
	_, err := m.Handoff(context.Background(), api.HandoffRequest{Project: "nosuch"})
	wantKind(t, err, memex.ErrNotFound, "nosuch")
}

func testStale(t *testing.T, s api.Service, m api.Memory) {
	ctx := context.Background()
	dir := t.TempDir()
	const before = "package auth\n\nfunc Refresh() error {\n\treturn nil\n}\n"
	file := filepath.Join(dir, "auth", "token.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	read := add(t, s, memex.Entry{Project: "p", Session: "s1", Agent: "codex", Kind: memex.KindTool, Tool: "exec_command",
		Input: "cat auth/token.go", Exit: memex.IntPtr(0)}, before)
	res, err := m.Stale(ctx, api.StaleRequest{Project: "p", Checkout: dir})
	if err != nil || res.Project != "p" || res.Checked != 1 || len(res.Items) != 0 {
		t.Fatalf("stale before the change: %+v, %v", res, err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(before, "nil", "retry()", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = m.Stale(ctx, api.StaleRequest{Checkout: dir})
	if err != nil || len(res.Items) != 1 || res.Items[0].ID != read.ID.String() || res.Items[0].Mark != deref.MarkChanged {
		t.Fatalf("stale after the change: %+v, %v", res, err)
	}
	// The memories of another project are not checked against this
	// checkout's files: every one of them would read "gone".
	add(t, s, memex.Entry{Project: "q", Session: "s2", Agent: "codex", Kind: memex.KindTool, Tool: "exec_command",
		Input: "cat lib/other.go", Exit: memex.IntPtr(0)}, "package lib\n")
	res, err = m.Stale(ctx, api.StaleRequest{Project: "q", Checkout: dir})
	wantKind(t, err, memex.ErrInvalid, "a checkout of p, not of q")
}

// runs adds, through s, the runs of cmd in session, a second apart after
// at, each with its exit status; it returns their IDs.
func runs(t *testing.T, s api.Service, at *time.Time, session, cmd string, exits ...int) []memex.ID {
	t.Helper()
	var ids []memex.ID
	for _, x := range exits {
		*at = at.Add(time.Second)
		out := "ok\n"
		if x != 0 {
			out = "--- FAIL: TestRefresh\n    token_test.go:12: token expired\nFAIL\n"
		}
		e := add(t, s, memex.Entry{Project: "p", Session: session, Agent: "claude-code", Kind: memex.KindTool, Tool: "Bash",
			Input: cmd, Exit: memex.IntPtr(x), Created: *at}, out)
		ids = append(ids, e.ID)
	}
	return ids
}

func testProcedures(t *testing.T, s api.Service, m api.Memory) {
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	runs(t, s, &at, "s1", "go test ./...", 0, 0)
	runs(t, s, &at, "s2", "go test ./...", 0)
	ctx := context.Background()
	res, err := m.Procedures(ctx, api.ProceduresRequest{Project: "p", Family: "test"})
	if err != nil || res.Project != "p" || len(res.Procedures) != 1 || res.Procedures[0].Family != "test" || res.Runs != 3 {
		t.Fatalf("procedures: %+v, %v", res, err)
	}
	res, err = m.Procedures(ctx, api.ProceduresRequest{Project: "p", Family: "build"})
	if err != nil || res.Project != "p" || len(res.Procedures) != 0 {
		t.Fatalf("build procedures: %+v, %v", res, err)
	}
}

func testLessonsAndHint(t *testing.T, s api.Service, m api.Memory) {
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	first := runs(t, s, &at, "s1", "go test ./auth", 1)[0]
	at = at.Add(time.Second)
	add(t, s, memex.Entry{Project: "p", Session: "s1", Agent: "claude-code", Kind: memex.KindTool, Tool: "Edit",
		Input: `{"file_path":"auth/token.go"}`, Created: at}, "")
	pass := runs(t, s, &at, "s1", "go test ./auth", 0)[0]
	items, err := m.Lessons(ctx, api.LessonsRequest{Project: "p"})
	if err != nil || len(items) != 1 || items[0].Status != memory.StatusFixed || items[0].Cites[0] != first.String() {
		t.Fatalf("lessons: %+v, %v", items, err)
	}
	if items, err := m.Lessons(ctx, api.LessonsRequest{Project: "p", Status: memory.StatusAbandoned}); err != nil || len(items) != 0 {
		t.Fatalf("abandoned lessons: %+v, %v", items, err)
	}
	again := runs(t, s, &at, "s2", "go test ./auth", 1)[0]
	text, err := m.Hint(ctx, api.HintRequest{Ref: again.String()})
	if err != nil || !strings.Contains(text, "failed the same way before") || !strings.Contains(text, items[0].ID) {
		t.Fatalf("hint: %q, %v", text, err)
	}
	_, err = m.Hint(ctx, api.HintRequest{Ref: pass.String()})
	wantKind(t, err, memex.ErrNotFound, "no failed run")
	_, err = m.Hint(ctx, api.HintRequest{Ref: "nosuch"})
	wantKind(t, err, memex.ErrNotFound, "nosuch")
}

func testLessonsLimit(t *testing.T, s api.Service, m api.Memory) {
	_, err := m.Lessons(context.Background(), api.LessonsRequest{Limit: -1})
	wantKind(t, err, memex.ErrInvalid, "limit")
	// In the Service's words on every path: the server once refused it
	// first, in words of its own.
	if got, want := memex.Sentence(err), "lessons: limit -1: want 0 (all) or more"; got != want {
		t.Fatalf("lessons limit -1: %q, want %q", got, want)
	}
}

// An unknown lesson status or procedure family is refused, naming the
// ones there are, not answered with an empty list.
func testUnknownStatusOrFamily(t *testing.T, s api.Service, m api.Memory) {
	ctx := context.Background()
	_, err := m.Lessons(ctx, api.LessonsRequest{Project: "p", Status: "fix"})
	wantKind(t, err, memex.ErrInvalid, "fixed, reverted, abandoned")
	_, err = m.Procedures(ctx, api.ProceduresRequest{Project: "p", Family: "tests"})
	wantKind(t, err, memex.ErrInvalid, "test, build, lint, typecheck, format, serve, install")
}

func testStaleLimit(t *testing.T, s api.Service, m api.Memory) {
	_, err := m.Stale(context.Background(), api.StaleRequest{Limit: -1, Checkout: t.TempDir()})
	wantKind(t, err, memex.ErrInvalid, "limit")
	// The Service judges the limit; the server once refused it first, in
	// words of its own, and the Service did not check it at all.
	if got, want := memex.Sentence(err), "stale: limit -1: want 0 (all) or more"; got != want {
		t.Fatalf("stale limit -1: %q, want %q", got, want)
	}
}

func testDistill(t *testing.T, s api.Service, m api.Memory) {
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	runs(t, s, &at, "s1", "go test ./auth", 1, 0)
	runs(t, s, &at, "s2", "go vet ./...", 0)
	rep, err := m.Distill(ctx, api.DistillRequest{})
	// The lesson of s1 was distilled when its runs were added: distilling
	// again keeps it.
	if err != nil || rep.Sessions != 2 || rep.Lessons != 1 || rep.Kept != 1 || rep.Added != 0 || len(rep.Removed) != 0 || rep.Runs != 3 {
		t.Fatalf("distill: %+v, %v", rep, err)
	}
	if rep, err := m.Distill(ctx, api.DistillRequest{Project: "q"}); err != nil || rep.Sessions != 0 || rep.Lessons != 0 {
		t.Fatalf("distill of project q: %+v, %v", rep, err)
	}
	// Every field the help lists is there, removed too when none was.
	if b, err := json.Marshal(rep); err != nil || !strings.Contains(string(b), `"removed":[]`) {
		t.Fatalf("distill JSON: %s, %v", b, err)
	}
	if items, err := m.Lessons(ctx, api.LessonsRequest{Project: "p"}); err != nil || len(items) != 1 {
		t.Fatalf("lessons after distill: %+v, %v", items, err)
	}
}
