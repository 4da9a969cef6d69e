package eval

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/memex-archive/memex/memory"
)

// WriteExperience prints rep as memex eval experience does: the
// procedures table, the lessons' figures, each recurrence and the sample
// drawn for a hand check.
func WriteExperience(out io.Writer, rep ExperienceReport) error {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "procedures (rule: %d passes in %d sessions, variants %d)\n", rep.Rule.MinPasses, rep.Rule.MinSessions, rep.Rule.MinVariantPasses)
	fmt.Fprintln(w, "project\tsessions\tscored\tcovered\tinvocation top1/top3\tform top1/top3\tfrequent command\tfrequent invocation\tfrequent form")
	rows := append(append([]ProjectProcedures{}, rep.Procedures...), rep.Total)
	for _, p := range rows {
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", p.Project, p.Sessions, p.Scored, p.Covered,
			hitsCell(p.Invocation, p.Scored), hitsCell(p.Form, p.Scored), hitsCell(p.FrequentCommand, p.Scored), hitsCell(p.FrequentInvoc, p.Scored), hitsCell(p.FrequentForm, p.Scored))
	}
	l := rep.Lessons
	fmt.Fprintf(w, "\nlessons\t%d in %d sessions (%.1f per 100): %d fixed, %d abandoned, %d reverted\n", l.Lessons, l.Sessions, l.Per100,
		l.ByStatus[memory.StatusFixed], l.ByStatus[memory.StatusAbandoned], l.ByStatus[memory.StatusReverted])
	fmt.Fprintf(w, "recurring failures\t%d loose, %d strict\n", l.Loose, l.Strict)
	fmt.Fprintf(w, "fix files hit\t%d of %d\n", l.FixHits, l.FixComparable)
	fmt.Fprintf(w, "instead hit\t%d of %d\n", l.InsteadHits, l.InsteadComparable)
	if err := w.Flush(); err != nil {
		return err
	}
	for _, r := range l.Recurrences {
		fmt.Fprintf(out, "\nrecurrence %s → %s (strict %v): %s\n  lesson: %s\n  later:  %s\n", r.Earlier, r.Later, r.Strict, r.Command, r.Lesson, r.Outcome)
	}
	for i, s := range rep.Sample {
		fmt.Fprintf(out, "\nsample %d · %s · %s\n  %s\n", i+1, s.Project, s.Session, s.Text)
		for _, e := range s.Evidence {
			fmt.Fprintf(out, "    %s\n", e)
		}
	}
	return nil
}

// hitsCell is a Hits figure as the table shows it: top-1/top-3 of n.
func hitsCell(h Hits, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d of %d", h.Top1, h.Top3, n)
}
