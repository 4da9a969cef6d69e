package service_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/memory"
)

// A run added through Distilling brings its session's lessons up to date
// at once, without an import of its transcript.
func TestDistillingAddsTheLessonOfARun(t *testing.T) {
	ctx := context.Background()
	h := open(t, t.TempDir(), true)
	defer h.Close()
	svc := service.Distilling(service.New(h, service.Options{}), h.Store, nil)
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	add := func(e memex.Entry, body string) {
		t.Helper()
		at = at.Add(time.Second)
		e.Project, e.Session, e.Agent, e.Created = "p", "s1", "claude-code", at
		if _, err := svc.Add(ctx, api.AddRequest{Entry: e, Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	lessons := func() []memory.LessonItem {
		t.Helper()
		items, err := memory.ListLessons(ctx, h.Store, memory.LessonFilter{Project: "p"})
		if err != nil {
			t.Fatal(err)
		}
		return items
	}
	add(memex.Entry{Kind: memex.KindTool, Tool: "Bash", Input: "go test ./auth", Exit: memex.IntPtr(1),
		Summary: "Bash: go test ./auth · exit 1 · FAIL TestRefresh"}, "--- FAIL: TestRefresh\n")
	add(memex.Entry{Kind: memex.KindTool, Tool: "Edit", Input: `{"file_path":"auth/token.go"}`,
		Summary: "Edit: auth/token.go · edited auth/token.go: +1 -1 lines"}, "")
	add(memex.Entry{Kind: memex.KindTool, Tool: "Bash", Input: "go test ./auth", Exit: memex.IntPtr(0),
		Summary: "Bash: go test ./auth · exit 0 · ok"}, "ok\n")
	if got := lessons(); len(got) != 1 || got[0].Status != memory.StatusFixed {
		t.Fatalf("after the pass: %+v", got)
	}
}

// DistillAll distils what was archived without distillation (an archive
// older than lessons), of one project or all.
func TestDistillAll(t *testing.T) {
	ctx := context.Background()
	h := open(t, t.TempDir(), true)
	defer h.Close()
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, e := range []memex.Entry{
		{Kind: memex.KindTool, Tool: "Bash", Input: "go test ./auth", Exit: memex.IntPtr(1)},
		{Kind: memex.KindTool, Tool: "Edit", Input: `{"file_path":"auth/token.go"}`},
		{Kind: memex.KindTool, Tool: "Bash", Input: "go test ./auth", Exit: memex.IntPtr(0)},
	} {
		at = at.Add(time.Second)
		e.Project, e.Session, e.Agent, e.Created = "p", "s1", "claude-code", at
		if _, err := h.Store.Add(ctx, e, strings.NewReader("out\n")); err != nil { // the store itself: no distillation
			t.Fatal(err)
		}
	}
	ix, err := h.Index()
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := service.DistillAll(ctx, h.Store, ix, "other"); err != nil || rep.Sessions != 0 || rep.Added != 0 {
		t.Fatalf("other project: %+v %v", rep, err)
	}
	rep, err := service.DistillAll(ctx, h.Store, ix, "")
	if err != nil || rep.Sessions != 1 || rep.Added != 1 {
		t.Fatalf("all: %+v %v", rep, err)
	}
	res, err := service.New(h, service.Options{}).Search(ctx, api.Query{Text: "go test", Kind: string(memory.KindLesson)})
	if err != nil || len(res.Hits) != 1 {
		t.Fatalf("the lesson is not indexed: %+v %v", res, err)
	}
}
