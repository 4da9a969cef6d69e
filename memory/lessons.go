package memory

import (
	"encoding/json"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/internal/lazyre"
)

// KindLesson is the kind of the entries that hold failure lessons.
const KindLesson = memex.KindLesson

// Statuses of a lesson: how its failure episode ended.
const (
	// StatusFixed: the same command passed later in the session.
	StatusFixed = "fixed"
	// StatusReverted: it never passed, and edits made after it failed
	// were undone.
	StatusReverted = "reverted"
	// StatusAbandoned: it never passed, and the session went on to other
	// things.
	StatusAbandoned = "abandoned"
)

// Lesson is one failure episode of a session and how it ended. Every
// field that names an entry holds its ID: the evidence can always be read.
type Lesson struct {
	Project string `json:"project"`
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	Status  string `json:"status"`
	// Command is the main command that failed (see Command.Line); Family
	// what it is for ("test", "build", ... or "").
	Command string `json:"command"`
	Family  string `json:"family,omitempty"`
	// Error is what the first failure's summary says went wrong;
	// Signature the same with numbers, hex and paths of temporary
	// directories blanked, to tell the same failure again.
	Error     string `json:"error"`
	Signature string `json:"signature"`
	// Failures are the failing runs of the command, first first.
	Failures []memex.ID `json:"failures"`
	// Fix are the files edited between the first failure and the pass
	// (or the end of the session), each with its last edit; Undone the
	// edits of that span that were reverted, with the entry that undid
	// them.
	Fix    []FileEdit `json:"fix,omitempty"`
	Undone []FileEdit `json:"undone,omitempty"`
	// Pass is the run of the same command that passed (fixed); Env what
	// it set that the failing run did not; After the last other command
	// that succeeded in between, when no file was edited.
	Pass  *memex.ID `json:"pass,omitempty"`
	Env   []string  `json:"env,omitempty"`
	After *Step     `json:"after,omitempty"`
	// Instead is another command of the same family that passed after the
	// failure, when the command itself never did ("pytest" not found,
	// "bin/test" passed).
	Instead *Step `json:"instead,omitempty"`
	// Text is the lesson's line; At the time of its last evidence.
	Text string    `json:"text"`
	At   time.Time `json:"at"`
}

// FileEdit is a file and the entry that edited it (or undid its edits).
type FileEdit struct {
	Path string   `json:"path"`
	ID   memex.ID `json:"id"`
	// By is the entry whose edit was undone (Undone only).
	By *memex.ID `json:"by,omitempty"`
}

// Step is a command and the entry that ran it.
type Step struct {
	Command string   `json:"command"`
	ID      memex.ID `json:"id"`
}

// Key is what identifies a lesson's episode across distillations: its
// first failure.
func (l Lesson) Key() memex.ID { return l.Failures[0] }

// Cites lists every entry the lesson cites, in ID order.
func (l Lesson) Cites() []memex.ID {
	seen := map[memex.ID]bool{}
	var out []memex.ID
	add := func(id memex.ID) {
		if !id.IsZero() && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, id := range l.Failures {
		add(id)
	}
	for _, f := range l.Fix {
		add(f.ID)
	}
	for _, f := range l.Undone {
		add(f.ID)
		if f.By != nil {
			add(*f.By)
		}
	}
	if l.Pass != nil {
		add(*l.Pass)
	}
	if l.After != nil {
		add(l.After.ID)
	}
	if l.Instead != nil {
		add(l.Instead.ID)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Compare(out[j]) < 0 })
	return out
}

// HintKey is what a new failure must share with a lesson for the lesson
// to be told again: the command and the signature of its error.
func HintKey(command, signature string) string { return command + "\x00" + signature }

// episode is a failure episode being followed through the session.
type episode struct {
	cmd      Command
	first    memex.Entry
	failures []memex.Entry
	last     memex.Entry // the last evidence seen
	edits    map[string]*fileState
	order    []string // edited paths, first edit first
	pass     *memex.Entry
	after    *memex.Entry // the last other command that passed since the last failure
	instead  *memex.Entry
}

type fileState struct {
	edit   memex.ID // the last edit
	undone *memex.ID
	undid  memex.ID // the edit that undone undid
}

