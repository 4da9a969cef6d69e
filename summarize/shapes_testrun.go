package summarize

import (
	"path"
	"strconv"
	"strings"

	"github.com/memex-archive/memex/internal/lazyre"
)

// Test-run summaries: which runner, the pass/fail counts it printed, and the
// first failing test with its message. Runners are recognised by the
// summary lines they print, not by the command, so that a test run wrapped
// in a script or make target is still recognised.

var (
	rePytestCounts = lazyre.New(`((?:\d+ (?:failed|passed|skipped|errors?|xfailed|xpassed|warnings?|deselected|rerun|expected to fail|exceptions?|unexpected passe?s?)(?:, )?)+),? in [\d.]+ ?s`)
	reUnittestRan  = lazyre.New(`^Ran (\d+) tests? in `)
	reUnittestHdr  = lazyre.New(`^(FAIL|ERROR): (\S+)(?: \((.*)\))?`)
	reGoFail       = lazyre.New(`^\s*--- FAIL: (\S+)`)
	reGoLoc        = lazyre.New(`^\s+\S+\.go:\d+: (.*)`)
	reCargoResult  = lazyre.New(`^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored`)
	reJestTests    = lazyre.New(`^Tests:\s+(.*?),?\s*(\d+) total`)
	reVitestTests  = lazyre.New(`^\s*Tests\s+(.*?)\s*\((\d+)\)\s*$`)
	reMvnTests     = lazyre.New(`Tests run: (\d+), Failures: (\d+), Errors: (\d+)(?:, Skipped: (\d+))?`)
	reMvnFailure   = lazyre.New(`^\[ERROR\] (\S+)\s+(?:Time elapsed.*)?<<< (?:FAILURE|ERROR)!`)
	reGradleFailed = lazyre.New(`^(\S+) > (.+) FAILED$`)
	reGradleCounts = lazyre.New(`(\d+) tests? completed, (\d+) failed(?:, (\d+) skipped)?`)
	reJUnitSuite   = lazyre.New(`<testsuites?\b[^>]*?\btests="(\d+)"[^>]*>`)
	reXMLAttr      = lazyre.New(`\b(failures|errors|skipped)="(\d+)"`)
	reJUnitCase    = lazyre.New(`<testcase\b[^>]*\bname="([^"]*)"`)
	reJUnitFail    = lazyre.New(`<(?:failure|error)\b[^>]*?\bmessage="([^"]*)"`)
	reAnsi         = lazyre.New("\x1b\\[[0-9;]*[A-Za-z]")
)

type testResult struct {
	runner string
	counts string
	label  string // "FAIL" (default) or "ERROR"
	first  string // first failing test
	msg    string // its message
}

func (r testResult) String() string {
	s := r.runner
	if r.counts != "" {
		s += ": " + r.counts
	}
	if r.first != "" || r.msg != "" {
		label := r.label
		if label == "" {
			label = "FAIL"
		}
		s += "; " + label
		if r.first != "" {
			s += " " + r.first
		}
		if r.msg != "" {
			s += ": " + r.msg
		}
	}
	return s
}

func testRun(d *doc) string {
	for _, f := range []func(*doc) (testResult, bool){pytestRun, goTestRun, cargoTestRun, jestRun, unittestRun, mavenRun, gradleRun, junitXML} {
		if r, ok := f(d); ok {
			if d.exit != nil && *d.exit != 0 && !r.failed() {
				// The tests passed but the command failed: what failed
				// came after them (a formatting check, a linter, make).
				if why := failureAfterTests(d); why != "" {
					return why + "; " + r.String()
				}
			}
			return r.String()
		}
	}
	return ""
}

// failed reports whether the result names a failure.
func (r testResult) failed() bool {
	if r.first != "" || r.msg != "" {
		return true
	}
	c := strings.ToLower(r.counts)
	for _, w := range []string{"failed", "error", "failures: ", "exception"} {
		if i := strings.Index(c, w); i >= 0 {
			// "0 failed", "Failures: 0" count nothing.
			before, after := strings.TrimSpace(c[:i]), c[i+len(w):]
			if strings.HasSuffix(before, " 0") || before == "0" || strings.HasPrefix(after, "0") {
				continue
			}
			return true
		}
	}
	return false
}

