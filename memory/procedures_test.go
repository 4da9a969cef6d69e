package memory

import (
	"strings"
	"testing"
)

func TestProceduresResidualTree(t *testing.T) {
	s1, s2, s3 := newSession(t, "s1"), newSession(t, "s2"), newSession(t, "s3")
	s1.run("python3 tests/runtests.py auth_tests", 0, "django tests: 10 tests, OK")
	s1.run("python3 tests/runtests.py auth_tests.tests.TokenTests.test_expiry", 0, "django tests: 1 test, OK")
	s2.run("python3 tests/runtests.py forms", 1, "django tests: 5 tests, FAILED (failures=1)")
	s2.run("python3 tests/runtests.py forms", 0, "django tests: 5 tests, OK")
	s2.run("PYTHONPATH=. python3 tests/runtests.py i18n", 0, "django tests: 7 tests, OK")
	s3.run("cd /testbed && python3 tests/runtests.py queries 2>&1 | tail -5", 0, "django tests: 40 tests, OK")
	last := s3.run("PYTHONPATH=. python3 tests/runtests.py admin_scripts", 0, "django tests: 7 tests, OK")
	s3.run("python3 tests/runtests.py views.tests.DebugTests.test_x", 0, "django tests: 1 test, OK")
	s3.run("./tests/runtests.py queries", 0, "django tests: 40 tests, OK") // once: no procedure
	s3.run("go vet ./...", 0, "")
	var obs []Observation
	for _, s := range []*fakeSession{s1, s2, s3} {
		obs = append(obs, Observations(s.entries)...)
	}
	if len(obs) != 10 {
		t.Fatalf("%d observations, want 10", len(obs))
	}
	ps := BuildProcedures(obs, Rule{})
	if len(ps) != 1 {
		t.Fatalf("procedures %+v", ps)
	}
	p := ps[0]
	if p.Family != FamilyTest || p.Rank != 1 || p.Invocation != "python3 tests/runtests.py" || p.Command != "python3 tests/runtests.py <module>" {
		t.Fatalf("procedure %+v", p)
	}
	if p.Seen != 8 || p.Passed != 7 || p.Sessions != 3 {
		t.Fatalf("counts seen %d passed %d sessions %d", p.Seen, p.Passed, p.Sessions)
	}
	if p.Example != "python3 tests/runtests.py forms" { // the last run of the usual form
		t.Fatalf("example %q", p.Example)
	}
	var deltas []string
	for _, v := range p.Variants {
		deltas = append(deltas, v.Delta+"="+v.Command)
	}
	want := "+ PYTHONPATH=.=PYTHONPATH=. python3 tests/runtests.py <module>|one test=python3 tests/runtests.py <test>"
	if got := strings.Join(deltas, "|"); got != want {
		t.Fatalf("variants %s\nwant %s", got, want)
	}
	if p.Variants[0].LastPassed != last || p.Variants[0].Passed != 2 || p.Other != 1 {
		t.Fatalf("variant %+v other %d", p.Variants[0], p.Other)
	}
	if len(p.Runs) != maxCited || p.Runs[0] != p.LastPassed {
		t.Fatalf("cited runs %v", p.Runs)
	}
	if forms := p.Forms(); len(forms) != 3 || forms[0] != "python3 tests/runtests.py <module>" {
		t.Fatalf("forms %q", forms)
	}

	// A stricter rule: no procedure yet.
	if ps := BuildProcedures(obs, Rule{MinPasses: 8, MinSessions: 3}); len(ps) != 0 {
		t.Fatalf("procedures under a strict rule %+v", ps)
	}
	// A lenient one: the other invocation too, ranked second.
	ps = BuildProcedures(obs, Rule{MinPasses: 1, MinSessions: 1, MinVariantPasses: 1})
	if len(ps) != 3 || ps[1].Invocation != "./tests/runtests.py" || ps[1].Rank != 2 || ps[2].Family != FamilyLint {
		t.Fatalf("lenient procedures %+v", ps)
	}
}

func TestFormsAndKeys(t *testing.T) {
	for _, tc := range []struct{ line, inv, form string }{
		{"go test ./...", "go test", "go test ./..."},
		{"go test -run TestX ./auth", "go test", "go test <test>"},
		{"pytest tests/test_a.py -k expiry -x", "pytest", "pytest -x <test>"},
		{"pytest tests/test_a.py::test_b", "pytest", "pytest <test>"},
		{"python -m pytest -q", "python -m pytest", "python -m pytest -q"},
		{"uv run pytest -m browser", "uv run pytest", "uv run pytest -m"},
		{"npm run test -- --watch", "npm run test", "npm run test --watch"},
		{"bin/test sympy/core/tests/test_symbol.py", "bin/test", "bin/test <path>"},
		{"python3 tests/runtests.py a b", "python3 tests/runtests.py", "python3 tests/runtests.py <module> ..."},
		{"./manage.py test app.tests.ATest", "./manage.py test", "./manage.py test <test>"},
	} {
		c := ParseCommand(tc.line)
		cmd, inv, form := RunKeys(Observation{Words: c.Words})
		if cmd != c.Line() || inv != tc.inv || form != tc.form {
			t.Errorf("%q: invocation %q form %q, want %q %q", tc.line, inv, form, tc.inv, tc.form)
		}
	}
}