// Lessons mines the failure episodes of one session's entries (in ID
// order; entries of kind lesson are ignored) and returns one lesson per
// episode whose outcome is known, in the order their failures happened:
//
//   - a run of a command fails (a non-zero exit, or a test run whose
//     summary reports failures); lookups (grep, ls, find, cat, diff, ...)
//     and housekeeping (rm, mkdir, kill) are not failures, nor are runs the
//     user refused;
//   - it is followed until the same command (the same main command,
//     whatever cd, environment or output filter surrounds it) passes:
//     fixed, with the files edited in between;
//   - or until the session ends without it passing: reverted when edits
//     made meanwhile were undone (git checkout/restore/stash, a backup
//     copied back), else abandoned. An abandoned episode is kept only when
//     it says something: the command is a test, build or lint run, or it
//     failed twice or more, or another command of its family passed
//     instead. A failure with nothing after it is not judged yet.
func Lessons(entries []memex.Entry) []Lesson {
	var done []*episode
	open := map[string]*episode{}
	var order []*episode // open episodes, oldest first
	scripts := map[string][]string{}
	helpers := map[string]bool{} // files the session ran as scripts
	lastTool := -1
	for i, e := range entries {
		if e.Kind == memex.KindTool {
			lastTool = i
		}
	}
	for i, e := range entries {
		if e.Kind != memex.KindTool {
			continue
		}
		cmd, isRun := runCommand(e)
		if isRun {
			if target, files := scriptWrites(e.Input); target != "" {
				scripts[target] = files
			}
			if s := scriptOf(cmd); s != "" {
				helpers[s] = true
			}
		}
		// Edits first: an entry may edit and run (sed -i F && pytest).
		paths := editsOf(e, cmd, isRun, scripts)
		for _, ep := range order {
			for _, p := range paths {
				ep.edit(p, e.ID)
			}
		}
		if undone := revertsOf(cmd, isRun, e); len(undone) > 0 {
			for _, ep := range order {
				ep.revert(undone, e.ID)
			}
		}
		if !isRun {
			continue
		}
		if e.Exit != nil && *e.Exit == 0 {
			// "ruff check . && pytest" exited 0: ruff passed, whatever
			// the main command's output says.
			for _, w := range cmd.Others {
				line := strings.Join(w, " ")
				if ep := open[line]; ep != nil && strings.Contains(e.Input, line+" &&") {
					ep.pass, ep.last = &entries[i], e
					delete(open, line)
					order = remove(order, ep)
					done = append(done, ep)
				}
			}
		}
		switch runOutcome(e, cmd) {
		case outcomeUnknown:
			if e.Exit != nil && *e.Exit == 0 && housekeeping[cmd.Program()] {
				for _, ep := range order {
					ep.after = &entries[i] // mkdir, touch: what made it pass, perhaps
				}
			}
		case outcomeFailed:
			line := cmd.Line()
			if ep := open[line]; ep != nil {
				ep.failures = append(ep.failures, e)
				ep.last, ep.after = e, nil
				continue
			}
			if i == lastTool {
				continue // nothing after it to judge by
			}
			ep := &episode{cmd: cmd, first: e, failures: []memex.Entry{e}, last: e, edits: map[string]*fileState{}}
			open[line] = ep
			order = append(order, ep)
		case outcomePassed:
			line := cmd.Line()
			if ep := open[line]; ep != nil {
				ep.pass = &entries[i]
				ep.last = e
				delete(open, line)
				order = remove(order, ep)
				done = append(done, ep)
			}
			for _, ep := range order {
				ep.after = &entries[i]
				if ep.instead == nil && cmd.Family != "" && cmd.Family == ep.cmd.Family {
					ep.instead = &entries[i]
				}
			}
		}
	}
	done = append(done, order...)
	sort.SliceStable(done, func(i, j int) bool { return done[i].first.ID.Compare(done[j].first.ID) < 0 })
	var out []Lesson
	for _, ep := range done {
		if l, ok := ep.lesson(helpers); ok {
			out = append(out, l)
		}
	}
	return out
}

func remove(eps []*episode, ep *episode) []*episode {
	for i, x := range eps {
		if x == ep {
			return append(eps[:i:i], eps[i+1:]...)
		}
	}
	return eps
}