// failureAfterTests reads the lines after a passing test report's last
// counts line for what made the command fail: compiler or linter
// diagnostics, else the first line that reads as an error.
func failureAfterTests(d *doc) string {
	last := -1
	for i, l := range d.lines {
		if strings.Contains(l, " passed") || strings.HasPrefix(l, "test result: ") || strings.HasPrefix(l, "ok  \t") ||
			strings.HasPrefix(l, "Ran ") || strings.HasPrefix(strings.TrimSpace(l), "OK") || strings.HasPrefix(l, "PASS") ||
			strings.HasPrefix(l, "Tests:") || strings.Contains(l, "Tests run: ") {
			last = i
		}
	}
	if last < 0 || last+1 >= len(d.lines) {
		return ""
	}
	after := d.lines[last+1:]
	sub := *d
	sub.lines, sub.text = after, strings.Join(after, "\n")
	sub.marks = scanMarks(after)
	if s := compilerOutput(&sub); s != "" {
		return s
	}
	for _, l := range after {
		t := strings.TrimSpace(l)
		if low := strings.ToLower(t); strings.HasPrefix(low, "would reformat") || strings.HasPrefix(t, "make: *** ") || strings.HasPrefix(t, "npm ERR!") {
			return oneLine(t)
		}
	}
	return errorLine(after)
}

func pytestRun(d *doc) (testResult, bool) {
	var r testResult
	t := d.tally
	if t.pyCounts == "" && !d.marked(mCounts|mSession) && !d.has(" passed") && !d.has(" failed") {
		// Counts can sit behind a prefix (CI runners such as act print
		// "[job] | "), where the line markers do not see them.
		return r, false
	}
	// The last counts line of the whole output (the tally's) is the run's.
	r.counts = t.pyCounts
	found := r.counts != ""
	prog := d.program()
	isPytest := prog == "pytest" || prog == "py.test" || d.marked(mSession) && d.has("test session starts")
	isSympy := d.marked(mSession|mCounts) && (d.has("test process starts") || d.has("tests finished:"))
	if !found && !isPytest && !isSympy {
		return r, false
	}
	r.runner = "pytest"
	if isSympy && !isPytest {
		r.runner = "sympy test"
	}
	if !found && t.pyPassed+t.pyFailed+t.pyErrors+t.pySkp > 0 {
		// A verbose log that ended before its counts line (killed,
		// timed out): the tests it reported, all of them.
		r.counts, found = t.pytestVerboseCounts(), true
	}
	if !found {
		n := t.pyCollected
		if n == "" {
			// A pytest command that printed no counts (not installed,
			// crashed at import) is not a test report.
			return r, false
		}
		r.counts = n
	}
	// The short summary names the first failure with its message
	// ("FAILED path::test - AssertionError: ..."); the long report has the
	// "E   " lines under a "____ test ____" header.
	for _, l := range d.lines {
		if strings.HasPrefix(l, "FAILED ") || strings.HasPrefix(l, "ERROR ") {
			rest := l[strings.IndexByte(l, ' ')+1:]
			name, msg, _ := strings.Cut(rest, " - ")
			if strings.TrimSpace(name) != "" {
				r.first = testName(name)
			}
			r.msg = msg
			if strings.HasPrefix(l, "ERROR ") {
				r.label = "ERROR"
			}
			break
		}
	}
	hdr := -1
	for i, l := range d.lines {
		if strings.HasPrefix(l, "___") && strings.HasSuffix(strings.TrimSpace(l), "___") {
			name := strings.Trim(l, "_ ")
			if name == "" || strings.HasPrefix(name, "Captured") {
				continue
			}
			if isSympy && !isPytest && (i == 0 || !isRule(d.lines[i-1])) {
				// sympy's runner draws a rule of underscores above each
				// failure's header ("____ sympy/x/tests/test_y.py:test_z
				// ____"); a title without one heads a report section
				// ("slowest tests", "unexpectedly fast tests", "xpassed
				// tests") and names no test.
				continue
			}
			if r.first == "" || strings.HasSuffix(name, r.first) || strings.HasSuffix(r.first, name) {
				if r.first == "" {
					r.first = testName(name)
				}
				hdr = i
				break
			}
		}
	}
	if r.msg == "" && hdr < 0 && r.first != "" {
		// The header may lie in the part of the body a summary does not
		// see; the first "E   " line is then the best message.
		for _, l := range d.lines {
			if strings.HasPrefix(l, "E   ") {
				r.msg = strings.TrimSpace(l[1:])
				break
			}
		}
	}
	if r.msg == "" && hdr >= 0 {
		for _, l := range d.lines[hdr+1:] {
			if strings.HasPrefix(l, "E   ") {
				r.msg = strings.TrimSpace(l[1:])
				break
			}
			if strings.HasPrefix(l, "___") {
				break
			}
		}
		if r.msg == "" {
			// sympy's runner prints a Python traceback under the header.
			if ex, _ := pythonException(block(d.lines[hdr+1:], "___")); ex != "" {
				r.msg = ex
			}
		}
	}
	return r, true
}

