package deref_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// TestContextKeepsLessonsBeforeFailures: when the budget cuts, a lesson is
// kept before the raw failures it sums up.
func TestContextKeepsLessonsBeforeFailures(t *testing.T) {
	s := openStore(t)
	var fails []memex.Entry
	for i := 0; i < 6; i++ {
		e := memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "go test ./calc", Exit: memex.IntPtr(1), Session: "s", Project: "calc",
			Agent: "claude-code", ID: fixedID(500 + i), Created: t0.Add(time.Duration(500+i) * time.Second)}
		fails = append(fails, add(t, s, e, "--- FAIL: TestParse (0.00s)\n    parse_test.go:42: Parse(\"1+2\") = 4, want 3\nFAIL\n"))
	}
	lesson := add(t, s, memex.Entry{Kind: memex.KindLesson, Session: "s", Project: "calc", Agent: "claude-code", ID: fixedID(490),
		Created: t0.Add(490 * time.Second), Input: "go test ./calc",
		Summary: "lesson (abandoned): go test ./calc failed 6 times: FAIL TestParse (" + fails[0].ID.String() + "); abandoned: never passed in the session",
		Attrs:   map[string]string{"status": "abandoned"}}, "lesson")
	r := deref.New(s)
	full, err := r.Context(context.Background(), deref.ContextOptions{Session: "s", Budget: 4000})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Context(context.Background(), deref.ContextOptions{Session: "s", Budget: full.Used / 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Omitted == 0 || !strings.Contains(res.Text, lesson.ID.String()+"  lesson (abandoned)") {
		t.Fatalf("the lesson was dropped before failures:\n%s", res.Text)
	}
}
