package eval

import (
	"strings"
	"testing"
)

// A budget run's report counts the probes run, not those skipped, and
// lists the skipped ones as [] rather than null in JSON.
func TestNewReportCountsProbesRun(t *testing.T) {
	outs := []Outcome{{Probe: "p1", Strategy: "memex", Budget: 100, Hit: true}}
	rep := NewReport(3, outs, []string{"p2", "p3"}, []int{100})
	if rep.Probes != 1 || len(rep.Skipped) != 2 || len(rep.Cells) != len(Strategies) {
		t.Fatalf("report %+v", rep)
	}
	if rep := NewReport(1, outs, nil, []int{100}); rep.Skipped == nil || rep.Probes != 1 {
		t.Fatalf("no skipped: %+v", rep)
	}
	var b strings.Builder
	if err := WriteOutcomes(&b, append(outs, outs...)); err != nil || strings.Count(b.String(), "\n") != 2 || !strings.Contains(b.String(), `"p1"`) {
		t.Fatalf("outcomes %q, %v", b.String(), err)
	}
}
