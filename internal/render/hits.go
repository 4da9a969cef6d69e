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
		hit(stdout, "", h)
	}
	switch {
	case len(res.Hits) == 0:
		fmt.Fprintln(stderr, noMatches)
	case res.Partial:
		fmt.Fprintln(stderr, partial)
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
		for _, h := range s.Hits[:min(len(s.Hits), sessionHitsShown)] {
			hit(stdout, "    ", h)
		}
	}
	switch {
	case len(res.Sessions) == 0:
		fmt.Fprintln(stderr, noMatches)
	case res.Partial:
		fmt.Fprintln(stderr, partial)
	}
}

// The stderr lines of a search that found nothing, and of one cut short.
const (
	noMatches = "no matches"
	partial   = "(partial: the search ran out of time; narrow the query)"
)

// hit prints one hit, each line after indent: ID, score and summary, then
// its snippet, when it has one, indented once more.
func hit(w io.Writer, indent string, h api.Hit) {
	fmt.Fprintf(w, "%s%s  %6.2f  %s\n", indent, h.ID, h.Score, h.Summary)
	if h.Snippet != "" {
		fmt.Fprintf(w, "%s    %s\n", indent, h.Snippet)
	}
}
