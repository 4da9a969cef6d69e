package summarize

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"strconv"
	"strings"

	"github.com/memex-archive/memex/internal/jsondec"
)

// Shown is a run of a file's lines that an entry's content shows
// verbatim: a read, a view, the snippet an edit prints, grep hits with
// their line numbers, or what a write put in a file.
type Shown struct {
	Path  string   // as the entry names it: absolute, or relative to its working directory or repository
	From  int      // the first line's number, 1-based
	Lines []string // the lines, without their line ends; empty once decoded from an attribute
	Sum   string   // LinesSum of Lines (kept when Lines is not)
	Count int      // len(Lines), kept when Lines is not
}

// To is the number of the span's last line.
func (s Shown) To() int { return s.From + s.Count - 1 }

// Limits of what Shows keeps of one entry.
const (
	maxShownSpans = 64
	maxShownLines = 20000
)

// LinesSum is the identity of a run of lines: the first 16 hex digits of
// the SHA-256 of the lines joined by "\n".
func LinesSum(lines []string) string {
	h := sha256.New()
	for i, l := range lines {
		if i > 0 {
			h.Write([]byte{'\n'})
		}
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// EncodeShown renders spans for an entry's "shows" attribute, one per
// line: "FROM:TO SUM PATH".
func EncodeShown(spans []Shown) string {
	var b strings.Builder
	for i, s := range spans {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strconv.Itoa(s.From) + ":" + strconv.Itoa(s.To()) + " " + s.Sum + " " + s.Path)
	}
	return b.String()
}

// DecodeShown reads an attribute written by EncodeShown; malformed lines
// are left out.
func DecodeShown(attr string) []Shown {
	var out []Shown
	for _, l := range strings.Split(attr, "\n") {
		rng, rest, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		sum, p, ok := strings.Cut(rest, " ")
		a, b, ok2 := strings.Cut(rng, ":")
		from, err1 := strconv.Atoi(a)
		to, err2 := strconv.Atoi(b)
		if !ok || !ok2 || err1 != nil || err2 != nil || from < 1 || to < from || p == "" {
			continue
		}
		out = append(out, Shown{Path: p, From: from, Count: to - from + 1, Sum: sum})
	}
	return out
}

// MayShow reports whether an entry of this tool and input can show file
// lines, so that callers read the content of those entries only.
func MayShow(tool, input string) bool {
	switch strings.ToLower(tool) {
	case "read", "read_file", "view", "edit", "multiedit", "write", "write_file", "edit_file",
		"str_replace_editor", "str_replace_based_edit_tool", "grep":
		return true
	}
	_, ok := shellShow(input)
	return ok
}

// Shows finds the file lines an entry's content shows verbatim, from its
// tool, its input (the command, or the arguments as JSON) and its body.
// Nothing is found for content it does not recognise: a pipe, several
// files at once, a listing.
func Shows(tool, input string, body []byte) []Shown {
	var args struct {
		FilePath string          `json:"file_path"`
		Path     string          `json:"path"`
		Offset   json.RawMessage `json:"offset"`
		Content  *string         `json:"content"`
		N        bool            `json:"-n"`
		Mode     string          `json:"output_mode"`
		Command  string          `json:"command"`
	}
	_ = json.Unmarshal([]byte(input), &args)
	file := args.FilePath
	var spans []Shown
	switch strings.ToLower(tool) {
	case "read", "read_file", "view":
		if file == "" {
			file = args.Path
		}
		if file == "" {
			return nil
		}
		if spans = numbered(file, body); spans == nil {
			// A hook's response: the file's lines as they are, from the
			// offset asked for.
			from := 1
			if n, err := strconv.Atoi(strings.Trim(string(args.Offset), `"`)); err == nil && n > 0 {
				from = n
			}
			spans = raw(file, from, body)
		}
	case "edit", "multiedit", "edit_file", "notebookedit":
		if file == "" {
			return nil
		}
		if spans = numbered(file, afterLine(body, "cat -n")); spans == nil {
			spans = patched(file, body)
		}
	case "write", "write_file":
		if file != "" && args.Content != nil {
			spans = raw(file, 1, []byte(*args.Content))
		}
	case "str_replace_editor", "str_replace_based_edit_tool":
		p := catPath(body)
		if p == "" {
			p = args.Path
		}
		if p != "" {
			spans = numbered(p, afterLine(body, "cat -n"))
		}
	case "grep":
		if args.Mode == "content" && args.N {
			spans = grepHits(args.Path, body)
		}
	default:
		cmd := input
		if args.Command != "" {
			cmd = args.Command
		}
		if sh, ok := shellShow(cmd); ok {
			body = shellOutput(body)
			switch {
			case sh.numbered:
				spans = numbered(sh.file, body)
			case sh.grep:
				spans = grepHits(sh.file, body)
			default:
				spans = raw(sh.file, sh.from, body)
			}
		}
	}
	return finish(spans)
}

// finish bounds spans and fills their sums and counts.
func finish(spans []Shown) []Shown {
	if len(spans) > maxShownSpans {
		spans = spans[:maxShownSpans]
	}
	lines := 0
	out := spans[:0]
	for _, s := range spans {
		if len(s.Lines) == 0 {
			continue
		}
		if lines+len(s.Lines) > maxShownLines {
			s.Lines = s.Lines[:maxShownLines-lines]
		}
		lines += len(s.Lines)
		s.Count, s.Sum = len(s.Lines), LinesSum(s.Lines)
		out = append(out, s)
		if lines >= maxShownLines {
			break
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// afterLine returns body after its first line when that line contains
// marker (the "Here's the result of running `cat -n` ..." of an edit).
func afterLine(body []byte, marker string) []byte {
	first, rest, ok := bytes.Cut(body, []byte("\n"))
	if ok && bytes.Contains(first, []byte(marker)) {
		return rest
	}
	return body
}

// catPath is the path in "Here's the result of running `cat -n` on [a
// snippet of] PATH:".
func catPath(body []byte) string {
	first, _, _ := bytes.Cut(body, []byte("\n"))
	s := string(first)
	i := strings.Index(s, "`cat -n` on ")
	if i < 0 {
		return ""
	}
	s = strings.TrimPrefix(s[i+len("`cat -n` on "):], "a snippet of ")
	s = strings.TrimPrefix(s, "the edited file ")
	return strings.TrimSuffix(strings.TrimSpace(s), ":")
}

// numbered reads lines written as cat -n and Claude Code's Read write them
// ("     12→text", "    12\ttext"), grouping consecutive numbers into
// spans; it stops at the first other line after a numbered one.
func numbered(file string, body []byte) []Shown {
	var spans []Shown
	started := false
	for _, l := range splitLines(body) {
		n, text, ok := numberedLine(l)
		if !ok {
			if started {
				break
			}
			continue
		}
		started = true
		if k := len(spans); k > 0 && spans[k-1].From+len(spans[k-1].Lines) == n {
			spans[k-1].Lines = append(spans[k-1].Lines, text)
			continue
		}
		spans = append(spans, Shown{Path: file, From: n, Lines: []string{text}})
	}
	return spans
}

func numberedLine(l string) (int, string, bool) {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == i || j-i > 9 || j == len(l) {
		return 0, "", false
	}
	n, _ := strconv.Atoi(l[i:j])
	switch {
	case l[j] == '\t':
		return n, l[j+1:], n > 0
	case strings.HasPrefix(l[j:], "→"):
		return n, l[j+len("→"):], n > 0
	}
	return 0, "", false
}

// patched reads the response a PostToolUse hook gets of an Edit (Claude
// Code's JSON, with the hunks of its structuredPatch): each hunk's context
// and added lines stand in the edited file from its newStart on.
func patched(file string, body []byte) []Shown {
	var resp struct {
		Patch []struct {
			NewStart int      `json:"newStart"`
			Lines    []string `json:"lines"`
		} `json:"structuredPatch"`
	}
	if len(body) == 0 || body[0] != '{' || jsondec.Unmarshal(body, &resp) != nil {
		return nil
	}
	var spans []Shown
	for _, h := range resp.Patch {
		var lines []string
		for _, l := range h.Lines {
			if l != "" && (l[0] == ' ' || l[0] == '+') {
				lines = append(lines, l[1:])
			}
		}
		if h.NewStart > 0 && len(lines) > 0 {
			spans = append(spans, Shown{Path: file, From: h.NewStart, Lines: lines})
		}
	}
	return spans
}

// raw is body's lines as lines from..; a body that ends in a host's note
// (a <system-reminder>) is cut before it.
func raw(file string, from int, body []byte) []Shown {
	if i := bytes.Index(body, []byte("\n<system-reminder>")); i >= 0 {
		body = body[:i+1]
	}
	lines := splitLines(body)
	if len(lines) == 0 {
		return nil
	}
	return []Shown{{Path: file, From: from, Lines: lines}}
}

// grepHits reads "path:N:text" lines (or "N:text" when the search named
// one file), grouping consecutive lines of a file into spans. Context
// lines ("path-N-text") are left out.
func grepHits(file string, body []byte) []Shown {
	var spans []Shown
	for _, l := range splitLines(body) {
		i := strings.Index(l, ":")
		if i <= 0 {
			continue
		}
		if n, err := strconv.Atoi(l[:i]); err == nil && file != "" {
			if n > 0 {
				spans = appendHit(spans, file, n, l[i+1:])
			}
			continue
		}
		n, text, ok := grepLine(l[i+1:])
		if !ok {
			continue
		}
		spans = appendHit(spans, l[:i], n, text)
	}
	return spans
}

func grepLine(s string) (int, string, bool) {
	i := strings.Index(s, ":")
	if i <= 0 || i > 9 {
		return 0, "", false
	}
	n, err := strconv.Atoi(s[:i])
	if err != nil || n < 1 {
		return 0, "", false
	}
	return n, s[i+1:], true
}

func appendHit(spans []Shown, p string, n int, text string) []Shown {
	if k := len(spans); k > 0 && spans[k-1].Path == p && spans[k-1].From+len(spans[k-1].Lines) == n {
		spans[k-1].Lines = append(spans[k-1].Lines, text)
		return spans
	}
	return append(spans, Shown{Path: p, From: n, Lines: []string{text}})
}

// splitLines splits body into lines without their "\n" (or "\r\n"); a
// last line without a newline counts.
func splitLines(body []byte) []string {
	if len(body) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(body), "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// shellOutput is a shell tool's output without the lines a host puts
// before it (Codex: "Process exited with code 0", "Wall time: ...",
// then "Output:").
func shellOutput(body []byte) []byte {
	head := body[:min(len(body), 1024)]
	if i := bytes.Index(head, []byte("\nOutput:\n")); i >= 0 && bytes.Contains(head[:i], []byte("exited with code")) {
		return body[i+len("\nOutput:\n"):]
	}
	return body
}

// shellRead is a shell command that prints one file's lines.
type shellRead struct {
	file     string
	from     int
	numbered bool // cat -n, nl: lines carry their numbers
	grep     bool // grep -n, rg -n: path:N:text
}

// shellShow recognises the commands agents print files with: cat [-n]
// FILE, head [-n N] FILE, sed -n 'A,Bp' FILE, nl -ba FILE [| sed -n
// 'A,Bp'], and grep -n / rg -n PATTERN PATH, inside bash -lc '...' too.
func shellShow(cmd string) (shellRead, bool) {
	w, ok := commandWords(unwrapShell(strings.TrimSpace(cmd)))
	if !ok || len(w) < 2 {
		return shellRead{}, false
	}
	// nl -ba FILE | sed -n 'A,Bp'
	if pipe := indexOf(w, "|"); pipe > 0 {
		left, right := w[:pipe], w[pipe+1:]
		if path.Base(left[0]) == "nl" && len(left) >= 2 && len(right) == 3 && right[0] == "sed" && right[1] == "-n" {
			if _, ok := sedRange(right[2]); ok {
				return shellRead{file: left[len(left)-1], numbered: true}, true
			}
		}
		return shellRead{}, false
	}
	for _, x := range w {
		if x == ">" || x == ">>" || x == "<" || x == "&&" || x == ";" || x == "||" {
			return shellRead{}, false
		}
	}
	file := w[len(w)-1]
	if strings.HasPrefix(file, "-") {
		return shellRead{}, false
	}
	switch path.Base(w[0]) {
	case "cat":
		switch {
		case len(w) == 2:
			return shellRead{file: file, from: 1}, true
		case len(w) == 3 && w[1] == "-n":
			return shellRead{file: file, numbered: true}, true
		}
	case "nl":
		if len(w) == 3 && w[1] == "-ba" {
			return shellRead{file: file, numbered: true}, true
		}
	case "head":
		if len(w) == 2 || len(w) == 4 && w[1] == "-n" || len(w) == 3 && isDashNumber(w[1]) {
			return shellRead{file: file, from: 1}, true
		}
	case "sed":
		if len(w) == 4 && w[1] == "-n" {
			if from, ok := sedRange(w[2]); ok {
				return shellRead{file: file, from: from}, true
			}
		}
	case "grep", "rg":
		hasN := false
		for _, x := range w[1 : len(w)-1] {
			if x == "-n" || strings.HasPrefix(x, "-") && !strings.HasPrefix(x, "--") && strings.Contains(x, "n") && len(x) <= 5 {
				hasN = true
			}
			if strings.HasPrefix(x, "-") && strings.ContainsAny(x, "ABCcl") && !strings.HasPrefix(x, "--") {
				return shellRead{}, false // context lines, counts or names only
			}
		}
		if hasN && len(w) >= 3 {
			return shellRead{file: file, grep: true}, true
		}
	}
	return shellRead{}, false
}

func isDashNumber(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	_, err := strconv.Atoi(s[1:])
	return err == nil
}

// sedRange reads "A,Bp" or "Ap", returning A.
func sedRange(s string) (int, bool) {
	s, ok := strings.CutSuffix(s, "p")
	if !ok {
		return 0, false
	}
	a, _, _ := strings.Cut(s, ",")
	n, err := strconv.Atoi(a)
	return n, err == nil && n > 0
}

func indexOf(w []string, s string) int {
	for i, x := range w {
		if x == s {
			return i
		}
	}
	return -1
}

// unwrapShell returns the script of "bash -lc 'SCRIPT'" (and sh -c, zsh
// -lc), else cmd.
func unwrapShell(cmd string) string {
	w := shellWords(cmd)
	if strings.Count(cmd, "\n") == 0 && len(w) == 3 && (path.Base(w[0]) == "bash" || path.Base(w[0]) == "sh" || path.Base(w[0]) == "zsh") && (w[1] == "-c" || w[1] == "-lc") {
		return w[2]
	}
	return cmd
}

// commandWords splits a one-line command into words (shellWords), and
// fails on what it cannot read safely: several lines, substitutions.
func commandWords(s string) ([]string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "\n$`") {
		return nil, false
	}
	return shellWords(s), true
}
