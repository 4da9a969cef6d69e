package summarize

import (
	"bytes"
	"strconv"
	"strings"
)

// Tally counts, over a whole body fed to it as it is written, what a
// summary reports as counts: test runners' pass and fail totals, the first
// failing Go test and its message, the line markers the shape detectors
// are gated on. A summary reads the rest (messages, first errors) from a
// bounded head and tail of the body, but a count read from those would be
// a count of the head: a go test -v log of 4,000 tests would read "1,556
// passed". A Tally holds a few strings and counters whatever the body's
// size: memory is bounded, not the count.
//
// Write never fails. A Tally is not safe for concurrent use. The zero value
// is ready to use.
type Tally struct {
	partial []byte // the unfinished last line, at most maxTallyLine bytes
	skip    bool   // the unfinished line is over maxTallyLine: drop it
	dirty   bool   // the bytes being read hold escapes or carriage returns

	marks uint32

	goSeen, goRun                bool // go test counts seen; an "=== RUN" seen
	goPass, goFail, goOK, goFPkg int
	goFirst, goMsg               string
	goAwait                      bool   // reading the lines under the first failure for its message
	goLoc, goPre                 string // the first file:line message since "=== RUN"; its value at the first failure

	pyCounts                            string // the last pytest counts line's counts
	pyCollected                         string
	pyPassed, pyFailed, pyErrors, pySkp int // per-test results of pytest -v

	cargoN, cargoPass, cargoFail, cargoIgn int

	ranN        string // the last "Ran N tests"
	ranOutcome  string
	awaitResult bool

	mvnLast      string
	gradleCounts string
	jsRunner     string
	jsCounts     string
}

// maxTallyLine bounds the bytes of one line a Tally looks at; the lines it
// counts are short, and a longer line is passed over.
const maxTallyLine = 4 << 10

// Write feeds the next bytes of the body.
func (t *Tally) Write(p []byte) (int, error) {
	n := len(p)
	t.dirty = t.dirty && len(t.partial) > 0 || bytes.IndexByte(p, 0x1b) >= 0 || bytes.IndexByte(p, '\r') >= 0
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.keep(p)
			break
		}
		if len(t.partial) == 0 && !t.skip {
			t.line(p[:i])
		} else {
			t.keep(p[:i])
			if !t.skip {
				t.line(t.partial)
			}
			t.partial, t.skip = t.partial[:0], false
		}
		p = p[i+1:]
	}
	return n, nil
}

func (t *Tally) keep(p []byte) {
	if t.skip {
		return
	}
	if len(t.partial)+len(p) > maxTallyLine {
		t.skip = true
		t.partial = t.partial[:0]
		return
	}
	t.partial = append(t.partial, p...)
}

// finish counts an unterminated last line.
func (t *Tally) finish() {
	if len(t.partial) > 0 && !t.skip {
		t.line(t.partial)
	}
	t.partial, t.skip = t.partial[:0], false
}

// line counts one line (without its newline). Most lines of most output
// count for nothing: the first byte (and for pytest -v the last) tells, so
// that they cost a few comparisons and no allocation.
func (t *Tally) line(b []byte) {
	if t.dirty && (bytes.IndexByte(b, 0x1b) >= 0 || bytes.IndexByte(b, '\r') >= 0) {
		b = []byte(Clean(string(b)))
	}
	k := 0
	for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
		k++
	}
	if k == len(b) {
		t.goAwait = false
		return
	}
	tb, indented := b[k:], k > 0
	goL, pyL, otherL := t.goAwait, false, t.awaitResult
	has := func(sub string) bool { return bytes.Contains(tb, []byte(sub)) }
	switch c := tb[0]; {
	case c == '-' && bytes.HasPrefix(tb, []byte("--- ")),
		c == 'o' && bytes.HasPrefix(tb, []byte("ok ")),
		c == 'F' && bytes.HasPrefix(tb, []byte("FAIL")):
		goL = true
	case c == '=':
		goL = bytes.HasPrefix(tb, []byte("=== RUN"))
		pyL = !goL
	case c >= '0' && c <= '9':
		pyL = has(" in ")
		otherL = has(" completed, ")
	case c == '[':
		pyL = has(" passed") || has(" failed")
		otherL = has("Tests run: ")
	case c == 'c' && bytes.HasPrefix(tb, []byte("collected ")):
		pyL = true
	case c == 't' && (bytes.HasPrefix(tb, []byte("test result: ")) || bytes.HasPrefix(tb, []byte("tests finished"))):
		pyL, otherL = true, true
	case c == 'R' && bytes.HasPrefix(tb, []byte("Ran ")), c == 'T' && bytes.HasPrefix(tb, []byte("Tests")):
		otherL = true
	case indented && t.goRun && has(".go:"):
		goL = true
	default:
		// pytest -v: "path::test PASSED   [ 10%]".
		last := tb[len(tb)-1]
		if (last == ']' || last == 'D' || last == 'R') && bytes.Contains(tb, []byte("::")) {
			t.pytestVerbose(string(tb))
		}
	}
	if !goL && !pyL && !otherL {
		if t.goAwait && !indented {
			t.goAwait = false
		}
		return
	}
	l := string(b)
	t.marks |= markLine(l)
	if goL {
		t.goLine(l)
	}
	if pyL {
		t.pytestLine(l)
	}
	if otherL {
		t.otherRunners(l)
	}
}

