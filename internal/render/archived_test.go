package render

import (
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/memory"
)

func TestArchivedAndRedactionNotes(t *testing.T) {
	e := memex.Entry{ID: memex.ID{1}, AgentSummary: "go test ./...", Tokens: 12345, Redacted: 2}
	var b strings.Builder
	Archived(&b, e)
	if want := "memex: " + e.ID.String() + " · " + e.DisplaySummary() + " · 12,345 tokens archived · memex show " + e.ID.String() + "\n"; b.String() != want {
		t.Errorf("Archived: %q, want %q", b.String(), want)
	}
	b.Reset()
	Replaced(&b, 0)
	Redacted(&b, e.ID.String(), 0)
	if b.Len() != 0 {
		t.Errorf("a note for nothing replaced: %q", b.String())
	}
	Replaced(&b, 2)
	if want := "memex: " + memex.RedactedNote(2) + ": replaced with [REDACTED:kind] (--no-redact keeps them)\n"; b.String() != want {
		t.Errorf("Replaced: %q, want %q", b.String(), want)
	}
	b.Reset()
	Redacted(&b, e.ID.String(), e.Redacted)
	if want := "[memex " + e.ID.String() + " · " + memex.RedactedNote(2) + " when archived: each is [REDACTED:kind]]\n"; b.String() != want {
		t.Errorf("Redacted: %q, want %q", b.String(), want)
	}
}

func TestOneLineReports(t *testing.T) {
	var b strings.Builder
	Forgot(&b, api.ForgetResult{Forgotten: 1})
	Distill(&b, memory.UpdateReport{Sessions: 3, Lessons: 4, Added: 1, Kept: 3, Removed: []memex.ID{{2}}, Runs: 7})
	Exported(&b, "AGENTS.md", true)
	Exported(&b, "SKILL.md", false)
	want := "forgot 1 entry\n" +
		"distilled 3 sessions: 4 lessons (1 added, 3 kept, 1 removed), 7 runs for procedures\n" +
		"wrote AGENTS.md\nSKILL.md unchanged\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
