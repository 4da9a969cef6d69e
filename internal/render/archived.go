package render

import (
	"fmt"
	"io"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// Archived is the line memex run ends with on stderr: the entry's ID, its
// summary, the tokens archived and how to read it back.
func Archived(stderr io.Writer, e memex.Entry) {
	fmt.Fprintf(stderr, "memex: %s · %s · %s tokens archived · memex show %s\n",
		e.ID, e.DisplaySummary(), summarize.Commas(int(e.Tokens)), e.ID)
}

// Replaced says on stderr that n credentials were replaced in what was
// just archived (memex add, memex run); nothing when n is 0.
func Replaced(stderr io.Writer, n int) {
	if n > 0 {
		fmt.Fprintf(stderr, "memex: %s: replaced with [REDACTED:kind] (--no-redact keeps them)\n", memex.RedactedNote(n))
	}
}

// Redacted tells on stderr (stdout stays the exact content: memex show)
// that n credentials were replaced in entry id when it was archived;
// nothing when none were.
func Redacted(stderr io.Writer, id string, n int) {
	if n > 0 {
		fmt.Fprintf(stderr, "[memex %s · %s when archived: each is [REDACTED:kind]]\n", id, memex.RedactedNote(n))
	}
}
