package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/memex-archive/memex/api"
)

// Sessions prints a session listing as memex sessions does: a table that
// fits 100 columns (names and projects shortened, compactions when a
// session has any), or with wide every name and project whole and the end
// time.
func Sessions(out io.Writer, list []api.SessionInfo, wide bool) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	if wide {
		fmt.Fprintln(w, "SESSION\tAGENT\tPROJECT\tSTART\tEND\tENTRIES\tTOKENS\tCOMPACTIONS")
		for _, si := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\n", si.Session, si.Agent, si.Project,
				si.Start.Format("2006-01-02 15:04"), si.End.Format("2006-01-02 15:04"), si.Entries, si.Tokens, si.Compactions)
		}
		return w.Flush()
	}
	compactions := false
	for _, si := range list {
		compactions = compactions || si.Compactions > 0
	}
	names := make([]string, len(list))
	for i, si := range list {
		names[i] = si.Session
	}
	short := shortNames(names)
	head := "SESSION\tAGENT\tPROJECT\tSTART\tTOOK\tENTRIES\tTOKENS"
	if compactions {
		head += "\tCMP"
	}
	fmt.Fprintln(w, head)
	for i, si := range list {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s", short[i], si.Agent, projectName(si.Project),
			si.Start.Format("2006-01-02 15:04"), span(si.End.Sub(si.Start)), si.Entries, shortCount(si.Tokens))
		if compactions {
			fmt.Fprintf(w, "\t%d", si.Compactions)
		}
		fmt.Fprintln(w)
	}
	return w.Flush()
}

// Widths of the narrow table's name columns, so that it fits 100 columns
// with the longest agent name (mini-swe-agent) and every other column full.
const (
	maxName    = 22
	maxProject = 12
)

// shortNames abbreviates the UUIDs among names (Claude Code's and Codex's
// session names) to their shortest prefix of at least 8 characters that
// no other name listed starts with, which replay takes; another name
// longer than maxName loses its middle (--wide shows it whole).
func shortNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if !isUUID(n) {
			if r := []rune(n); len(r) > maxName {
				// The end tells tasks apart (django__django-11292).
				out[i] = string(r[:maxName-12]) + "…" + string(r[len(r)-11:])
			}
			continue
		}
		k := 8
		for j, m := range names {
			for j != i && k < len(n) && strings.HasPrefix(m, n[:k]) {
				k++
			}
		}
		out[i] = n[:k]
	}
	return out
}

// isUUID reports whether s is written as a UUID: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", c):
			return false
		}
	}
	return true
}

// projectName is a project as the narrow table shows it: its last path
// element (claude-code-log for /Users/x/claude-code-log, django for
// github.com/django/django), cut to maxProject characters.
func projectName(p string) string {
	if p == "" {
		return "-"
	}
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		p = p[i+1:]
	}
	if r := []rune(p); len(r) > maxProject {
		return string(r[:maxProject-1]) + "…"
	}
	return p
}

// span words how long a session ran: 45s, 12m, 3h05m, 2d04h.
func span(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

// shortCount words a token count in at most 5 characters: 812, 35.2k,
// 412k, 1.3M.
func shortCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 100_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
