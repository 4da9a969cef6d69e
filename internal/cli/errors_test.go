package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// TestErrorsReadAsTheirSentence: an error that carries its sentence (a
// *memex.Error) reaches the user in its own words, whatever the layers on
// the way out wrapped it in, in text and in --json (the hint on its own
// there); other errors keep every word.
func TestErrorsReadAsTheirSentence(t *testing.T) {
	nf := memex.Errorf(memex.ErrNotFound, "session %q: not found", "nosuch").WithHint("memex sessions lists them")
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("deref: context: %w", fmt.Errorf("archive: %w", nf)), `session "nosuch": not found; memex sessions lists them`},
		{fmt.Errorf("deref: show: %w", memex.Errorf(memex.ErrNotFound, "%s: not found", "X")), "X: not found"},
		// What a client rebuilt from a server's answer reads the same.
		{&memex.Error{Kind: memex.ErrNotFound, What: `session "nosuch": not found`, Hint: "memex sessions lists them"}, `session "nosuch": not found; memex sessions lists them`},
		{fmt.Errorf("archive: get %s: %w", "01J", errors.New("checksum mismatch")), "archive: get 01J: checksum mismatch"},
		{fmt.Errorf("search: %w", context.Canceled), "interrupted"},
		// An interruption that says what it kept says so.
		{fmt.Errorf("ingest: %w", &memex.Error{What: "interrupted after 2 files: the 6 entries archived are kept", Hint: "the same command again goes on from there", Err: context.Canceled}),
			"interrupted after 2 files: the 6 entries archived are kept; the same command again goes on from there"},
	} {
		if got := Message(c.err); got != c.want {
			t.Errorf("%q: %q, want %q", c.err, got, c.want)
		}
	}
	var stderr strings.Builder
	if code := printJSONError(fmt.Errorf("replay: %w", nf), &stderr); code != ExitFailure ||
		stderr.String() != `{"error":"session \"nosuch\": not found","code":"not_found","hint":"memex sessions lists them"}`+"\n" {
		t.Errorf("--json: exit %d, %s", code, stderr.String())
	}
}
