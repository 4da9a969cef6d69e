package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/summarize"
)

// IngestReport prints an import's report as memex ingest does, a table;
// showIndexed adds the count of entries indexed.
func IngestReport(out io.Writer, rep api.IngestResult, showIndexed bool) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "files read\t%d (%d unchanged)\n", rep.Files, rep.Unchanged)
	if rep.Commits > 0 {
		fmt.Fprintf(w, "commits read\t%d\n", rep.Commits)
	}
	fmt.Fprintf(w, "sessions\t%d\n", rep.Sessions)
	fmt.Fprintf(w, "entries added\t%d\n", rep.Added)
	fmt.Fprintf(w, "already present\t%d\n", rep.Present)
	if rep.Differ > 0 {
		fmt.Fprintf(w, "  with other content\t%d (not archived: another run of the same sessions; import it with its own --project)\n", rep.Differ)
	}
	if rep.Completed > 0 {
		fmt.Fprintf(w, "hook entries completed\t%d (from the transcript)\n", rep.Completed)
	}
	fmt.Fprintf(w, "bytes read\t%s\n", summarize.ByteSize(rep.Bytes))
	fmt.Fprintf(w, "secrets redacted\t%d%s\n", rep.Redacted, countsSuffix(rep.RedactedKinds))
	skipped := 0
	for _, n := range rep.Skipped {
		skipped += n
	}
	fmt.Fprintf(w, "lines skipped\t%d%s\n", skipped, countsSuffix(rep.Skipped))
	if rep.InvalidUTF8 > 0 {
		fmt.Fprintf(w, "invalid UTF-8\t%d byte sequences, archived as U+FFFD\n", rep.InvalidUTF8)
	}
	if len(rep.Unknown) > 0 {
		fmt.Fprintf(w, "unknown records\t%s\n", strings.TrimPrefix(countsSuffix(rep.Unknown), " "))
	}
	if showIndexed {
		fmt.Fprintf(w, "indexed\t%d\n", rep.Indexed)
	}
	return w.Flush()
}

// countsSuffix renders {"a":2,"b":1} as " (a 2, b 1)", sorted by key.
func countsSuffix(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