func (ep *episode) edit(p string, id memex.ID) {
	f := ep.edits[p]
	if f == nil {
		f = &fileState{}
		ep.edits[p] = f
		ep.order = append(ep.order, p)
	}
	f.edit, f.undone = id, nil
}

// revert marks the episode's edits of paths undone by entry id ("*"
// names every file).
func (ep *episode) revert(paths []string, id memex.ID) {
	for _, p := range ep.order {
		f := ep.edits[p]
		if f.undone != nil {
			continue
		}
		for _, q := range paths {
			if q == "*" || q == p || strings.HasSuffix(p, "/"+q) || strings.HasSuffix(q, "/"+p) {
				u := id
				f.undone, f.undid = &u, f.edit
				break
			}
		}
	}
}

func (ep *episode) lesson(helpers map[string]bool) (Lesson, bool) {
	e := ep.first
	l := Lesson{Project: e.Project, Session: e.Session, Agent: e.Agent, Command: ep.cmd.Line(), Family: ep.cmd.Family,
		Error: errorOf(e), At: ep.last.Created}
	l.Signature = signature(l.Error)
	for _, f := range ep.failures {
		l.Failures = append(l.Failures, f.ID)
	}
	for _, p := range ep.order {
		f := ep.edits[p]
		if helpers[p] && !slices.Contains(ep.cmd.Words, p) {
			continue // a script the session ran to do its work, not a fix
		}
		if f.undone != nil {
			by := f.undid
			l.Undone = append(l.Undone, FileEdit{Path: p, ID: *f.undone, By: &by})
		} else {
			l.Fix = append(l.Fix, FileEdit{Path: p, ID: f.edit})
		}
	}
	if missingScript(l, ep.cmd) {
		return Lesson{}, false // the script was run before it was written
	}
	switch {
	case ep.pass != nil:
		l.Status = StatusFixed
		id := ep.pass.ID
		l.Pass = &id
		pc, _ := runCommand(*ep.pass)
		l.Env = envDelta(ep.failures[len(ep.failures)-1], pc)
		if len(l.Fix) == 0 && len(l.Env) == 0 {
			switch {
			case ep.after != nil && ep.after.ID != ep.pass.ID:
				ac, _ := runCommand(*ep.after)
				l.After = &Step{Command: ac.Line(), ID: ep.after.ID}
			case len(revertsOf(pc, true, *ep.pass)) > 0:
				// "git checkout F && pytest": it passed with the edits undone.
				for _, w := range pc.Others {
					if b := path.Base(w[0]); b == "git" || b == "cp" || b == "mv" {
						l.After = &Step{Command: strings.Join(w, " "), ID: ep.pass.ID}
						break
					}
				}
			}
		}
	case len(l.Undone) > 0:
		l.Status = StatusReverted
	default:
		l.Status = StatusAbandoned
		if ep.instead == nil && (oneLiner(ep.cmd) || ep.cmd.Family == "" && len(ep.failures) < 2) {
			return Lesson{}, false
		}
	}
	if ep.pass == nil && ep.instead != nil {
		ic, _ := runCommand(*ep.instead)
		l.Instead = &Step{Command: ic.Line(), ID: ep.instead.ID}
		if ep.instead.Created.After(l.At) {
			l.At = ep.instead.Created
		}
	}
	for _, f := range append(append([]FileEdit{}, l.Fix...), l.Undone...) {
		if t := f.ID.Time(); t.After(l.At) {
			l.At = t
		}
	}
	l.Text = lessonText(l)
	return l, true
}

// missingScript reports a failure to open the command's own script,
// fixed by writing it: an ordering slip, no lesson.
func missingScript(l Lesson, c Command) bool {
	s := scriptOf(c)
	if s == "" || !strings.Contains(l.Error, "can't open file") && !strings.Contains(l.Error, "No such file or directory") {
		return false
	}
	for _, f := range l.Fix {
		if f.Path == s || strings.HasSuffix(f.Path, "/"+s) {
			return true
		}
	}
	return false
}

// envDelta is what the passing command set that the failing run did not.
func envDelta(failed memex.Entry, passed Command) []string {
	fc, _ := runCommand(failed)
	had := map[string]bool{}
	for _, v := range fc.Env {
		had[v] = true
	}
	var out []string
	for _, v := range passed.Env {
		if !had[v] {
			out = append(out, v)
		}
	}
	return out
}

