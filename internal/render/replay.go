package render

import (
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
)

// ReplayStep is one step of memex replay, as --json prints it.
type ReplayStep struct {
	Step       int       `json:"step"`
	ID         memex.ID  `json:"id"`
	Created    time.Time `json:"created"`
	Kind       string    `json:"kind"`
	Role       string    `json:"role,omitempty"` // a message's author: user, assistant, ...
	Tool       string    `json:"tool,omitempty"`
	Summary    string    `json:"summary"`
	Tokens     int64     `json:"tokens"`
	Compaction bool      `json:"compaction,omitempty"`
	Content    *string   `json:"content,omitempty"`
	// ContentBase64 is the content, base64-encoded, when it is not valid
	// UTF-8 (then Content is nil), as in memex show --json.
	ContentBase64 string `json:"content_base64,omitempty"`

	bytes int64 // the entry's size, for the binary note
}

// Step is step n of a replay: entry e, with its content when --full
// asked for it.
func Step(n int, e memex.Entry, content *string) ReplayStep {
	return ReplayStep{Step: n, ID: e.ID, Created: e.Created, Kind: string(e.Kind), Role: e.Attrs["role"], Tool: e.Tool,
		Summary: e.DisplaySummary(), Tokens: e.Tokens, Compaction: e.IsCompaction(), Content: content, bytes: e.Bytes}
}

// Steps are the steps of a replay of entries, with each entry's content
// when full asked for it (and the entries came with it).
func Steps(entries []api.EntryJSON, full bool) ([]ReplayStep, error) {
	steps := make([]ReplayStep, 0, len(entries))
	for i, e := range entries {
		var content *string
		if full {
			b, ok, err := e.Body()
			if err != nil || !ok {
				return nil, fmt.Errorf("replay: entry %s came without its content: %v", e.ID, err)
			}
			if !utf8.Valid(b) {
				// As text its bytes would be replaced, in JSON and on a
				// terminal alike.
				st := Step(i, e.Entry, nil)
				st.ContentBase64, st.bytes = base64.StdEncoding.EncodeToString(b), int64(len(b))
				steps = append(steps, st)
				continue
			}
			text := string(b)
			content = &text
		}
		steps = append(steps, Step(i, e.Entry, content))
	}
	return steps, nil
}

// Replay prints a replay's steps as memex replay does: one line per step,
// a line with the date where each day starts when the session spans days,
// the points where the context was compacted, and each step's content
// under its line when it came with one.
func Replay(out io.Writer, steps []ReplayStep) error {
	// A session that spans days gets a line with the date where each day
	// starts: a step's line holds its time of day only.
	days := len(steps) > 0 && !sameDay(steps[0].Created, steps[len(steps)-1].Created)
	for i, st := range steps {
		if days && (i == 0 || !sameDay(steps[i-1].Created, st.Created)) {
			fmt.Fprintf(out, "──────── %s ────────\n", st.Created.Format("Monday 2006-01-02"))
		}
		if st.Compaction {
			fmt.Fprintf(out, "──────── context compacted here ────────\n")
		}
		what := st.Kind
		switch {
		case st.Tool != "":
			what += ":" + st.Tool
		case st.Kind == string(memex.KindMessage) && st.Role != "":
			what = st.Role // user, assistant: who said it
		}
		fmt.Fprintf(out, "%4d  %s  %-16s %s  %s  (%d tok)\n", st.Step, st.Created.Format("15:04:05"), what, st.ID, st.Summary, st.Tokens)
		switch {
		case st.Content != nil:
			fmt.Fprintln(out, indent(*st.Content))
		case st.ContentBase64 != "":
			// Raw bytes would garble the terminal (memex show gives them).
			fmt.Fprintln(out, indent(deref.BinaryNote(st.ID, st.bytes)))
		}
	}
	return nil
}

// sameDay reports whether a and b fall on the same calendar day (in a's
// location, the one the lines print).
func sameDay(a, b time.Time) bool {
	b = b.In(a.Location())
	return a.YearDay() == b.YearDay() && a.Year() == b.Year()
}

func indent(s string) string {
	s = strings.TrimRight(s, "\n")
	return "      │ " + strings.ReplaceAll(s, "\n", "\n      │ ")
}
