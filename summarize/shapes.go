package summarize

import (
	"path"
	"strconv"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/jsondec"
)

// doc is the parsed view of an Input that the shape detectors share: the
// command or tool arguments reduced to what a summary names, and the body
// split into lines once.
type doc struct {
	in    Input
	tool  string // lower-cased tool name
	cmd   string // the command line (bash) or the main tool argument, one line
	file  string // the file a tool read or wrote, when the tool input names one
	url   string // the URL a tool fetched
	query string // the pattern or query a search tool ran
	words []string
	exit  *int

	// Edit tool arguments: the replaced and replacing text, the number of
	// edits, the content written.
	oldText, newText, written string
	edits                     int

	text  string
	lines []string
	marks uint32
	tally *Tally // counts over the whole body (or over text)
}

func newDoc(in Input) *doc {
	d := &doc{in: in, tool: strings.ToLower(in.Tool), exit: in.Exit}
	d.parseInput(in.Input)
	text := string(in.Head)
	if len(in.Tail) > 0 {
		// The gap between head and tail is unknown; a newline keeps the
		// two halves from fusing into one line.
		text += "\n" + string(in.Tail)
	}
	// Summaries show what a terminal showed: no colour codes, no
	// progress-bar redraws (the archive keeps the bytes).
	text = Clean(text)
	if d.exit == nil {
		d.exit = returnCode(text)
	}
	d.text = stripWrapper(text)
	d.lines = strings.Split(d.text, "\n")
	d.tally = in.Tally
	if d.tally == nil {
		d.tally = new(Tally)
		d.tally.Write([]byte(d.text))
	}
	d.tally.finish()
	d.marks = scanMarks(d.lines) | d.tally.marks
	return d
}

// parseInput reads the tool input: either a command line or a JSON object
// of tool arguments (Claude Code, MCP), from which the fields every tool
// family uses are picked.
func (d *doc) parseInput(s string) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		if m, ok := decodeObject([]byte(t)); ok {
			str := func(keys ...string) string {
				for _, k := range keys {
					if v, ok := m[k].(string); ok && v != "" {
						return v
					}
				}
				return ""
			}
			d.file = str("file_path", "notebook_path", "filePath")
			d.url = str("url")
			d.query = str("pattern", "query")
			d.oldText = str("old_string", "old_str", "oldString")
			d.newText = str("new_string", "new_str", "newString")
			d.written = str("content", "file_text")
			if e, ok := m["edits"].([]any); ok {
				d.edits = len(e)
				for _, x := range e {
					if em, ok := x.(map[string]any); ok {
						o, _ := em["old_string"].(string)
						n, _ := em["new_string"].(string)
						d.oldText += o + "\n"
						d.newText += n + "\n"
					}
				}
			}
			switch c := str("command"); {
			case (c == "view" || c == "create" || c == "str_replace" || c == "insert" || c == "undo_edit") && str("path") != "":
				// The str_replace_based_edit_tool family names its
				// operation in "command".
				d.file = str("path")
				d.cmd = c + " " + d.file
				if c == "view" {
					d.tool = "view"
				}
			case str("command", "cmd") != "":
				d.cmd = oneLine(str("command", "cmd"))
			case d.url != "":
				d.cmd = d.url
			case d.file != "":
				d.cmd = d.file
			case d.query != "":
				d.cmd = d.query
				if p := str("path"); p != "" {
					d.cmd += " in " + p
				}
			case str("path") != "":
				d.cmd = str("path")
			case str("description", "prompt") != "":
				d.cmd = oneLine(str("description", "prompt"))
			default:
				d.cmd = oneLine(t)
			}
			d.words = shellWords(str("command", "cmd"))
			return
		}
	}
	d.cmd = oneLine(s)
	// The program and its arguments come from the first line: later lines
	// are a heredoc body or further commands.
	d.words = shellWords(s)
}