// Limits of a lesson's line.
const (
	lessonCmdLen   = 70
	lessonErrLen   = 90
	lessonMaxFiles = 3
)

// lessonText is the lesson's line: "lesson (STATUS): CMD failed: ERROR
// (ID); fixed by editing FILE (ID); passed (ID)".
func lessonText(l Lesson) string {
	var b strings.Builder
	b.WriteString("lesson (" + l.Status + "): " + cut(l.Command, lessonCmdLen) + " failed")
	if n := len(l.Failures); n > 1 {
		b.WriteString(" " + strconv.Itoa(n) + " times")
	}
	if l.Error != "" {
		b.WriteString(": " + cut(l.Error, lessonErrLen))
	}
	b.WriteString(" (" + l.Failures[0].String() + ")")
	files := func(verb string, fs []FileEdit) {
		b.WriteString("; " + verb + " ")
		for i, f := range fs {
			if i == lessonMaxFiles {
				b.WriteString(", +" + strconv.Itoa(len(fs)-i) + " more")
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Path + " (" + f.ID.String() + ")")
		}
	}
	if len(l.Undone) > 0 {
		undone := make([]FileEdit, len(l.Undone))
		for i, f := range l.Undone {
			undone[i] = FileEdit{Path: f.Path, ID: *f.By}
		}
		files("tried editing", undone)
		b.WriteString(", undone (" + l.Undone[len(l.Undone)-1].ID.String() + ")")
	}
	switch l.Status {
	case StatusFixed:
		if len(l.Fix) > 0 {
			files("fixed by editing", l.Fix)
		}
		switch {
		case len(l.Env) > 0:
			b.WriteString("; passed with " + cut(strings.Join(l.Env, " "), 60) + " set (" + l.Pass.String() + ")")
		case l.After != nil && l.After.ID == *l.Pass:
			b.WriteString("; passed after " + cut(l.After.Command, 50) + " in the same call (" + l.Pass.String() + ")")
		case l.After != nil:
			b.WriteString("; passed after " + cut(l.After.Command, 50) + " (" + l.After.ID.String() + ") (" + l.Pass.String() + ")")
		case len(l.Fix) == 0:
			b.WriteString("; passed when run again (" + l.Pass.String() + ")")
		default:
			b.WriteString("; passed (" + l.Pass.String() + ")")
		}
	default:
		if len(l.Fix) > 0 {
			files("edited", l.Fix)
		}
		b.WriteString("; " + l.Status + ": never passed in the session")
		if l.Instead != nil {
			b.WriteString("; " + cut(l.Instead.Command, 50) + " passed instead (" + l.Instead.ID.String() + ")")
		}
	}
	return b.String()
}

// runners are the tools that run shell commands.
var runners = map[string]bool{"bash": true, "shell": true, "exec_command": true, "shell_command": true, "local_shell": true,
	"run": true, "run_shell_command": true, "execute_command": true, "terminal": true, "run_terminal_cmd": true}

// sweCommands are the commands SWE-agent gives its agent beside the
// shell: they view and edit files, they run nothing.
var sweCommands = map[string]bool{"open": true, "goto": true, "scroll_up": true, "scroll_down": true, "create": true, "edit": true,
	"search_dir": true, "search_file": true, "find_file": true, "submit": true, "str_replace_editor": true, "filemap": true}

// runCommand parses the command of a tool entry that ran one: a shell
// tool's, or a shell action recorded under its program's name (SWE-agent
// names a step's tool by the first word of its action).
func runCommand(e memex.Entry) (Command, bool) {
	if e.Kind != memex.KindTool || strings.TrimSpace(e.Input) == "" {
		return Command{}, false
	}
	if !runners[strings.ToLower(e.Tool)] && !shellAction(e) {
		return Command{}, false
	}
	c := ParseCommand(e.Input)
	return c, len(c.Words) > 0
}

func shellAction(e memex.Entry) bool {
	f := strings.Fields(e.Input)
	return len(f) > 0 && f[0] == e.Tool && !sweCommands[e.Tool] && !strings.HasPrefix(e.Tool, "exit_")
}

type outcome int

const (
	outcomeUnknown outcome = iota
	outcomeFailed
	outcomePassed
)

