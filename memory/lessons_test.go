package memory

import (
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// session builds the entries of one session, one second apart.
type fakeSession struct {
	t       *testing.T
	at      time.Time
	name    string
	entries []memex.Entry
}

func newSession(t *testing.T, name string) *fakeSession {
	return &fakeSession{t: t, name: name, at: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
}

func (s *fakeSession) add(e memex.Entry) memex.ID {
	s.at = s.at.Add(time.Second)
	e.ID, e.Created = memex.NewID(s.at), s.at
	e.Project, e.Session, e.Agent = "p", s.name, "claude-code"
	if e.Kind == "" {
		e.Kind = memex.KindTool
	}
	s.entries = append(s.entries, e)
	return e.ID
}

// run adds a shell run whose summary is "bash: CMD · exit N · OUT".
func (s *fakeSession) run(cmd string, exit int, out string) memex.ID {
	x := exit
	return s.add(memex.Entry{Tool: "bash", Input: cmd, Exit: &x, Summary: "bash: " + cmd + " · exit " + itoa(exit) + " · " + out})
}

// edit adds a Claude Code Edit of path.
func (s *fakeSession) edit(path string) memex.ID {
	return s.add(memex.Entry{Tool: "Edit", Input: `{"file_path":"` + path + `","old_string":"a","new_string":"b"}`,
		Summary: "Edit: " + path + " · edited " + path + ": +1 -1 lines"})
}

func (s *fakeSession) say(text string) memex.ID {
	return s.add(memex.Entry{Kind: memex.KindMessage, Summary: text, Attrs: map[string]string{"role": "assistant"}})
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

func TestLessonFixedByEditing(t *testing.T) {
	s := newSession(t, "s1")
	fail := s.run("cd /repo && go test ./auth 2>&1 | tail -30", 1, "go test: 1 failed; FAIL TestRefresh: token expired check")
	s.run("grep -rn Expired auth", 1, "no matches") // a lookup: no failure
	s.say("the expiry check is inverted")
	fix := s.edit("auth/token.go")
	pass := s.run("go test ./auth", 0, "ok")
	s.run("git status", 0, "clean")

	ls := Lessons(s.entries)
	if len(ls) != 1 {
		t.Fatalf("%d lessons, want 1: %+v", len(ls), ls)
	}
	l := ls[0]
	if l.Status != StatusFixed || l.Command != "go test ./auth" || l.Family != FamilyTest {
		t.Fatalf("lesson %+v", l)
	}
	if len(l.Fix) != 1 || l.Fix[0].Path != "auth/token.go" || l.Fix[0].ID != fix || l.Pass == nil || *l.Pass != pass {
		t.Fatalf("fix %+v pass %v", l.Fix, l.Pass)
	}
	want := "lesson (fixed): go test ./auth failed: FAIL TestRefresh: token expired check (" + fail.String() +
		"); fixed by editing auth/token.go (" + fix.String() + "); passed (" + pass.String() + ")"
	if l.Text != want {
		t.Fatalf("text\n%s\nwant\n%s", l.Text, want)
	}
	if got := l.Cites(); len(got) != 3 || got[0] != fail || got[1] != fix || got[2] != pass {
		t.Fatalf("cites %v", got)
	}
	if !l.At.Equal(pass.Time()) {
		t.Fatalf("at %v, want the pass's time %v", l.At, pass.Time())
	}
}

func TestLessonAbandonedWithInstead(t *testing.T) {
	s := newSession(t, "s1")
	fail := s.run("pytest sympy/core/tests/test_symbol.py", 127, "bash: line 1: pytest: command not found")
	instead := s.run("bin/test sympy/core/tests/test_symbol.py", 0, "sympy test: 13 passed")
	s.run("echo done", 0, "done")
	ls := Lessons(s.entries)
	if len(ls) != 1 {
		t.Fatalf("%d lessons: %+v", len(ls), ls)
	}
	l := ls[0]
	if l.Status != StatusAbandoned || l.Instead == nil || l.Instead.ID != instead || l.Instead.Command != "bin/test sympy/core/tests/test_symbol.py" {
		t.Fatalf("lesson %+v", l)
	}
	if !strings.Contains(l.Text, "abandoned: never passed in the session; bin/test sympy/core/tests/test_symbol.py passed instead ("+instead.String()+")") ||
		!strings.HasPrefix(l.Text, "lesson (abandoned): pytest sympy/core/tests/test_symbol.py failed: bash: line 1: pytest: command not found ("+fail.String()+")") {
		t.Fatalf("text %s", l.Text)
	}
}

func TestLessonReverted(t *testing.T) {
	s := newSession(t, "s1")
	s.run("make test", 2, "FAIL: TestParse")
	tried := s.edit("parse.go")
	s.run("make test", 2, "FAIL: TestParse")
	undo := s.run("git checkout -- parse.go", 0, "Updated 1 path")
	s.say("leaving it")
	s.run("ls", 0, "a b")
	ls := Lessons(s.entries)
	if len(ls) != 1 {
		t.Fatalf("%d lessons: %+v", len(ls), ls)
	}
	l := ls[0]
	if l.Status != StatusReverted || len(l.Undone) != 1 || l.Undone[0].ID != undo || *l.Undone[0].By != tried || len(l.Fix) != 0 {
		t.Fatalf("lesson %+v", l)
	}
	if len(l.Failures) != 2 || !strings.Contains(l.Text, "failed 2 times") ||
		!strings.Contains(l.Text, "tried editing parse.go ("+tried.String()+"), undone ("+undo.String()+")") {
		t.Fatalf("text %s", l.Text)
	}
}

func TestLessonFixedByEnvironment(t *testing.T) {
	s := newSession(t, "s1")
	s.run("python3 tests/runtests.py admin_scripts", 1, "django tests: 195 tests, FAILED (errors=1); ERROR test_unicode: UnicodeEncodeError")
	pass := s.run("export LANG=C.UTF-8\nPYTHONPATH=. python3 tests/runtests.py admin_scripts", 0, "django tests: 195 tests, OK")
	s.run("git diff", 0, "")
	ls := Lessons(s.entries)
	if len(ls) != 1 || ls[0].Status != StatusFixed || strings.Join(ls[0].Env, " ") != "LANG=C.UTF-8 PYTHONPATH=." {
		t.Fatalf("lessons %+v", ls)
	}
	if !strings.HasSuffix(ls[0].Text, "; passed with LANG=C.UTF-8 PYTHONPATH=. set ("+pass.String()+")") {
		t.Fatalf("text %s", ls[0].Text)
	}
}

func TestLessonFixedAfterAnotherCommand(t *testing.T) {
	s := newSession(t, "s1")
	s.run("python -m pytest tests/test_a.py", 1, "python: No module named pytest")
	install := s.run("pip install pytest", 0, "Successfully installed pytest")
	pass := s.run("python -m pytest tests/test_a.py", 0, "pytest: 3 passed")
	s.run("echo ok", 0, "ok")
	ls := Lessons(s.entries)
	if len(ls) != 1 || ls[0].After == nil || ls[0].After.ID != install {
		t.Fatalf("lessons %+v", ls)
	}
	if !strings.HasSuffix(ls[0].Text, "; passed after pip install pytest ("+install.String()+") ("+pass.String()+")") {
		t.Fatalf("text %s", ls[0].Text)
	}
}

func TestLessonsLeaveOutWhatTeachesNothing(t *testing.T) {
	s := newSession(t, "s1")
	s.run("grep -r nothing .", 1, "no matches")                    // a lookup
	s.run("rm -r build", 1, "rm: cannot remove 'build'")           // housekeeping
	s.run("python3 -c 'import x'", 1, "ModuleNotFoundError: x")    // a one-liner left behind
	s.run("python3 probe.py", 1, "NameError: y")                   // one failure of a script, left
	s.run("npm install", 1, "The user doesn't want to proceed")    // refused by the user
	s.add(memex.Entry{Tool: "Edit", Input: `{"file_path":"a.go"}`, // a failed edit is no edit
		Exit: intp(1), Summary: "Edit: a.go · exit 1 · String to replace not found in file."})
	s.run("python3 fix.py", 2, "python3: can't open file 'fix.py': [Errno 2] No such file or directory")
	s.run("cat <<'EOF' > fix.py\nopen('src/a.py', 'w').write('x')\nEOF", 0, "wrote fix.py")
	s.run("python3 fix.py", 0, "")
	last := s.run("go test ./...", 1, "FAIL ./a") // nothing after it: not judged yet
	if ls := Lessons(s.entries); len(ls) != 0 {
		t.Fatalf("lessons %+v", ls)
	}
	_ = last
}

func TestLessonScriptEditsAndHelpers(t *testing.T) {
	s := newSession(t, "s1")
	fail := s.run("python3 reproduce_issue.py", 1, "AssertionError at reproduce_issue.py:15")
	s.run("cat <<'EOF' > update_http.py\nwith open('django/utils/http.py', 'w') as f:\n    f.write(src)\nEOF", 0, "wrote update_http.py")
	apply := s.run("python3 update_http.py", 0, "3 lines")
	pass := s.run("python3 reproduce_issue.py", 0, "all good")
	s.run("git diff", 0, "diff: 1 file (django/utils/http.py), +5 -4")
	ls := Lessons(s.entries)
	if len(ls) != 1 || len(ls[0].Fix) != 1 || ls[0].Fix[0].Path != "django/utils/http.py" || ls[0].Fix[0].ID != apply || *ls[0].Pass != pass || ls[0].Failures[0] != fail {
		t.Fatalf("lessons %+v", ls)
	}
}

func TestLessonsAreDeterministic(t *testing.T) {
	s := newSession(t, "s1")
	s.run("go build ./...", 1, "a.go:3: undefined: x")
	s.edit("a.go")
	s.edit("b.go")
	s.run("go build ./...", 0, "")
	s.run("go vet ./...", 1, "a.go:4: unreachable code")
	s.run("go vet ./...", 1, "a.go:4: unreachable code")
	s.say("moving on")
	s.run("ls", 0, "")
	a, b := Lessons(s.entries), Lessons(s.entries)
	if len(a) != 2 || a[0].Text != b[0].Text || a[1].Text != b[1].Text {
		t.Fatalf("lessons differ or missing: %+v", a)
	}
	if a[0].Status != StatusFixed || a[1].Status != StatusAbandoned || len(a[1].Failures) != 2 {
		t.Fatalf("lessons %+v", a)
	}
	if a[1].Signature != "a.go:#: unreachable code" {
		t.Fatalf("signature %q", a[1].Signature)
	}
}

func intp(n int) *int { return &n }

// TestLessonsOfSWEAgentActions: SWE-agent records a shell action under
// the name of its program ("./mvnw", "python"), with no exit status; its
// runs are mined like any shell's, its own commands (edit, open, ...) are
// not runs.
func TestLessonsOfSWEAgentActions(t *testing.T) {
	s := newSession(t, "swe")
	act := func(cmd, summary string) memex.ID {
		return s.add(memex.Entry{Agent: "swe-agent", Tool: strings.Fields(cmd)[0], Input: cmd, Summary: summary})
	}
	fail := act("./mvnw test -Dtest=ReproduceTest", "./mvnw: ./mvnw test -Dtest=ReproduceTest · Error: JAVA_HOME is not defined correctly. · 2 lines")
	act("find /usr/lib/jvm -type d", "find: find /usr/lib/jvm -type d · found 0 paths:")
	again := act("./mvnw test -Dtest=ReproduceTest", "./mvnw: ./mvnw test -Dtest=ReproduceTest · Error: JAVA_HOME is not defined correctly. · 2 lines")
	act("open src/Main.java", "open: open src/Main.java · Error: File src/Main.java not found")
	act("mvn test -Dtest=ReproduceTest", "mvn: mvn test -Dtest=ReproduceTest · /bin/bash: line 8919: mvn: command not found · 1 line")
	act("submit", "submit: submit · 1 line")
	ls := Lessons(s.entries)
	if len(ls) != 2 {
		t.Fatalf("lessons %+v", ls)
	}
	l := ls[0]
	if l.Command != "./mvnw test -Dtest=ReproduceTest" || l.Status != StatusAbandoned || len(l.Failures) != 2 ||
		l.Failures[0] != fail || l.Failures[1] != again || !strings.Contains(l.Error, "JAVA_HOME is not defined correctly") {
		t.Fatalf("lesson %+v", l)
	}
	if ls[1].Command != "mvn test -Dtest=ReproduceTest" || !strings.Contains(ls[1].Error, "command not found") {
		t.Fatalf("lesson %+v", ls[1])
	}
}

// TestLessonsCreditWhatMadeItPass: what made a failing command pass is
// told even when it is no edit: a lint fixed and then passed as the first
// command of a chain; a module directory made; a file checked out again
// in the same call as the passing run.
func TestLessonsCreditWhatMadeItPass(t *testing.T) {
	s := newSession(t, "chain")
	s.run("ruff check src/", 1, "Found 1 error.")
	fix := s.edit("src/app.py")
	pass := s.run("ruff check src/ && pytest", 0, "pytest: 66 passed")
	s.edit("src/other.py")
	s.run("ruff check src/", 0, "All checks passed!")
	ls := Lessons(s.entries)
	if len(ls) != 1 || ls[0].Status != StatusFixed || *ls[0].Pass != pass || len(ls[0].Fix) != 1 || ls[0].Fix[0].ID != fix {
		t.Fatalf("chained pass: %+v", ls)
	}

	s = newSession(t, "mkdir")
	s.run("python3 repro.py", 1, "ModuleNotFoundError: No module named 'app'")
	mk := s.run("mkdir app && touch app/__init__.py", 0, "")
	s.run("python3 repro.py", 0, "ok")
	if ls := Lessons(s.entries); len(ls) != 1 || ls[0].After == nil || ls[0].After.ID != mk ||
		!strings.Contains(ls[0].Text, "passed after touch app/__init__.py") {
		t.Fatalf("after mkdir: %+v", ls)
	}

	s = newSession(t, "checkout")
	s.run("pytest tests/test_py.py", 1, "pytest: 1 failed; FAIL test_py.py::test_x: AssertionError")
	s.run("git checkout src/py.py\npytest tests/test_py.py", 0, "pytest: 1 passed")
	if ls := Lessons(s.entries); len(ls) != 1 || !strings.Contains(ls[0].Text, "passed after git checkout src/py.py in the same call") {
		t.Fatalf("checked out: %+v", ls)
	}
}
