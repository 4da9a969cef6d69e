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

// sessionHitsShown is how many of a session's hits SessionHits prints.
const sessionHitsShown = 3

// SessionHits prints the sessions of a search with --sessions: each
// session's score, the share of the query's words its hits hold
// together, project and session, then its best hits as Hits prints them,
// indented; on stderr a line when there are none or the search ran out of
// time.
func SessionHits(stdout, stderr io.Writer, res api.SearchResult) {
	for _, s := range res.Sessions {
		fmt.Fprintf(stdout, "%6.2f  %3.0f%%  %s  %s  (%d hits)\n", s.Score, 100*s.Cover, s.Project, s.Session, len(s.Hits))
		for i, h := range s.Hits {
			if i == sessionHitsShown {
				break
			}
			fmt.Fprintf(stdout, "    %s  %6.2f  %s\n", h.ID, h.Score, h.Summary)
			if h.Snippet != "" {
				fmt.Fprintf(stdout, "        %s\n", h.Snippet)
			}
		}
	}
	switch {
	case len(res.Sessions) == 0:
		fmt.Fprintln(stderr, "no matches")
	case res.Partial:
		fmt.Fprintln(stderr, "(partial: the search ran out of time; narrow the query)")
	}
}
