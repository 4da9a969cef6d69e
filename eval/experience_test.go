package eval

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/memory"
)

// expArchive holds sessions of one project, each a list of shell runs.
type expArchive struct {
	t  *testing.T
	s  *archive.Store
	at time.Time
}

func (a *expArchive) session(name string, runs ...[3]string) {
	a.t.Helper()
	for _, r := range runs {
		a.at = a.at.Add(time.Second)
		exit := 0
		if r[1] != "0" {
			exit = 1
		}
		e := memex.Entry{Project: "p", Session: name, Agent: "mini-swe-agent", Kind: memex.KindTool, Tool: "bash", Input: r[0], Exit: &exit,
			Created: a.at, Summary: "bash: " + r[0] + " · exit " + r[1] + " · " + r[2]}
		if _, err := a.s.Add(context.Background(), e, strings.NewReader(r[2])); err != nil {
			a.t.Fatal(err)
		}
	}
}

func TestExperienceMeasures(t *testing.T) {
	s, err := archive.Open("", &archive.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := &expArchive{t: t, s: s, at: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	pass := func(cmd string) [3]string { return [3]string{cmd, "0", "OK"} }
	notFound := [3]string{"pytest tests/test_x.py", "127", "bash: line 1: pytest: command not found"}
	for _, name := range []string{"s1", "s2", "s3"} {
		a.session(name, notFound, pass("bin/test tests/test_"+name+".py"), pass("bin/test tests/test_a.py"), pass("echo done"))
	}
	a.session("s4",
		[3]string{"pytest tests/test_y.py", "127", "bash: line 1: pytest: command not found"}, // recurs: loose
		pass("bin/test tests/test_y.py"),
		[3]string{"python3 repro.py", "1", "AssertionError at repro.py:3"},
		[3]string{"sed -i s/a/b/ src/core.py", "0", "edited src/core.py (sed -i)"},
		pass("python3 repro.py"), pass("echo done"))
	a.session("s5",
		[3]string{"python3 repro.py", "1", "AssertionError at repro.py:3"}, // recurs: strict, fix file hit
		[3]string{"sed -i s/b/c/ src/core.py", "0", "edited src/core.py (sed -i)"},
		pass("python3 repro.py"), pass("python3 tests/runtests.py core"), pass("echo done"))

	rep, err := Experience(context.Background(), s, ExperienceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Procedures) != 1 {
		t.Fatalf("procedures %+v", rep.Procedures)
	}
	p := rep.Procedures[0]
	// s4 and s5 are scored; bin/test is consolidated after s2 (3 passes
	// in 2 sessions): s4's bin/test is a top-1 hit, s5's runtests a miss.
	if p.Sessions != 5 || p.Scored != 2 || p.Covered != 2 || p.Invocation != (Hits{Top1: 1, Top3: 1}) || p.Form != (Hits{Top1: 1, Top3: 1}) {
		t.Fatalf("procedure measure %+v", p)
	}
	if p.FrequentCommand != (Hits{}) || p.FrequentInvoc != (Hits{Top1: 1, Top3: 1}) {
		t.Fatalf("baselines %+v", p)
	}
	l := rep.Lessons
	if l.Sessions != 5 || l.Lessons != 6 || l.ByStatus[memory.StatusAbandoned] != 4 || l.ByStatus[memory.StatusFixed] != 2 {
		t.Fatalf("lessons %+v", l)
	}
	// s2, s3, s4 repeat s1's failure (s2 and s3 strictly); s5 repeats s4's.
	if l.Loose != 4 || l.Strict != 3 || l.FixComparable != 1 || l.FixHits != 1 || l.InsteadComparable != 3 || l.InsteadHits != 3 {
		t.Fatalf("recurrences %+v", l)
	}
	if len(rep.Sample) != 6 || len(rep.Sample[0].Evidence) == 0 {
		t.Fatalf("sample %+v", rep.Sample)
	}
}
