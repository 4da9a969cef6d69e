package render

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/memex-archive/memex/api"
)

// Warner prints the problems of an import on Out (stderr) as memex ingest
// does: the first api.MaxIngestWarnings as they are met, then one line
// saying there are more; with JSON each is a {"warning": ...} line, so
// that a reader of --json output never meets text.
type Warner struct {
	Out  io.Writer
	JSON bool

	told int
	said map[string]bool // problems printed
}

// Warn is told one problem.
func (w *Warner) Warn(msg string) {
	if w.told++; w.told <= api.MaxIngestWarnings {
		w.line(msg)
		if w.said == nil {
			w.said = map[string]bool{}
		}
		w.said[msg] = true
	} else if w.told == api.MaxIngestWarnings+1 {
		w.line("more problems; see the report")
	}
}

// Told is how many problems Warn and More were told.
func (w *Warner) Told() int { return w.told }

// More counts n problems past those told, which an answer only counted.
func (w *Warner) More(n int) {
	if n > 0 && w.told <= api.MaxIngestWarnings {
		w.line("more problems; see the report")
	}
	w.told += n
}

// Rest prints, once each, the problems of lists not printed yet: the file
// problems, after the report where they are seen last.
func (w *Warner) Rest(lists ...[]string) {
	for _, l := range lists {
		for _, msg := range l {
			if !w.said[msg] {
				w.line(msg)
			}
		}
	}
}

func (w *Warner) line(msg string) {
	if w.JSON {
		b, _ := json.Marshal(struct {
			Warning string `json:"warning"`
		}{"ingest: " + msg})
		fmt.Fprintf(w.Out, "%s\n", b)
		return
	}
	fmt.Fprintln(w.Out, "memex: ingest:", msg)
}