// lookups are programs whose non-zero exit says "not found" or "differs"
// rather than that something broke, and housekeeping whose failure is no
// lesson.
var lookups = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "find": true, "fd": true,
	"ls": true, "tree": true, "cat": true, "head": true, "tail": true, "less": true, "more": true, "wc": true, "file": true, "stat": true,
	"readlink": true, "realpath": true, "which": true, "whereis": true, "type": true, "test": true, "[": true, "[[": true, "diff": true,
	"cmp": true, "nl": true, "pwd": true, "echo": true, "printf": true, "ps": true, "pgrep": true, "du": true, "df": true,
	"printenv": true, "id": true, "whoami": true, "uname": true, "date": true, "sleep": true, "true": true, "false": true, "kill": true,
	"pkill": true, "killall": true, "rm": true, "rmdir": true, "mkdir": true, "touch": true, "chmod": true, "ln": true, "sed": true,
	"awk": true, "sort": true, "uniq": true, "xargs": true, "curl": true, "wget": true, "open": true, "xdg-open": true, "lsof": true,
	"exit": true, "history": true, "man": true}

// housekeeping are the lookups whose success may be what made a command
// pass (a directory made, a file created, a process killed).
var housekeeping = map[string]bool{"mkdir": true, "touch": true, "rm": true, "rmdir": true, "chmod": true, "ln": true,
	"kill": true, "pkill": true, "killall": true}

// gitLookups are the git subcommands that only look.
var gitLookups = map[string]bool{"status": true, "log": true, "show": true, "diff": true, "grep": true, "branch": true, "rev-parse": true,
	"blame": true, "ls-files": true, "remote": true, "config": true, "describe": true, "stash": true, "checkout": true, "restore": true,
	"reset": true, "add": true, "fetch": true, "tag": true, "reflog": true}

// probe reports a command that asks a tool about itself (--version,
// --help): its failure says the tool is missing, its success nothing.
func probe(c Command) bool {
	for _, w := range c.Words[1:] {
		switch w {
		case "--version", "-V", "--help", "-h", "version":
			return true
		}
	}
	return false
}

// oneLiner reports a command that runs code given on its command line
// (python -c, node -e): a probe whose failure, left behind, teaches
// nothing.
func oneLiner(c Command) bool {
	if len(c.Words) < 2 {
		return false
	}
	p := c.Program()
	return (strings.HasPrefix(p, "python") && c.Words[1] == "-c") || (p == "node" || p == "ruby" || p == "perl" || p == "deno") && c.Words[1] == "-e"
}

// refusals are what hosts answer when the user declined a tool call: no
// failure of the command.
var refusals = []string{"doesn't want to proceed", "doesn't want to take this action", "requires approval", "was rejected",
	"permission to use", "user denied", "not allowed to run", "contains multiple operations"}

func runOutcome(e memex.Entry, c Command) outcome {
	prog := c.Program()
	if w0 := c.Words[0]; strings.Contains(w0, "/") && !strings.HasPrefix(w0, "/usr/") && !strings.HasPrefix(w0, "/bin/") {
		prog = w0 // bin/test is no test(1)
	}
	if lookups[prog] || prog == "git" && len(c.Words) > 1 && gitLookups[c.Words[1]] || probe(c) {
		return outcomeUnknown
	}
	low := strings.ToLower(e.Summary)
	for _, r := range refusals {
		if strings.Contains(low, r) {
			return outcomeUnknown
		}
	}
	switch {
	case e.Exit != nil && *e.Exit != 0:
		return outcomeFailed
	case e.Exit != nil:
		if c.Family != "" && deref.Failed(e) {
			return outcomeFailed // a test run whose failures a pipe hid
		}
		return outcomePassed
	case deref.Failed(e), reNoProgram().MatchString(e.Summary):
		return outcomeFailed // no exit status recorded (SWE-agent): what the output says
	case c.Family != "" && rePassed().MatchString(e.Summary):
		return outcomePassed
	}
	return outcomeUnknown
}

// reNoProgram is a shell's word for a program it could not run.
var reNoProgram = lazyre.New(`: command not found|: No such file or directory|: Permission denied`)

var rePassed = lazyre.New(`\b\d+ passed\b|\bOK\b|\bok\b|\bPASS\b|\bsucceeded\b|\bBuild succeeded\b`)