func (t *Tally) goLine(l string) {
	if t.goAwait {
		switch {
		case reGoLoc().MatchString(l):
			t.goMsg, t.goAwait = strings.TrimSpace(l), false
			return
		case strings.Contains(l, "--- ") || !strings.HasPrefix(l, " "):
			t.goAwait = false
		}
	}
	switch {
	case strings.HasPrefix(l, "=== RUN"):
		t.goLoc, t.goRun = "", true
	case t.goLoc == "" && strings.HasPrefix(l, " ") && strings.Contains(l, ".go:") && reGoLoc().MatchString(l):
		// go test -v prints a test's messages before its --- FAIL line.
		t.goLoc = strings.TrimSpace(l)
	case strings.HasPrefix(strings.TrimSpace(l), "--- PASS"):
		t.goPass++
		t.goSeen = true
	case strings.Contains(l, "--- FAIL: "):
		m := reGoFail().FindStringSubmatch(l)
		if m == nil {
			return
		}
		t.goFail++
		t.goSeen = true
		// The deepest subtest of the first failure names it.
		if t.goFirst == "" || strings.HasPrefix(m[1], t.goFirst+"/") {
			t.goFirst, t.goMsg, t.goAwait = m[1], "", true
			if t.goPre == "" {
				t.goPre = t.goLoc
			}
		}
	case strings.HasPrefix(l, "ok  \t") || strings.HasPrefix(l, "ok \t") || (strings.HasPrefix(l, "ok ") && strings.Contains(l, "\t")):
		t.goOK++
		t.goSeen = true
	case strings.HasPrefix(l, "FAIL\t") || (strings.HasPrefix(l, "FAIL ") && strings.Contains(l, "\t")):
		t.goFPkg++
		t.goSeen = true
	}
}

var pytestVerdicts = []struct {
	word string
	n    func(*Tally) *int
}{
	{" PASSED", func(t *Tally) *int { return &t.pyPassed }},
	{" FAILED", func(t *Tally) *int { return &t.pyFailed }},
	{" ERROR", func(t *Tally) *int { return &t.pyErrors }},
	{" SKIPPED", func(t *Tally) *int { return &t.pySkp }},
}

func (t *Tally) pytestLine(l string) {
	if strings.Contains(l, " in ") && (strings.Contains(l, "passed") || strings.Contains(l, "failed") || strings.Contains(l, "error") || strings.Contains(l, "exception") || strings.Contains(l, "skipped")) {
		if m := rePytestCounts().FindStringSubmatch(l); m != nil {
			t.pyCounts = strings.TrimSuffix(strings.TrimSpace(m[1]), ",")
		}
	}
	if t.pyCollected == "" && strings.HasPrefix(l, "collected ") {
		t.pyCollected = strings.TrimSpace(l)
	}
	if strings.Contains(l, "::") {
		t.pytestVerbose(strings.TrimLeft(l, " \t"))
	}
}

