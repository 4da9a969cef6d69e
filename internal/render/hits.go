package render

import (
	"fmt"
	"io"

	"github.com/memex-archive/memex/api"
)

// Hits prints search hits as memex search does: each hit's ID, score and
// summary on stdout, its snippet under it, and on stderr a line when there
// are none or the hits are not a full match.
func Hits(stdout, stderr io.Writer, res api.SearchResult) {
	for _, h := range res.Hits {
		fmt.Fprintf(stdout, "%s  %6.2f  %s\n", h.ID, h.Score, h.Summary)
		if h.Snippet != "" {
			fmt.Fprintf(stdout, "    %s\n", h.Snippet)
		}
	}
	switch {
	case len(res.Hits) == 0:
		fmt.Fprintln(stderr, "no matches")
	case res.Partial:
		fmt.Fprintln(stderr, "(partial: the search ran out of time; narrow the query)")
	case res.Relaxed:
		fmt.Fprintln(stderr, "(no entry matches every word; these match some)")
	case res.Partly > 0:
		fmt.Fprintf(stderr, "(the last %d match only some of the words)\n", res.Partly)
	}
}