// isRule reports whether l is a line of underscores only.
func isRule(l string) bool {
	l = strings.TrimRight(l, " \r")
	return strings.HasPrefix(l, "___") && strings.Trim(l, "_") == ""
}

// testName shortens "path/to/test_x.py::Class::test_y[param]" to its last
// two components, which is what a reader looks for.
func testName(s string) string {
	s = strings.TrimSpace(s)
	parts := strings.Split(s, "::")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	parts[0] = path.Base(parts[0])
	return strings.Join(parts, "::")
}

func unittestRun(d *doc) (testResult, bool) {
	var r testResult
	if !d.marked(mUnittest) {
		return r, false
	}
	ran := d.tally.ranN
	if ran != "" {
		r.counts = Plural(atoi(ran), "test")
		if o := d.tally.ranOutcome; o != "" {
			r.counts += ", " + o
		}
	}
	for i, l := range d.lines {
		if !strings.HasPrefix(l, "FAIL: ") && !strings.HasPrefix(l, "ERROR: ") {
			continue
		}
		m := reUnittestHdr().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		r.first, r.label = m[2], m[1]
		if m[3] != "" {
			r.first = lastDot(m[3]) + "." + m[2]
		}
		// The message is the exception line that ends the traceback.
		if ex, _ := pythonException(block(d.lines[i+1:], "=====")); ex != "" {
			r.msg = ex
		}
		break
	}
	if ran == "" && r.first == "" {
		return r, false
	}
	if ran == "" && !d.marked(mTraceback) {
		return r, false
	}
	r.runner = "unittest"
	if strings.Contains(d.cmd, "runtests.py") || strings.Contains(d.cmd, "manage.py test") {
		r.runner = "django tests"
	}
	return r, true
}