// editsOf lists the files an entry edited: an edit tool's file, a patch's
// files, sed -i and redirections of a shell command, and the files a
// script written earlier in the session writes when it runs.
func editsOf(e memex.Entry, c Command, isRun bool, scripts map[string][]string) []string {
	if e.Exit != nil && *e.Exit != 0 {
		return nil // the edit failed ("String to replace not found")
	}
	var out []string
	add := func(p string) {
		p = relPath(strings.TrimRight(p, ":,;"), e.Attrs["cwd"])
		if p == "" || p == "." || p == "/dev/null" || strings.HasPrefix(p, "/tmp/") || strings.HasPrefix(p, "/dev/") || strings.Contains(p, "/.claude/") {
			return
		}
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	if !isRun {
		if deref.Edited(e) {
			for _, p := range editedPaths(e) {
				add(p)
			}
		}
		return out
	}
	for _, m := range reEdited().FindAllStringSubmatch(e.Summary, -1) {
		add(m[1])
	}
	for _, w := range append([][]string{c.Words}, c.Others...) {
		if len(w) > 2 && path.Base(w[0]) == "sed" && hasPrefixWord(w[1:], "-i") {
			add(w[len(w)-1])
		}
	}
	if len(c.Words) == 2 && strings.HasPrefix(c.Program(), "python") {
		for _, p := range scripts[c.Words[1]] {
			add(p)
		}
	}
	for _, p := range patchFiles(e.Input) {
		add(p)
	}
	return out
}

var reEdited = lazyre.New(`(?:^|· )(?:edited|wrote|created) (\S+)`)

func hasPrefixWord(ws []string, p string) bool {
	for _, w := range ws {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// patchFiles are the files an apply_patch body names.
func patchFiles(input string) []string {
	var out []string
	if !strings.Contains(input, "*** ") {
		return nil
	}
	for _, l := range strings.Split(input, "\n") {
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(l), p); ok {
				out = append(out, strings.TrimSpace(rest))
			}
		}
	}
	return out
}

// reQuotedPath finds the file paths a script names in string literals.
var reQuotedPath = lazyre.New(`['"]([\w./-]+\.[A-Za-z]{1,5})['"]`)

// scriptWrites reads a heredoc that writes a script ("cat <<'EOF' >
// fix.py"): its file, and the files its text names in string literals
// when it writes files (open(..., 'w'), write_text, ...), which running it
// edits.
func scriptWrites(input string) (string, []string) {
	first, body, ok := strings.Cut(input, "\n")
	if !ok || !strings.Contains(first, "<<") {
		return "", nil
	}
	target := ""
	toks := lex(first)
	for i, t := range toks {
		if t.s == ">" && i+1 < len(toks) {
			target = toks[i+1].s
		} else if strings.HasPrefix(t.s, ">") && len(t.s) > 1 && t.s[1] != '>' && t.s[1] != '&' {
			target = t.s[1:]
		}
	}
	if target == "" || !strings.HasSuffix(target, ".py") {
		return "", nil
	}
	if !strings.Contains(body, "'w'") && !strings.Contains(body, `"w"`) && !strings.Contains(body, "write_text") &&
		!strings.Contains(body, "'a'") && !strings.Contains(body, "'r+'") {
		return target, nil
	}
	var files []string
	seen := map[string]bool{target: true}
	for _, m := range reQuotedPath().FindAllStringSubmatch(body, -1) {
		p := m[1]
		if !seen[p] && strings.Contains(p, "/") {
			seen[p] = true
			files = append(files, p)
		}
	}
	return target, files
}

// scriptOf is the script a command runs (python F.py, bash F.sh, node
// F.js), "" for other commands.
func scriptOf(c Command) string {
	if len(c.Words) < 2 {
		return ""
	}
	p := c.Program()
	if strings.HasPrefix(p, "python") || p == "bash" || p == "sh" || p == "node" || p == "ruby" || p == "perl" {
		if w := c.Words[1]; !strings.HasPrefix(w, "-") && strings.Contains(w, ".") {
			return w
		}
	}
	return ""
}

// revertsOf lists the files a command restores: git checkout [--] F,
// git restore F, cp/mv F.bak F; "*" for every file (git stash, git reset
// --hard, git checkout .).
func revertsOf(c Command, isRun bool, e memex.Entry) []string {
	if !isRun || e.Exit != nil && *e.Exit != 0 {
		return nil
	}
	var out []string
	for _, w := range append(append([][]string{}, c.Others...), c.Words) {
		if len(w) < 2 {
			continue
		}
		switch path.Base(w[0]) {
		case "git":
			switch w[1] {
			case "checkout", "restore":
				for _, a := range w[2:] {
					if a == "." {
						out = append(out, "*")
					} else if !strings.HasPrefix(a, "-") && (strings.Contains(a, "/") || strings.Contains(a, ".")) {
						out = append(out, a)
					}
				}
			case "stash":
				if len(w) == 2 || w[2] == "push" || w[2] == "save" {
					out = append(out, "*")
				}
			case "reset":
				if len(w) > 2 && w[2] == "--hard" {
					out = append(out, "*")
				}
			}
		case "cp", "mv":
			if len(w) == 3 {
				for _, ext := range []string{".bak", ".orig", ".backup", "~"} {
					if w[1] == w[2]+ext {
						out = append(out, w[2])
					}
				}
			}
		}
	}
	return out
}

// errorOf is what an entry's summary says went wrong: the summary after
// the command and the exit status, the first failure of a test run
// rather than its counts.
func errorOf(e memex.Entry) string {
	s := e.Summary
	if s == "" {
		s = e.AgentSummary
	}
	parts := strings.Split(s, " · ")
	var keep []string
	for i, p := range parts {
		p = strings.TrimSpace(p)
		switch {
		case i == 0 && e.Tool != "" && strings.HasPrefix(p, e.Tool+":"):
			continue
		case reExit().MatchString(p), reLines().MatchString(p):
			continue
		}
		keep = append(keep, p)
	}
	out := strings.Join(keep, " · ")
	if i := strings.Index(out, "; "); i >= 0 && reCounts().MatchString(out[:i]) {
		out = out[i+2:]
	}
	if out == "" && e.Exit != nil {
		out = "exit " + strconv.Itoa(*e.Exit)
	}
	return out
}

var (
	reExit   = lazyre.New(`^exit -?\d+$`)
	reLines  = lazyre.New(`^\d+ lines?$`)
	reCounts = lazyre.New(`\d+ (failed|passed|errors?|tests?)|FAILED|tests:`)
	reNumber = lazyre.New(`0x[0-9a-fA-F]+|\d+`)
	reTmp    = lazyre.New(`/tmp/[^\s:'"]+|/var/folders/[^\s:'"]+`)
)

// signature is an error with what changes between runs of the same
// failure blanked: numbers, addresses, temporary paths.
func signature(err string) string {
	s := reTmp().ReplaceAllString(err, "/tmp/_")
	s = reNumber().ReplaceAllString(s, "#")
	s = strings.TrimSuffix(s, "…")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Signature is the signature of the error an entry records (the key a
// new failure is matched with lessons by, see HintKey).
func Signature(e memex.Entry) string { return signature(errorOf(e)) }

// FailedRun reports whether e is a run of a command that failed, as
// lessons count failures, and returns its command's line.
func FailedRun(e memex.Entry) (string, bool) {
	c, ok := runCommand(e)
	if !ok || runOutcome(e, c) != outcomeFailed {
		return "", false
	}
	return c.Line(), true
}

// Decisive reports whether e is a run whose outcome is known (it passed
// or failed, as lessons and procedures count runs): an entry that may
// open, close or add to a failure episode, or teach a procedure. A live
// capture distils its session again after one (see Update).
func Decisive(e memex.Entry) bool {
	c, ok := runCommand(e)
	return ok && runOutcome(e, c) != outcomeUnknown
}

// lessonAttrs are the attributes of a lesson entry (see LessonEntry).
const (
	attrLessonOf = "lesson_of" // the episode's first failure: the lesson's identity
	attrStatus   = "status"
	attrCites    = "cites" // every ID cited, comma-separated
	attrFamily   = "family"
	attrFix      = "fix_files"
	attrDigest   = "lesson_digest" // hash of the lesson's JSON, to tell a changed lesson
)

// lessonJSON is the stable encoding of a lesson, its digest's input.
func lessonJSON(l Lesson) []byte {
	b, _ := json.Marshal(l)
	return b
}