// pytestVerbose counts a pytest -v result line, "path::test PASSED [ 10%]";
// the short summary's "FAILED path::test - msg" starts with its verdict and
// is not counted.
func (t *Tally) pytestVerbose(l string) {
	i := strings.Index(l, "::")
	if i <= 0 || strings.HasPrefix(l, "FAILED ") || strings.HasPrefix(l, "ERROR ") {
		return
	}
	for _, v := range pytestVerdicts {
		if j := strings.Index(l[i:], v.word); j >= 0 {
			rest := l[i+j+len(v.word):]
			if rest == "" || rest[0] == ' ' {
				*v.n(t)++
			}
			return
		}
	}
}

func (t *Tally) otherRunners(l string) {
	switch {
	case strings.HasPrefix(l, "test result: "):
		if m := reCargoResult().FindStringSubmatch(l); m != nil {
			t.cargoN++
			t.cargoPass += atoi(m[2])
			t.cargoFail += atoi(m[3])
			t.cargoIgn += atoi(m[4])
		}
	case strings.HasPrefix(l, "Ran "):
		if m := reUnittestRan().FindStringSubmatch(l); m != nil {
			t.ranN, t.ranOutcome, t.awaitResult = m[1], "", true
			return
		}
	}
	if t.awaitResult {
		// The outcome follows "Ran N tests": "OK", "OK (skipped=2)" or
		// "FAILED (failures=3, errors=1)".
		if o := strings.TrimSpace(l); strings.HasPrefix(o, "FAILED") || strings.HasPrefix(o, "OK") {
			t.ranOutcome, t.awaitResult = o, false
		}
	}
	if strings.Contains(l, "Tests run: ") {
		if m := reMvnTests().FindStringSubmatch(l); m != nil && !strings.Contains(l, " - in ") && !strings.Contains(l, "Time elapsed") {
			t.mvnLast = "Tests run: " + m[1] + ", Failures: " + m[2] + ", Errors: " + m[3]
			if m[4] != "" {
				t.mvnLast += ", Skipped: " + m[4]
			}
		} else if m != nil && t.mvnLast == "" {
			t.mvnLast = "Tests run: " + m[1] + ", Failures: " + m[2] + ", Errors: " + m[3]
		}
	}
	if strings.Contains(l, " completed, ") {
		if m := reGradleCounts().FindStringSubmatch(l); m != nil {
			t.gradleCounts = m[0]
		}
	}
	if strings.HasPrefix(l, "Tests:") {
		if m := reJestTests().FindStringSubmatch(l); m != nil {
			t.jsRunner, t.jsCounts = "jest", strings.TrimSuffix(m[1], ",")+" of "+m[2]
		}
	} else if strings.HasPrefix(strings.TrimSpace(l), "Tests ") && strings.Contains(l, "(") {
		if m := reVitestTests().FindStringSubmatch(l); m != nil && (strings.Contains(m[1], "passed") || strings.Contains(m[1], "failed")) {
			t.jsRunner, t.jsCounts = "vitest", strings.ReplaceAll(m[1], " | ", ", ")+" of "+m[2]
		}
	}
}

// goMessage is the first failure's message: the file:line line under its
// --- FAIL line, else (go test -v) the first one printed before it.
func (t *Tally) goMessage() string {
	if t.goMsg != "" {
		return t.goMsg
	}
	return t.goPre
}

// goCounts is go test's counts: tests failed and passed, packages.
func (t *Tally) goCounts() string {
	var parts []string
	if t.goFail > 0 || t.goPass > 0 {
		parts = append(parts, strconv.Itoa(t.goFail)+" failed", strconv.Itoa(t.goPass)+" passed")
	}
	switch {
	case t.goFPkg > 0:
		parts = append(parts, strconv.Itoa(t.goFPkg)+" of "+strconv.Itoa(t.goOK+t.goFPkg)+" packages failed")
	case t.goOK > 0:
		parts = append(parts, Plural(t.goOK, "package")+" ok")
	}
	return strings.Join(parts, ", ")
}

// pytestVerboseCounts is the per-test counts of a pytest -v log that ended
// before its counts line (killed, timed out), in pytest's words.
func (t *Tally) pytestVerboseCounts() string {
	var parts []string
	for _, c := range []struct {
		n    int
		word string
	}{{t.pyFailed, "failed"}, {t.pyPassed, "passed"}, {t.pySkp, "skipped"}, {t.pyErrors, "errors"}} {
		if c.n > 0 {
			parts = append(parts, strconv.Itoa(c.n)+" "+c.word)
		}
	}
	return strings.Join(parts, ", ")
}
