package memory_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/memory"
)

func TestHintForARecurringFailure(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	one := newLive(t, s, "s1")
	one.run("go test ./auth", 1, "FAIL TestRefresh: token expired")
	one.edit("auth/token.go")
	one.run("go test ./auth", 0, "ok")
	if _, err := memory.Update(ctx, s, []memex.SessionRef{one.ref}, memory.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	lesson := one.lessons()[0]

	two := newLive(t, s, "s2")
	two.at = one.at.Add(time.Hour)
	first := two.run("cd /repo && go test ./auth", 1, "FAIL TestRefresh: token expired")
	text, err := memory.HintFor(ctx, s, first)
	if err != nil || !strings.HasPrefix(text, "memex: this command failed the same way before: lesson (fixed): go test ./auth failed") ||
		!strings.HasSuffix(text, "[lesson "+lesson.ID.String()+"]") || !strings.Contains(text, "fixed by editing auth/token.go") {
		t.Fatalf("hint %q %v", text, err)
	}
	// Once per command and session.
	again := two.run("go test ./auth", 1, "FAIL TestRefresh: token expired")
	if _, err := memory.HintFor(ctx, s, again); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("second failure hinted: %v", err)
	}
	// Another error, another command, a pass: nothing to tell.
	three := newLive(t, s, "s3")
	three.at = two.at.Add(time.Hour)
	for _, id := range []memex.ID{
		three.run("go test ./auth", 1, "FAIL TestLogin: wrong password"),
		three.run("go vet ./...", 1, "FAIL TestRefresh: token expired"),
		three.run("go build ./...", 0, "")} {
		if _, err := memory.HintFor(ctx, s, id); !errors.Is(err, memex.ErrNotFound) {
			t.Fatalf("hint for %s: %v", id, err)
		}
	}
}
