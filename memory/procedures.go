package memory

import (
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// Procedures are the ways a project's tests, builds, linters and services
// are run, learned from the runs its sessions made. Runs are grouped by
// family (test, build, lint, typecheck, format, serve, install) and, in a
// family, by invocation: the program with the subcommand or script that
// makes it what it is ("go test", "python3 tests/runtests.py", "npm run
// build"). An invocation is a procedure once it passed often enough (see
// Rule); its steps are what most of its passing runs did (a cd, an
// environment variable, the command with its usual kind of target and
// flags), and every other way its passing runs went is a variant that
// records only what differs (a residual tree of depth one: one package,
// one test, a flag, PYTHONPATH set). Every step and variant counts the
// runs it was seen in and cites the passing ones, the last first.

// Observation is one run of a command of a family, as procedures learn
// from it.
type Observation struct {
	ID      memex.ID `json:"i"`
	Session string   `json:"s,omitempty"`
	Family  string   `json:"f"`
	Words   []string `json:"w"`
	Env     []string `json:"e,omitempty"`
	Setup   []string `json:"u,omitempty"`
	Pass    bool     `json:"p,omitempty"`
}

// Observations are the runs of family commands among entries whose
// outcome is known (see Lessons for what counts as a failure).
func Observations(entries []memex.Entry) []Observation {
	var out []Observation
	for _, e := range entries {
		c, ok := runCommand(e)
		if !ok || c.Family == "" {
			continue
		}
		o := runOutcome(e, c)
		if o == outcomeUnknown {
			continue
		}
		out = append(out, Observation{ID: e.ID, Session: e.Session, Family: c.Family, Words: c.Words, Env: c.Env, Setup: c.Setup, Pass: o == outcomePassed})
	}
	return out
}

// Rule says when runs make a procedure. The zero value is DefaultRule.
type Rule struct {
	// MinPasses and MinSessions: an invocation is a procedure once it
	// passed at least MinPasses times in at least MinSessions sessions.
	MinPasses, MinSessions int
	// MinVariantPasses: a way of running it other than its steps is a
	// variant once it passed that many times.
	MinVariantPasses int
}

// DefaultRule consolidates an invocation after 3 passing runs in 2
// sessions, and a variant after 2 passing runs: once is chance, twice in
// one session may be one task's need; three passes across sessions is how
// the project is worked on.
var DefaultRule = Rule{MinPasses: 3, MinSessions: 2, MinVariantPasses: 2}

func (r Rule) orDefault() Rule {
	if r.MinPasses <= 0 {
		return DefaultRule
	}
	if r.MinSessions <= 0 {
		r.MinSessions = 1
	}
	if r.MinVariantPasses <= 0 {
		r.MinVariantPasses = 1
	}
	return r
}

// Procedure is one consolidated way of doing what its family does in a
// project. Rank 1 is the family's usual way; higher ranks are other ways
// that passed often enough too.
type Procedure struct {
	Family     string `json:"family"`
	Rank       int    `json:"rank"`
	Invocation string `json:"invocation"`
	// Command is the usual command line with its varying parts named:
	// "python3 tests/runtests.py <module>".
	Command string  `json:"command"`
	Steps   []PStep `json:"steps"`
	// Seen counts the runs of the invocation, Passed those that passed,
	// Sessions the sessions that passed it; LastPassed is the last run
	// that passed and Example its command line as run.
	Seen       int      `json:"seen"`
	Passed     int      `json:"passed"`
	Sessions   int      `json:"sessions"`
	LastPassed memex.ID `json:"last_passed"`
	Example    string   `json:"example"`
	// Runs are the passing runs cited, the last first (at most
	// maxCited).
	Runs     []memex.ID `json:"runs"`
	Variants []Variant  `json:"variants,omitempty"`
	// form is the key of the usual form (see RunKeys).
	form string
	// Other counts the passing runs that went another way, each too
	// rarely to be a variant.
	Other int `json:"other,omitempty"`
}

// PStep is one step of a procedure: a cd, an environment setting, an
// activation, the command.
type PStep struct {
	Text       string     `json:"text"`
	Seen       int        `json:"seen"`
	Passed     int        `json:"passed"`
	LastPassed memex.ID   `json:"last_passed"`
	Runs       []memex.ID `json:"runs"`
}

// Variant is a way of running a procedure that differs from its steps:
// Delta says how ("one test", "+ PYTHONPATH=.", "+ -k <value>"), Command
// is the whole command line with its varying parts named.
type Variant struct {
	Delta      string     `json:"delta"`
	Command    string     `json:"command"`
	Seen       int        `json:"seen"`
	Passed     int        `json:"passed"`
	LastPassed memex.ID   `json:"last_passed"`
	Example    string     `json:"example"`
	Runs       []memex.ID `json:"runs"`
	form       string
}

// Forms are the keys (see RunKeys) of the procedure's usual form and of
// its variants, in the order the procedure lists them.
func (p Procedure) Forms() []string {
	out := []string{p.form}
	for _, v := range p.Variants {
		out = append(out, v.form)
	}
	return out
}

// RunKeys name a run at three levels, for measures: its command line as
// run (without cd and environment), its invocation, and its form (the
// invocation, the names of its flags and the kind of its targets).
func RunKeys(o Observation) (command, invocationKey, formKey string) {
	n := invocation(o.Words)
	base := strings.Join(o.Words[:n], " ")
	return strings.Join(o.Words, " "), base, keyOf(base, formOf(o, n))
}

// keyOf is the key of a form of an invocation.
func keyOf(base string, f form) string {
	w := []string{base}
	for _, fl := range f.flags {
		name, _, _ := strings.Cut(fl, "=")
		w = append(w, name)
	}
	if f.targets != "" {
		w = append(w, f.targets)
	}
	return strings.Join(w, " ")
}

const maxCited = 5

// Families in the order procedures list them.
var familyOrder = []string{FamilyTest, FamilyBuild, FamilyLint, FamilyTypecheck, FamilyFormat, FamilyServe, FamilyInstall}

// CheckFamily is nil for "" (every family) and the families there are,
// else memex.ErrInvalid naming them.
func CheckFamily(f string) error {
	if f == "" || slices.Contains(familyOrder, f) {
		return nil
	}
	return memex.Errorf(memex.ErrInvalid, "procedures: family %q: want one of %s", f, strings.Join(familyOrder, ", "))
}

// run is an observation read for procedures.
type run struct {
	Observation
	base  string
	form  form
	order int
}

// form is how a run went beside its invocation.
type form struct {
	targets string   // the kind of its targets: "", "<path>", "<module>", "<test>", "<path> ...", literal "./..."
	flags   []string // flag names, with "=value" when given one
	env     []string
	setup   []string
}

// BuildProcedures learns the procedures from observations (in time
// order) under rule r.
func BuildProcedures(obs []Observation, r Rule) []Procedure {
	r = r.orDefault()
	byFamily := map[string]map[string][]*run{}
	for i, o := range obs {
		if len(o.Words) == 0 {
			continue
		}
		n := invocation(o.Words)
		ru := &run{Observation: o, base: strings.Join(o.Words[:n], " "), order: i}
		ru.form = formOf(o, n)
		if byFamily[o.Family] == nil {
			byFamily[o.Family] = map[string][]*run{}
		}
		byFamily[o.Family][ru.base] = append(byFamily[o.Family][ru.base], ru)
	}
	var out []Procedure
	for _, fam := range families(byFamily) {
		var ps []Procedure
		for base, runs := range byFamily[fam] {
			if p, ok := procedureOf(fam, base, runs, r); ok {
				ps = append(ps, p)
			}
		}
		sort.Slice(ps, func(i, j int) bool {
			a, b := ps[i], ps[j]
			if a.Passed != b.Passed {
				return a.Passed > b.Passed
			}
			if a.Sessions != b.Sessions {
				return a.Sessions > b.Sessions
			}
			if c := a.LastPassed.Compare(b.LastPassed); c != 0 {
				return c > 0
			}
			return a.Invocation < b.Invocation
		})
		for i := range ps {
			ps[i].Rank = i + 1
		}
		out = append(out, ps...)
	}
	return out
}

func families(m map[string]map[string][]*run) []string {
	var out []string
	for _, f := range familyOrder {
		if m[f] != nil {
			out = append(out, f)
		}
	}
	return out
}

func procedureOf(fam, base string, runs []*run, r Rule) (Procedure, bool) {
	p := Procedure{Family: fam, Invocation: base}
	sessions := map[string]bool{}
	var passed []*run
	for _, ru := range runs {
		p.Seen++
		if ru.Pass {
			passed = append(passed, ru)
			sessions[ru.Session] = true
		}
	}
	p.Passed, p.Sessions = len(passed), len(sessions)
	if p.Passed < r.MinPasses || p.Sessions < r.MinSessions {
		return Procedure{}, false
	}
	constant := constantFlags(runs)
	for _, ru := range runs {
		ru.form.flags = valued(ru.form.flags, constant)
	}
	last := passed[len(passed)-1]
	p.LastPassed, p.Example = last.ID, exampleOf(last.Observation)
	p.Runs = cite(passed, func(*run) bool { return true })

	// The steps: what most passing runs did.
	usual := usualForm(passed)
	for _, s := range usual.setup {
		p.Steps = append(p.Steps, stepOf(s, runs, func(ru *run) bool { return contains(ru.form.setup, s) }))
	}
	for _, v := range usual.env {
		p.Steps = append(p.Steps, stepOf("set "+v, runs, func(ru *run) bool { return contains(ru.form.env, v) }))
	}
	p.Command, p.form = commandOf(base, usual), keyOf(base, usual)
	for i := len(passed) - 1; i >= 0; i-- {
		if delta(usual, passed[i].form) == "" {
			p.Example = exampleOf(passed[i].Observation)
			break
		}
	}
	p.Steps = append(p.Steps, stepOf(p.Command, runs, func(*run) bool { return true }))

	// The variants: every other way passing runs went, by what differs.
	type group struct {
		delta, command, key string
		runs                []*run
	}
	groups := map[string]*group{}
	for _, ru := range runs {
		d := delta(usual, ru.form)
		if d == "" {
			continue
		}
		g := groups[d]
		if g == nil {
			g = &group{delta: d, command: commandOf(base, ru.form), key: keyOf(base, ru.form)}
			groups[d] = g
		}
		g.runs = append(g.runs, ru)
	}
	for _, g := range groups {
		v := Variant{Delta: g.delta, Command: g.command, form: g.key}
		var ok []*run
		for _, ru := range g.runs {
			v.Seen++
			if ru.Pass {
				ok = append(ok, ru)
			}
		}
		v.Passed = len(ok)
		if v.Passed < r.MinVariantPasses {
			p.Other += v.Passed
			continue
		}
		v.LastPassed, v.Example = ok[len(ok)-1].ID, exampleOf(ok[len(ok)-1].Observation)
		v.Runs = cite(ok, func(*run) bool { return true })
		p.Variants = append(p.Variants, v)
	}
	sort.Slice(p.Variants, func(i, j int) bool {
		a, b := p.Variants[i], p.Variants[j]
		if a.Passed != b.Passed {
			return a.Passed > b.Passed
		}
		return a.Delta < b.Delta
	})
	return p, true
}

// cite lists the IDs of the runs that keep says, the last first, at most
// maxCited.
func cite(runs []*run, keep func(*run) bool) []memex.ID {
	var out []memex.ID
	for i := len(runs) - 1; i >= 0 && len(out) < maxCited; i-- {
		if keep(runs[i]) {
			out = append(out, runs[i].ID)
		}
	}
	return out
}

func stepOf(text string, runs []*run, has func(*run) bool) PStep {
	s := PStep{Text: text}
	var ok []*run
	for _, ru := range runs {
		if !has(ru) {
			continue
		}
		s.Seen++
		if ru.Pass {
			ok = append(ok, ru)
		}
	}
	s.Passed = len(ok)
	if len(ok) > 0 {
		s.LastPassed = ok[len(ok)-1].ID
	}
	s.Runs = cite(ok, func(*run) bool { return true })
	return s
}

// usualForm is what most passing runs did: the setup steps, variables and
// flags more than half of them had, and their most common kind of target.
func usualForm(passed []*run) form {
	var f form
	half := len(passed) / 2
	count := func(get func(form) []string) []string {
		n := map[string]int{}
		var order []string
		for _, ru := range passed {
			for _, v := range get(ru.form) {
				if n[v] == 0 {
					order = append(order, v)
				}
				n[v]++
			}
		}
		var out []string
		for _, v := range order {
			if n[v] > half {
				out = append(out, v)
			}
		}
		return out
	}
	f.setup = count(func(f form) []string { return f.setup })
	f.env = count(func(f form) []string { return f.env })
	f.flags = count(func(f form) []string { return f.flags })
	sort.Strings(f.env)
	sort.Strings(f.flags)
	kinds := map[string]int{}
	best, bestN := "", -1
	for _, ru := range passed {
		kinds[ru.form.targets]++
	}
	for _, ru := range passed { // first seen wins ties: deterministic
		if k := ru.form.targets; kinds[k] > bestN {
			best, bestN = k, kinds[k]
		}
	}
	f.targets = best
	return f
}

// delta says how form f differs from the usual one u; "" when it does
// not.
func delta(u, f form) string {
	var parts []string
	if f.targets != u.targets {
		parts = append(parts, targetDelta(f.targets))
	}
	for _, v := range minus(f.flags, u.flags) {
		parts = append(parts, "+ "+flagText(v))
	}
	for _, v := range minus(u.flags, f.flags) {
		parts = append(parts, "without "+flagText(v))
	}
	for _, v := range minus(f.env, u.env) {
		parts = append(parts, "+ "+v)
	}
	for _, v := range minus(u.env, f.env) {
		parts = append(parts, "without "+v)
	}
	for _, v := range minus(f.setup, u.setup) {
		parts = append(parts, "+ "+v)
	}
	for _, v := range minus(u.setup, f.setup) {
		parts = append(parts, "without "+v)
	}
	return strings.Join(parts, ", ")
}

func targetDelta(t string) string {
	switch t {
	case "":
		return "no target (everything)"
	case "<test>":
		return "one test"
	case "<path>":
		return "one file or directory"
	case "<module>":
		return "one module"
	}
	if strings.HasSuffix(t, " ...") {
		return "several targets"
	}
	return "target " + t
}

func flagText(f string) string { return strings.Replace(f, "=", " ", 1) }

func minus(a, b []string) []string {
	var out []string
	for _, v := range a {
		if !contains(b, v) {
			out = append(out, v)
		}
	}
	return out
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// commandOf writes a form of an invocation as a command line.
func commandOf(base string, f form) string {
	var w []string
	for _, s := range f.setup {
		w = append(w, s, "&&")
	}
	w = append(w, f.env...)
	w = append(w, base)
	for _, fl := range f.flags {
		w = append(w, flagText(fl))
	}
	if f.targets != "" {
		w = append(w, f.targets)
	}
	return strings.Join(w, " ")
}

func exampleOf(o Observation) string {
	var w []string
	for _, s := range o.Setup {
		w = append(w, s, "&&")
	}
	w = append(w, o.Env...)
	for _, x := range o.Words {
		w = append(w, shellQuote(x))
	}
	return strings.Join(w, " ")
}

// shellQuote quotes a word for a shell when it needs it.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	for _, c := range s {
		if !(c == '-' || c == '_' || c == '.' || c == '/' || c == ':' || c == '=' || c == '@' || c == ',' || c == '+' || c == '%' ||
			c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// invocation is how many words of a command name what it runs: the
// program, and its subcommand or script when it has one.
func invocation(w []string) int {
	if len(w) < 2 || strings.HasPrefix(w[1], "-") && !(strings.HasPrefix(path.Base(w[0]), "python") && w[1] == "-m") {
		return 1
	}
	prog := path.Base(w[0])
	switch {
	case strings.HasPrefix(prog, "python"):
		if w[1] == "-m" && len(w) > 2 {
			return 3
		}
		if len(w) > 2 && (path.Base(w[1]) == "manage.py" || path.Base(w[1]) == "setup.py") && !strings.HasPrefix(w[2], "-") {
			return 3
		}
		return 2
	case prog == "uv" || prog == "poetry" || prog == "pipenv" || prog == "pdm" || prog == "hatch" || prog == "rye":
		if w[1] == "run" && len(w) > 2 {
			return 2 + invocation(w[2:])
		}
		return 2
	case prog == "npx" || prog == "bunx" || prog == "pnpx":
		return 1 + invocation(w[1:])
	case prog == "bundle" && w[1] == "exec" && len(w) > 2:
		return 2 + invocation(w[2:])
	case prog == "npm" || prog == "yarn" || prog == "pnpm" || prog == "bun":
		if (w[1] == "run" || w[1] == "run-script") && len(w) > 2 {
			return 3
		}
		return 2
	case prog == "docker" || prog == "podman":
		if w[1] == "compose" && len(w) > 2 {
			return 3
		}
		return 2
	case prog == "manage.py" || prog == "setup.py":
		return 2
	}
	switch prog {
	case "go", "cargo", "make", "gmake", "just", "task", "mvn", "mvnw", "gradle", "gradlew", "sbt", "dotnet", "swift", "mix", "zig",
		"rails", "git", "docker-compose", "deno", "flask", "next", "vite", "ruff", "tox", "nox", "pip", "pip3", "conda", "playwright", "npm-run":
		return 2
	}
	return 1
}

// valueFlags take a value as their next word.
var valueFlags = map[string]bool{"-k": true, "-m": true, "-o": true, "-p": true, "-c": true, "-n": true, "-j": true, "-t": true,
	"-run": true, "-bench": true, "-count": true, "-timeout": true, "-tags": true, "-coverprofile": true, "-skip": true,
	"--settings": true, "--parallel": true, "--verbosity": true, "--filter": true, "-g": true, "--grep": true,
	"--testNamePattern": true, "--project": true, "--config": true, "--package": true, "--features": true, "--maxfail": true,
	"--durations": true, "--cov": true, "--cov-report": true, "--tb": true, "-e": true, "--env": true, "--target": true,
	"--workspace-dir": true, "--port": true, "--host": true, "-P": true, "-f": true, "--file": true, "--reporter": true}

// selectors pick tests by name: a run with one picks tests, whatever
// else it names.
var selectors = map[string]bool{"-k": true, "-run": true, "-t": true, "--filter": true, "-g": true, "--grep": true, "--testNamePattern": true}

// formOf reads the flags and targets of a run past its first n words.
func formOf(o Observation, n int) form {
	f := form{env: append([]string{}, o.Env...), setup: append([]string{}, o.Setup...)}
	var targets []string
	args := o.Words[n:]
	picks := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			name, value, hasValue := strings.Cut(a, "=")
			if !hasValue && valueFlags[name] && i+1 < len(args) {
				value, hasValue = args[i+1], true
				i++
			}
			if selectors[name] {
				picks = true
			}
			if hasValue {
				f.flags = append(f.flags, name+"="+value)
			} else {
				f.flags = append(f.flags, name)
			}
			continue
		}
		targets = append(targets, a)
	}
	sort.Strings(f.flags)
	f.targets = targetKinds(targets)
	if picks && (f.targets == "" || f.targets == "<path>" || f.targets == "<module>") {
		f.targets = "<test>"
		f.flags = dropSelectorValues(f.flags)
	}
	return f
}

// dropSelectorValues leaves the selector flags without their values: the
// test they pick is the target.
func dropSelectorValues(flags []string) []string {
	var out []string
	for _, fl := range flags {
		name, _, _ := strings.Cut(fl, "=")
		if selectors[name] {
			continue
		}
		out = append(out, fl)
	}
	return out
}

// targetKinds names the kind of a run's targets.
func targetKinds(ts []string) string {
	if len(ts) == 0 {
		return ""
	}
	kinds := map[string]bool{}
	var first string
	for _, t := range ts {
		k := targetKind(t)
		if first == "" {
			first = k
		}
		kinds[k] = true
	}
	if len(ts) == 1 {
		return first
	}
	if len(kinds) == 1 {
		return first + " ..."
	}
	return "<target> ..."
}

func targetKind(t string) string {
	switch t {
	case "./...", ".", "...", "all", "./":
		return t
	}
	if strings.Contains(t, "::") {
		return "<test>"
	}
	if strings.Contains(t, "/") || hasExt(t) {
		return "<path>"
	}
	// A dotted label naming a class or a test in it (Django's
	// app.tests.Class.test_x), or a test function.
	parts := strings.Split(t, ".")
	for _, p := range parts[1:] {
		if p != "" && (p[0] >= 'A' && p[0] <= 'Z') {
			return "<test>"
		}
	}
	if len(parts) == 1 && strings.HasPrefix(t, "Test") {
		return "<test>"
	}
	return "<module>"
}

func hasExt(t string) bool {
	ext := path.Ext(t)
	switch ext {
	case ".py", ".go", ".js", ".ts", ".tsx", ".jsx", ".rb", ".rs", ".java", ".kt", ".c", ".cc", ".cpp", ".h", ".php", ".cs", ".swift", ".json", ".toml", ".yaml", ".yml", ".sh", ".md", ".rst", ".txt", ".cfg", ".ini", ".html", ".css":
		return true
	}
	return false
}

// constantFlags lists the flags whose value was the same in every run
// that gave it one.
func constantFlags(runs []*run) map[string]bool {
	values := map[string]map[string]bool{}
	for _, ru := range runs {
		for _, fl := range ru.form.flags {
			name, value, ok := strings.Cut(fl, "=")
			if !ok {
				continue
			}
			if values[name] == nil {
				values[name] = map[string]bool{}
			}
			values[name][value] = true
		}
	}
	out := map[string]bool{}
	for name, vs := range values {
		out[name] = len(vs) == 1
	}
	return out
}

// valued writes the flags whose value varies across runs as
// "name=<value>".
func valued(flags []string, constant map[string]bool) []string {
	out := make([]string, len(flags))
	for i, fl := range flags {
		name, _, ok := strings.Cut(fl, "=")
		if ok && !constant[name] {
			fl = name + "=<value>"
		}
		out[i] = fl
	}
	sort.Strings(out)
	return out
}

// ProcedureLine is a procedure on one line: its family, command and
// counts, with the last passing run's ID.
func ProcedureLine(p Procedure) string {
	return p.Family + ": " + p.Command + " · passed " + strconv.Itoa(p.Passed) + " of " + strconv.Itoa(p.Seen) +
		" runs in " + summarize.Plural(p.Sessions, "session") + " · last passed " + p.LastPassed.String()
}
