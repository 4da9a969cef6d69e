package render

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/memory"
	"github.com/memex-archive/memex/summarize"
)

// Stats prints the store's figures as memex stats does, a table.
func Stats(out io.Writer, st api.Stats) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "entries\t%d\n", st.Entries)
	fmt.Fprintf(w, "sessions\t%d\n", st.Sessions)
	fmt.Fprintf(w, "tokens archived\t%d\n", st.Tokens)
	fmt.Fprintf(w, "raw bytes\t%s\n", summarize.ByteSize(st.RawBytes))
	fmt.Fprintf(w, "stored bytes\t%s (%.2fx)\n", summarize.ByteSize(st.StoredBytes), st.Ratio)
	fmt.Fprintf(w, "dedup saved\t%s (%d distinct bodies)\n", summarize.ByteSize(st.DedupSaved), st.Bodies)
	fmt.Fprintf(w, "on disk\t%s\n", summarize.ByteSize(st.DiskBytes))
	fmt.Fprintf(w, "index on disk\t%s\n", summarize.ByteSize(st.IndexBytes))
	return w.Flush()
}

// Verify prints a verification as memex verify does: each problem and
// note on stdout, the count on stderr.
func Verify(stdout, stderr io.Writer, res api.VerifyResult) {
	for _, p := range res.Problems {
		where := "store"
		if !p.ID.IsZero() {
			where = p.ID.String()
		}
		fmt.Fprintf(stdout, "%s: %s\n", where, p.Message)
	}
	for _, p := range res.Files {
		fmt.Fprintf(stdout, "%s: %s\n", p.Path, p.Message)
	}
	for _, p := range res.Notes {
		fmt.Fprintf(stdout, "note: %s: %s\n", p.Path, p.Message)
	}
	fmt.Fprintf(stderr, "memex: verified %s, %s\n", summarize.Plural(res.Checked, "entry"),
		summarize.Plural(len(res.Problems)+len(res.Files), "problem"))
}

// Reindex prints a rebuild's count as memex reindex does, and on stderr
// the entries indexed without their content.
func Reindex(stdout, stderr io.Writer, res api.ReindexResult) {
	fmt.Fprintf(stdout, "reindexed %s\n", summarize.Plural(res.Indexed, "entry"))
	if res.NoContent > 0 {
		fmt.Fprintf(stderr, "%d entries indexed without content (unreadable body; run memex verify)\n", res.NoContent)
	}
}

// Lessons prints failure lessons as memex lessons does: ID, time, text.
func Lessons(out io.Writer, items []memory.LessonItem) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, it := range items {
		fmt.Fprintf(w, "%s\t%s\t%s\n", it.ID, it.Created.UTC().Format("2006-01-02 15:04"), it.Text)
	}
	return w.Flush()
}

// Stale prints the stale memories as memex stale does: ID, time, mark and
// summary on stdout, and on stderr how many of those checked in the
// checkout root are stale and whether the check ran out of time (after
// timeout).
func Stale(stdout, stderr io.Writer, res memory.StaleResult, root string, timeout time.Duration) error {
	w := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, it := range res.Items {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.ID, it.Created.UTC().Format("2006-01-02 15:04"), deref.MarkText(it.Evidence), oneLine(it.Summary, 100))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "memex: %d of %d checked memories of %s stale in %s\n", len(res.Items), res.Checked, res.Project, root)
	if res.Partial {
		fmt.Fprintf(stderr, "memex: the check ran out of time (%s); older memories were not checked\n", timeout)
	}
	return nil
}

// oneLine is s on one line (tabs and newlines as spaces), cut to n runes
// with "..." at the end when it is longer.
func oneLine(s string, n int) string {
	b := []rune(s)
	out := make([]rune, 0, len(b))
	for _, r := range b {
		if r == '\n' || r == '\t' {
			r = ' '
		}
		out = append(out, r)
	}
	if len(out) > n {
		return string(out[:n-3]) + "..."
	}
	return string(out)
}

// Forgot prints what memex forget removed, as it does.
func Forgot(out io.Writer, res api.ForgetResult) error {
	_, err := fmt.Fprintf(out, "forgot %s\n", summarize.Plural(res.Forgotten, "entry"))
	return err
}

// Distill prints a distillation's counts as memex distill does, one line.
func Distill(out io.Writer, rep memory.UpdateReport) error {
	_, err := fmt.Fprintf(out, "distilled %d sessions: %d lessons (%d added, %d kept, %d removed), %d runs for procedures\n",
		rep.Sessions, rep.Lessons, rep.Added, rep.Kept, len(rep.Removed), rep.Runs)
	return err
}

// Exported says whether an export (memex export) changed the file at
// path.
func Exported(out io.Writer, path string, wrote bool) error {
	if wrote {
		_, err := fmt.Fprintf(out, "wrote %s\n", path)
		return err
	}
	_, err := fmt.Fprintf(out, "%s unchanged\n", path)
	return err
}