func lastDot(s string) string {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func goTestRun(d *doc) (testResult, bool) {
	var r testResult
	t := d.tally
	if !d.marked(mGoTest) || !t.goSeen {
		return r, false
	}
	r.runner = "go test"
	r.counts = t.goCounts()
	r.first, r.msg = t.goFirst, t.goMessage()
	return r, true
}

func cargoTestRun(d *doc) (testResult, bool) {
	var r testResult
	if !d.marked(mCargo) {
		return r, false
	}
	// A workspace prints one result line per crate: all of them count.
	pass, fail, ign, n := d.tally.cargoPass, d.tally.cargoFail, d.tally.cargoIgn, d.tally.cargoN
	if n == 0 {
		return r, false
	}
	r.runner = "cargo test"
	r.counts = strconv.Itoa(fail) + " failed, " + strconv.Itoa(pass) + " passed"
	if ign > 0 {
		r.counts += ", " + strconv.Itoa(ign) + " ignored"
	}
	for i, l := range d.lines {
		if strings.HasPrefix(l, "---- ") && strings.HasSuffix(l, " stdout ----") {
			r.first = strings.TrimSuffix(strings.TrimPrefix(l, "---- "), " stdout ----")
			for j := i + 1; j < len(d.lines) && j < i+8; j++ {
				n := d.lines[j]
				if k := strings.Index(n, "panicked at "); k >= 0 {
					rest := n[k+len("panicked at "):]
					if strings.HasSuffix(rest, ":") && j+1 < len(d.lines) {
						// Rust >= 1.73: location, then the message on
						// the next line.
						r.msg = strings.TrimSpace(d.lines[j+1]) + " at " + strings.TrimSuffix(rest, ":")
					} else {
						r.msg = rest
					}
					break
				}
			}
			break
		}
	}
	return r, true
}

func jestRun(d *doc) (testResult, bool) {
	var r testResult
	if !d.marked(mTests) {
		return r, false
	}
	r.runner, r.counts = d.tally.jsRunner, d.tally.jsCounts
	if r.runner == "" {
		return r, false
	}
	for i, l := range d.lines {
		l = strings.TrimSpace(stripAnsi(l))
		var name string
		switch {
		case strings.HasPrefix(l, "● ") && !strings.HasPrefix(l, "● Test suite failed"):
			name = strings.TrimPrefix(l, "● ")
		case r.runner == "vitest" && strings.HasPrefix(l, "FAIL ") && strings.Contains(l, " > "):
			name = strings.TrimSpace(strings.TrimPrefix(l, "FAIL "))
		default:
			continue
		}
		r.first = name
		for _, n := range d.lines[i+1:] {
			n = strings.TrimSpace(stripAnsi(n))
			if n != "" && !strings.HasPrefix(n, "❯") && !strings.HasPrefix(n, "⎯") {
				r.msg = n
				break
			}
		}
		break
	}
	return r, true
}

func stripAnsi(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	return reAnsi().ReplaceAllString(s, "")
}

func mavenRun(d *doc) (testResult, bool) {
	var r testResult
	if !d.marked(mTestsRun) {
		return r, false
	}
	last := d.tally.mvnLast
	if last == "" {
		return r, false
	}
	r.runner, r.counts = "maven", last
	if d.program() == "gradle" || d.program() == "gradlew" || d.program() == "./gradlew" {
		r.runner = "gradle"
	}
	for i, l := range d.lines {
		if !strings.HasPrefix(l, "[ERROR] ") || !strings.Contains(l, "<<< ") {
			continue
		}
		if m := reMvnFailure().FindStringSubmatch(l); m != nil {
			r.first = m[1]
			if i+1 < len(d.lines) {
				r.msg = strings.TrimSpace(d.lines[i+1])
			}
			break
		}
	}
	return r, true
}

func gradleRun(d *doc) (testResult, bool) {
	var r testResult
	if !d.marked(mGradle) {
		return r, false
	}
	r.counts = d.tally.gradleCounts
	for i, l := range d.lines {
		if !strings.HasSuffix(l, " FAILED") {
			continue
		}
		if m := reGradleFailed().FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			r.first = lastDot(m[1]) + " > " + m[2]
			if i+1 < len(d.lines) {
				r.msg = strings.TrimSpace(d.lines[i+1])
			}
			break
		}
	}
	if r.counts == "" && r.first == "" {
		return r, false
	}
	r.runner = "gradle"
	return r, true
}

func junitXML(d *doc) (testResult, bool) {
	var r testResult
	if !d.marked(mXML) {
		return r, false
	}
	i := strings.Index(d.text, "<testsuite")
	if i < 0 {
		return r, false
	}
	m := reJUnitSuite().FindStringSubmatch(d.text[i:])
	if m == nil {
		return r, false
	}
	r.runner = "junit"
	r.counts = m[1] + " tests"
	for _, a := range reXMLAttr().FindAllStringSubmatch(m[0], -1) {
		r.counts += ", " + a[2] + " " + a[1]
	}
	f := strings.Index(d.text, "<failure")
	if f < 0 {
		f = strings.Index(d.text, "<error")
	}
	if f >= 0 {
		if cs := reJUnitCase().FindAllStringSubmatch(d.text[:f], -1); len(cs) > 0 {
			r.first = xmlUnescape(cs[len(cs)-1][1])
		}
		if fm := reJUnitFail().FindStringSubmatch(d.text[f:]); fm != nil {
			r.msg = xmlUnescape(fm[1])
		}
	}
	return r, true
}

var xmlEntities = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'", "&amp;", "&", "&#10;", " ")

func xmlUnescape(s string) string { return xmlEntities.Replace(s) }

// block returns lines up to the first one starting with sep (the next
// failure's header), so a failure's message is never taken from the next.
func block(lines []string, sep string) []string {
	for i, l := range lines {
		if strings.HasPrefix(l, sep) {
			return lines[:i]
		}
	}
	return lines
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