// shellWords splits the first command of a shell script into words,
// honouring quotes (which may span lines) and stopping at the first
// unquoted newline: what follows is a heredoc body or another command.
// Quote characters are removed. Operators separated by spaces come out as
// words of their own ("|", "&&", ";").
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	s = strings.TrimLeft(s, " \t\n")
	for i := 0; i < len(s) && len(words) < 256; i++ {
		c := s[i]
		switch {
		case quote == '"' && c == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0:
			i++
			cur.WriteByte(s[i])
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inWord = true
			}
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			if c == '\n' {
				return words
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// returnCode reads mini-swe-agent's "<returncode>N</returncode>" preamble
// or the "Exit code N" first line of a failed Claude Code Bash result.
func returnCode(text string) *int {
	if rest, ok := strings.CutPrefix(text, "Exit code "); ok {
		if i := strings.IndexByte(rest, '\n'); i > 0 {
			if n, err := strconv.Atoi(strings.TrimSpace(rest[:i])); err == nil {
				return &n
			}
		}
	}
	const open = "<returncode>"
	i := strings.Index(text, open)
	if i < 0 || i > 64 {
		return nil
	}
	rest := text[i+len(open):]
	j := strings.Index(rest, "</returncode>")
	if j < 0 {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest[:j]))
	if err != nil {
		return nil
	}
	return &n
}

// program returns the name of the program the command line runs (after
// environment assignments, sudo, timeout, cd ... &&), lower-cased.
func (d *doc) program() string {
	return programOf(d.firstStage())
}

// firstStage returns the words of the command up to the first pipe, skipping
// leading "cd DIR &&" and environment assignments.
func (d *doc) firstStage() []string {
	w := d.words
	for len(w) > 0 {
		switch {
		case w[0] == "cd" && len(w) >= 3 && (w[2] == "&&" || w[2] == ";"):
			w = w[3:]
		case strings.Contains(w[0], "=") && !strings.HasPrefix(w[0], "-"):
			w = w[1:]
		case w[0] == "sudo" || w[0] == "time" || w[0] == "env" || w[0] == "command":
			w = w[1:]
		case w[0] == "timeout" && len(w) > 1:
			w = w[2:]
		case (w[0] == "uv" || w[0] == "poetry" || w[0] == "pipenv" || w[0] == "hatch" || w[0] == "pdm" || w[0] == "bundle") && len(w) > 2 && (w[1] == "run" || w[1] == "exec"):
			w = w[2:]
		case w[0] == "npx" || w[0] == "bunx" || w[0] == "pnpx":
			w = w[1:]
		default:
			return cutStage(w)
		}
	}
	return nil
}

func cutStage(w []string) []string {
	for i, s := range w {
		if s == "|" || s == "&&" || s == "||" || s == ";" || s == "|&" {
			return w[:i]
		}
	}
	return w
}

func programOf(stage []string) string {
	if len(stage) == 0 {
		return ""
	}
	p := strings.ToLower(path.Base(stage[0]))
	if (p == "python" || p == "python3" || strings.HasPrefix(p, "python3.")) && len(stage) > 2 && stage[1] == "-m" {
		return strings.ToLower(stage[2])
	}
	return p
}

// pipesTo reports whether a later stage of the command runs one of progs.
func (d *doc) pipesTo(progs ...string) bool {
	w := d.words
	for i, s := range w {
		if (s == "|" || s == "|&") && i+1 < len(w) {
			p := programOf(w[i+1:])
			for _, q := range progs {
				if p == q {
					return true
				}
			}
		}
	}
	return false
}

// has reports whether the body contains s.
func (d *doc) has(s string) bool { return strings.Contains(d.text, s) }

// Line markers found by one pass over the body, so that each detector can
// skip a 64 KB body it has no chance of matching without scanning it.
const (
	mCounts    uint32 = 1 << iota // a line starting with '=' or a digit (pytest counts), "collected ", "tests finished"
	mUnittest                     // "Ran ", "FAIL: ", "ERROR: "
	mGoTest                       // "--- FAIL", "--- PASS", "ok ", "FAIL"
	mCargo                        // "test result: "
	mTests                        // "Tests" (jest, vitest)
	mTestsRun                     // "Tests run: " (maven, surefire)
	mGradle                       // " completed, " or a line ending in " FAILED"
	mTraceback                    // "Traceback (most recent call last)"
	mPanic                        // "panic: ", "fatal error: ", "thread '"
	mAt                           // an indented "at " frame (Java, JavaScript)
	mXML                          // a line starting with '<'
	mSession                      // "test session starts" / "test process starts"
)

func scanMarks(lines []string) uint32 {
	var m uint32
	for _, l := range lines {
		m |= markLine(l)
	}
	return m
}

// markLine returns the markers of one line.
func markLine(l string) uint32 {
	var m uint32
	t := strings.TrimLeft(l, " \t")
	if t == "" {
		return 0
	}
	indented := len(t) < len(l)
	switch c := t[0]; {
	case c == '=':
		m |= mCounts
		if strings.Contains(t, "test session starts") || strings.Contains(t, "test process starts") {
			m |= mSession
		}
		if strings.Contains(t, "tests finished") {
			m |= mCounts
		}
	case c >= '0' && c <= '9':
		m |= mCounts
		if strings.Contains(t, " completed, ") {
			m |= mGradle
		}
	case c == 'c' && strings.HasPrefix(t, "collected "):
		m |= mCounts
	case c == 't' && strings.HasPrefix(t, "tests finished"), c == 't' && strings.HasPrefix(t, "test result: "):
		m |= mCounts | mCargo
	case c == 't' && strings.HasPrefix(t, "thread '"):
		m |= mPanic
	case c == 'R' && strings.HasPrefix(t, "Ran "):
		m |= mUnittest
	case c == 'F' && (strings.HasPrefix(t, "FAIL: ") || strings.HasPrefix(t, "FAIL")):
		m |= mUnittest | mGoTest | mTests
	case c == 'E' && strings.HasPrefix(t, "ERROR: "):
		m |= mUnittest
	case c == '-' && strings.HasPrefix(t, "--- "):
		m |= mGoTest
	case c == 'o' && strings.HasPrefix(t, "ok "):
		m |= mGoTest
	case c == 'T' && strings.HasPrefix(t, "Tests"):
		m |= mTests
		if strings.HasPrefix(t, "Tests run: ") {
			m |= mTestsRun
		}
	case c == 'T' && strings.HasPrefix(t, "Traceback (most recent call last)"):
		m |= mTraceback
	case c == '[' && strings.Contains(t, "Tests run: "):
		m |= mTestsRun
	case c == 'p' && strings.HasPrefix(t, "panic: "), c == 'f' && strings.HasPrefix(t, "fatal error: "):
		m |= mPanic
	case c == 'a' && indented && strings.HasPrefix(t, "at "):
		m |= mAt
	case c == '<':
		m |= mXML
	}
	if strings.HasSuffix(t, " FAILED") {
		m |= mGradle
	}
	if strings.HasPrefix(t, "Tests:") || strings.HasPrefix(t, "● ") {
		m |= mTests
	}
	return m
}

// marked reports whether the body has any of the markers in m.
func (d *doc) marked(m uint32) bool { return d.marks&m != 0 }

// pipesToSet is pipesTo for a set of program names.
func (d *doc) pipesToSet(progs map[string]bool) bool {
	for i, s := range d.words {
		if (s == "|" || s == "|&") && i+1 < len(d.words) && progs[programOf(d.words[i+1:])] {
			return true
		}
	}
	return false
}

// isTool reports whether the tool name is one of names (lower case).
func (d *doc) isTool(names ...string) bool {
	for _, n := range names {
		if d.tool == n {
			return true
		}
	}
	return false
}

// shell reports whether the entry ran a shell command (a bash-like tool or
// no tool name at all).
func (d *doc) shell() bool {
	switch d.tool {
	case "", "bash", "shell", "sh", "exec", "exec_command", "run", "terminal", "local_shell", "bashoutput", "execute_command", "run_command":
		return true
	}
	// SWE-agent names the tool after the command word ("open", "edit").
	return len(d.words) > 0 && d.tool == strings.ToLower(d.words[0])
}

// summaryFor computes the shape-specific fact for d, or "" when no shape
// fits and the generic line is used.
func summaryFor(d *doc) string {
	if s := binaryData(d); s != "" {
		return s
	}
	switch d.in.Kind {
	case memex.KindReasoning, memex.KindMessage, memex.KindNote:
		return proseSummary(d.text)
	}
	if s := webFetch(d); s != "" {
		return s
	}
	if s := testRun(d); s != "" {
		return s
	}
	if s := stackTrace(d); s != "" {
		return s
	}
	if s := compilerOutput(d); s != "" {
		return s
	}
	if s := diffOrEdit(d); s != "" {
		return s
	}
	if s := searchOutput(d); s != "" {
		return s
	}
	if s := fileRead(d); s != "" {
		return s
	}
	if d.exit != nil && *d.exit != 0 {
		return errorLine(d.lines)
	}
	return ""
}

var errorWords = []string{"error", "Error", "ERROR", "failed", "FAILED", "Failed", "fatal", "FATAL", "not found", "No such file", "denied", "panic", "exception", "Exception"}

// errorLine returns the first line that reads like an error, for a failed
// command of no known shape.
func errorLine(lines []string) string {
	for _, l := range lines {
		for _, w := range errorWords {
			if strings.Contains(l, w) {
				if s := oneLine(l); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

// stripWrapper removes mini-swe-agent's observation markup (the
// <returncode> preamble, the "output too long" <warning> block and the
// <output>, <output_head>, <elided_chars>, <output_tail> tag lines) so the
// detectors see the command's own output. Other text is returned as is.
func stripWrapper(s string) string {
	if !strings.HasPrefix(s, "<returncode>") && !strings.HasPrefix(s, "<output") {
		return s
	}
	if i := strings.Index(s, "</returncode>"); i >= 0 {
		s = s[i+len("</returncode>"):]
	}
	if i := strings.Index(s, "<warning>"); i >= 0 && i < 8 {
		if j := strings.Index(s, "</warning>"); j > i {
			s = s[:i] + s[j+len("</warning>"):]
		}
	}
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		line := s
		nl := strings.IndexByte(s, '\n')
		if nl >= 0 {
			line, s = s[:nl+1], s[nl+1:]
		} else {
			s = ""
		}
		t := strings.TrimSpace(line)
		switch {
		case t == "<output>", t == "</output>", t == "<output_head>", t == "</output_head>",
			t == "<output_tail>", t == "</output_tail>", t == "<elided_chars>", t == "</elided_chars>":
			continue
		case strings.HasSuffix(t, "characters elided"):
			continue
		}
		// Tags can share a line with output ("</warning><output_head>").
		// Every tag holds "output": a line without it has none to remove.
		if strings.Contains(line, "output") {
			for _, tag := range []string{"<output_head>", "</output_head>", "<output_tail>", "</output_tail>", "<output>", "</output>"} {
				line = strings.ReplaceAll(line, tag, "")
			}
		}
		b.WriteString(line)
	}
	return strings.TrimLeft(b.String(), "\n")
}

// decodeObject decodes b, a tool input, as json.Unmarshal decodes it into
// a map[string]any, and says whether it did.
func decodeObject(b []byte) (map[string]any, bool) {
	var m map[string]any
	if jsondec.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}
