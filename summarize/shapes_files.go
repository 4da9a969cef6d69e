package summarize

import (
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/memex-archive/memex/internal/lazyre"
)

// Summaries of work on files: diffs and edits (files touched, lines added
// and removed), file reads (path, line count, language, top-level symbols)
// and searches and listings (match and file counts, the directories
// involved).

func diffOrEdit(d *doc) string {
	if s := unifiedDiff(d.lines); s != "" {
		return s
	}
	if first := d.firstStage(); programOf(first) == "edit" && len(d.lines) > 0 {
		// SWE-agent's "edit A:B" prints the edited file's header.
		if m := reSWEFile().FindStringSubmatch(d.lines[0]); m != nil {
			s := "edited " + m[1]
			if len(first) > 1 {
				s += " lines " + strings.Replace(first[1], ":", "-", 1)
			}
			return s + " (" + m[2] + " lines now)"
		}
	}
	if d.isTool("edit", "multiedit", "str_replace_editor", "str_replace_based_edit_tool", "edit_file", "replace", "apply_patch", "write", "write_file", "create_file", "notebookedit") || d.file != "" && (d.oldText != "" || d.written != "") {
		return editResult(d)
	}
	first := d.firstStage()
	prog := programOf(first)
	switch {
	case prog == "sed" && hasFlagPrefix(first, "-i"):
		return "edited " + lastArg(first) + " (sed -i)" + errorSuffix(d)
	case prog == "patch" || prog == "git" && len(first) > 1 && (first[1] == "apply" || first[1] == "am"):
		return "applied patch" + errorSuffix(d)
	}
	if f := redirectTarget(d.words); f != "" && (prog == "cat" || prog == "echo" || prog == "printf" || prog == "tee") {
		return "wrote " + f + errorSuffix(d)
	}
	return ""
}

// errorSuffix adds the first output line of a write that printed something
// (usually an error).
func errorSuffix(d *doc) string {
	if l := firstLine([]byte(d.text)); l != "" {
		return ": " + l
	}
	return ""
}

func hasFlagPrefix(words []string, p string) bool {
	for _, w := range words {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}

// redirectTarget returns the file of a "> FILE" or "tee FILE" in the
// command's first line.
func redirectTarget(words []string) string {
	for i, w := range words {
		switch {
		case (w == ">" || w == ">>") && i+1 < len(words):
			return unquote(words[i+1])
		case strings.HasPrefix(w, ">") && len(w) > 1 && w[1] != '&' && w != ">>":
			return unquote(strings.TrimLeft(w, ">"))
		case w == "tee" && i+1 < len(words):
			return unquote(words[i+1])
		}
	}
	return ""
}

func unquote(s string) string { return strings.Trim(s, `'"`) }

// lastArg returns the last word of a stage that is not a flag.
func lastArg(stage []string) string {
	for i := len(stage) - 1; i > 0; i-- {
		w := stage[i]
		if !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, ">") && !strings.HasPrefix(w, "2>") {
			return unquote(w)
		}
	}
	return ""
}

func unifiedDiff(lines []string) string {
	var files []string
	add, del := 0, 0
	inHunk := false
	seenHunk := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			f := l[len("diff --git "):]
			if j := strings.Index(f, " b/"); j >= 0 {
				f = f[j+3:]
			}
			files = appendNew(files, f)
			inHunk = false
		case strings.HasPrefix(l, "+++ ") && i > 0 && strings.HasPrefix(lines[i-1], "--- "):
			f := strings.TrimPrefix(strings.Fields(l[4:] + " x")[0], "b/")
			if f == "/dev/null" {
				f = strings.TrimPrefix(strings.Fields(lines[i-1][4:] + " x")[0], "a/")
			}
			files = appendNew(files, f)
			inHunk = false
		case strings.HasPrefix(l, "@@ ") || l == "@@":
			inHunk, seenHunk = true, true
		case inHunk && strings.HasPrefix(l, "+"):
			add++
		case inHunk && strings.HasPrefix(l, "-"):
			del++
		case inHunk && l != "" && l[0] != ' ' && l[0] != '\\':
			inHunk = false
		}
	}
	if !seenHunk || len(files) == 0 {
		return ""
	}
	return "diff: " + Plural(len(files), "file") + " (" + listSome(files, 3) + "), +" + strconv.Itoa(add) + " -" + strconv.Itoa(del)
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + ", +" + strconv.Itoa(len(items)-n) + " more"
}

// toolUseError starts the result of a Claude Code tool call the host
// refused to run or that failed ("<tool_use_error>String to replace not
// found in file.</tool_use_error>").
const toolUseError = "<tool_use_error>"

var reEditTarget = lazyre.New(`(?:The file (\S+) has been (?:updated|edited)|File created successfully at: (\S+)|Applied (\d+) edits? to (\S+?):|has been (?:created|written|overwritten)[^/]*(\S+))`)

func editResult(d *doc) string {
	verb := "edited"
	if d.written != "" || d.isTool("write", "write_file", "create_file") {
		verb = "wrote"
	}
	if d.exit != nil && *d.exit != 0 || strings.HasPrefix(d.text, toolUseError) {
		// The edit was not made: the arguments say what was meant, the
		// output why it did not happen.
		if l := firstLine([]byte(strings.TrimPrefix(d.text, toolUseError))); l != "" {
			return strings.TrimSuffix(l, "</tool_use_error>")
		}
		if verb == "wrote" {
			return "write failed"
		}
		return "edit failed"
	}
	file := d.file
	out := d.text
	if m := reEditTarget().FindStringSubmatch(out); m != nil {
		switch {
		case m[1] != "":
			file = m[1]
		case m[2] != "":
			file, verb = m[2], "created"
		case m[4] != "":
			file = m[4]
		}
	}
	if file == "" {
		file = d.cmd
	}
	s := verb + " " + file
	switch {
	case d.oldText != "" || d.newText != "":
		if d.edits > 1 {
			s += " (" + strconv.Itoa(d.edits) + " edits)"
		}
		s += ": +" + strconv.Itoa(countLines(d.newText)) + " -" + strconv.Itoa(countLines(d.oldText)) + " lines"
	case d.written != "":
		s += ": " + Plural(countLines(d.written), "line")
	}
	low := strings.ToLower(out)
	if strings.Contains(low, "error") || strings.Contains(low, "failed") || strings.Contains(low, "not found") {
		if l := firstLine([]byte(out)); l != "" && !reEditTarget().MatchString(l) {
			s += "; " + l
		}
	}
	return s
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

var readers = map[string]bool{"cat": true, "nl": true, "head": true, "tail": true, "sed": true, "less": true, "more": true, "bat": true, "view": true, "type": true,
	// SWE-agent's file viewer commands.
	"open": true, "goto": true, "scroll_down": true, "scroll_up": true}

// reSWEFile is the header SWE-agent's viewer and editor print.
var reSWEFile = lazyre.New(`^\[File: (\S+) \((\d+) lines total\)\]`)

var reSedRange = lazyre.New(`^'?(\d+)(?:,(\d+))?p'?$`)

func fileRead(d *doc) string {
	file := ""
	rng := ""
	switch {
	case d.isTool("read", "read_file", "view", "view_file", "open_file", "notebookread") || d.isTool("str_replace_based_edit_tool", "str_replace_editor") && d.file != "":
		file = d.file
		if file == "" {
			file = d.cmd
		}
	case d.shell():
		first := d.firstStage()
		prog := programOf(first)
		if !readers[prog] || prog == "sed" && hasFlagPrefix(first, "-i") || d.pipesTo("grep", "rg", "wc") {
			return ""
		}
		file = lastArg(first)
		if m := reSWEFile().FindStringSubmatch(d.lines[0]); m != nil {
			file = m[1]
			s := "read " + file + ": " + m[2] + " lines"
			if lang := language(file); lang != "" {
				s += ", " + lang
				if syms := symbols(d.lines[1:], lang); len(syms) > 0 {
					s += "; defines " + listSome(syms, 6)
				}
			}
			return s
		}
		if file == "" || strings.Contains(file, "<<") || prog == "goto" || prog == "scroll_down" || prog == "scroll_up" {
			return ""
		}
		rng = readRange(d.words)
	default:
		return ""
	}
	body := d.text
	if fl := firstLine([]byte(body)); strings.Contains(fl, "No such file") || strings.HasPrefix(fl, "cat: ") || strings.HasPrefix(fl, "sed: ") || strings.HasPrefix(fl, "nl: ") || strings.HasPrefix(fl, "head: ") {
		return "read " + file + ": " + fl
	}
	n := d.in.Lines
	if n == 0 {
		n = int64(strings.Count(body, "\n"))
	}
	s := "read " + file
	if rng != "" {
		s += " (" + rng + ")"
	}
	s += ": " + Plural(int(n), "line")
	lang := language(file)
	if lang != "" {
		s += ", " + lang
	}
	if syms := symbols(d.lines, lang); len(syms) > 0 {
		s += "; defines " + listSome(syms, 6)
	}
	return s
}

var langByExt = map[string]string{
	".go": "Go", ".py": "Python", ".pyi": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".jsx": "JavaScript", ".ts": "TypeScript", ".tsx": "TypeScript", ".rs": "Rust", ".java": "Java", ".kt": "Kotlin",
	".c": "C", ".h": "C", ".cc": "C++", ".cpp": "C++", ".hpp": "C++", ".rb": "Ruby", ".php": "PHP", ".cs": "C#",
	".swift": "Swift", ".scala": "Scala", ".sh": "shell", ".bash": "shell", ".md": "Markdown", ".rst": "reStructuredText",
	".txt": "text", ".json": "JSON", ".yaml": "YAML", ".yml": "YAML", ".toml": "TOML", ".html": "HTML", ".css": "CSS",
	".sql": "SQL", ".xml": "XML", ".cfg": "config", ".ini": "config", ".lua": "Lua", ".ex": "Elixir", ".exs": "Elixir",
	".vue": "Vue", ".svelte": "Svelte", ".proto": "protobuf", ".tex": "TeX",
}

func language(file string) string {
	base := path.Base(file)
	switch base {
	case "Makefile", "makefile", "GNUmakefile":
		return "Makefile"
	case "Dockerfile":
		return "Dockerfile"
	case "go.mod":
		return "go.mod"
	}
	return langByExt[strings.ToLower(path.Ext(base))]
}

var (
	reSymPy   = lazyre.New(`^(?:async\s+)?(?:def|class)\s+(\w+)`)
	reSymGo   = lazyre.New(`^(?:func\s+(?:\([^)]*\)\s*)?(\w+)|type\s+(\w+))`)
	reSymJS   = lazyre.New(`^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+(\w+)|class\s+(\w+)|(?:const|let|var)\s+(\w+)\s*=|interface\s+(\w+)|type\s+(\w+)\s*=)`)
	reSymRust = lazyre.New(`^(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:fn|struct|enum|trait|mod|type)\s+(\w+)`)
	reSymJava = lazyre.New(`^(?:public\s+|private\s+|protected\s+)?(?:abstract\s+|final\s+|static\s+)*(?:class|interface|enum|record|object)\s+(\w+)`)
	reSymRuby = lazyre.New(`^(?:class|module|def)\s+([\w.:]+)`)
	reSymC    = lazyre.New(`^[A-Za-z_][\w\s\*]*?\b(\w+)\s*\([^;]*$`)
	reSymMD   = lazyre.New(`^#{1,2}\s+(.+)`)
)

// symbols lists the top-level definitions in a file read, in order. Line
// number prefixes (cat -n, nl, Claude Code's Read) are removed first; only
// definitions at column 0 count.
func symbols(lines []string, lang string) []string {
	var re *regexp.Regexp
	switch lang {
	case "Python":
		re = reSymPy()
	case "Go":
		re = reSymGo()
	case "JavaScript", "TypeScript", "Vue", "Svelte":
		re = reSymJS()
	case "Rust":
		re = reSymRust()
	case "Java", "Kotlin", "Scala", "C#":
		re = reSymJava()
	case "Ruby":
		re = reSymRuby()
	case "C", "C++":
		re = reSymC()
	case "Markdown":
		re = reSymMD()
	default:
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range lines {
		if l == "" {
			continue
		}
		l = stripLineNumber(l)
		if l == "" || !symbolStart(l, lang) {
			continue
		}
		m := re.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, g := range m[1:] {
			if g != "" && !seen[g] {
				seen[g] = true
				out = append(out, strings.TrimSpace(g))
				break
			}
		}
	}
	return out
}

var searchers = map[string]bool{"grep": true, "rg": true, "ag": true, "ack": true, "egrep": true, "fgrep": true}

func searchOutput(d *doc) string {
	first := d.firstStage()
	prog := programOf(first)
	body := d.text
	lines := nonEmpty(d.lines)
	switch {
	case prog == "find" || prog == "fd":
		return pathsSummary(d, lines, "found")
	case prog == "find_file":
		return pathsSummary(d, sweResults(lines), "found")
	case prog == "search_dir" || prog == "search_file":
		if len(lines) > 0 && strings.HasPrefix(lines[0], "Found ") {
			return oneLine(lines[0])
		}
		return firstLine([]byte(body))
	case d.isTool("grep", "search", "search_files", "grep_search", "codebase_search") || searchers[prog] || prog == "git" && len(first) > 1 && first[1] == "grep" || d.shell() && d.pipesToSet(searchers):
		return grepSummary(d, lines)
	case d.isTool("glob", "find", "find_files", "file_search") || prog == "find" || prog == "fd":
		return pathsSummary(d, lines, "found")
	case d.isTool("ls", "list_dir", "list_directory", "list_files") || prog == "ls" || prog == "tree":
		return listingSummary(lines)
	case d.isTool("websearch", "web_search"):
		return "search " + quoteQ(d.query) + ": " + strconv.Itoa(strings.Count(body, `"url":`)) + " results"
	}
	return ""
}

func quoteQ(s string) string { return `"` + oneLine(s) + `"` }

func nonEmpty(lines []string) []string {
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	n := 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			n++
		}
	}
	if n == 0 {
		return lines
	}
	out := make([]string, 0, len(lines)-n)
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}

func grepSummary(d *doc, lines []string) string {
	if len(lines) == 0 || len(lines) == 1 && (strings.HasPrefix(lines[0], "No matches") || strings.HasPrefix(lines[0], "No files found")) {
		return "no matches"
	}
	if strings.HasPrefix(lines[0], "Found ") && strings.Contains(lines[0], " file") {
		return pathsSummary(d, lines[1:], "matches in")
	}
	matches := 0
	var files []string
	counts := map[string]int{}
	for _, l := range lines {
		if l == "--" {
			continue
		}
		matches++
		if i := strings.IndexAny(l, ":-"); i > 0 {
			f := l[:i]
			if strings.ContainsAny(f, "./") && !strings.ContainsAny(f, " \t") {
				if counts[f] == 0 {
					files = append(files, f)
				}
				counts[f]++
			}
		} else if strings.ContainsAny(l, "./") && !strings.ContainsAny(l, " \t") {
			// grep -l prints file names only.
			files = appendNew(files, l)
		}
	}
	s := Plural(matches, "match")
	s = strings.Replace(s, "matchs", "matches", 1)
	if len(files) > 1 {
		s += " in " + Plural(len(files), "file")
		if dirs := topDirs(files, 3); dirs != "" {
			s += " (" + dirs + ")"
		}
	} else if len(files) == 1 {
		s += " in " + files[0]
	} else if f := lastArg(d.firstStage()); f != "" && searchers[d.program()] && strings.ContainsAny(f, "./") {
		s += " in " + f
	}
	return s
}

func pathsSummary(d *doc, lines []string, verb string) string {
	if len(lines) == 0 || len(lines) == 1 && strings.HasPrefix(lines[0], "No files") {
		return "no files found"
	}
	var paths []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "find: ") {
			paths = append(paths, t)
		}
	}
	s := verb + " " + Plural(len(paths), "path")
	if verb == "matches in" {
		s = "matches in " + Plural(len(paths), "file")
	}
	if len(paths) <= 3 {
		return s + ": " + strings.Join(paths, ", ")
	}
	if dirs := topDirs(paths, 3); dirs != "" {
		s += " under " + dirs
	}
	return s
}

// topDirs names the directories holding most of paths, busiest first.
func topDirs(paths []string, n int) string {
	count := map[string]int{}
	var order []string
	for _, p := range paths {
		dir := path.Dir(strings.TrimPrefix(p, "./"))
		if count[dir] == 0 {
			order = append(order, dir)
		}
		count[dir]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	if len(order) > n {
		return strings.Join(order[:n], ", ") + ", +" + strconv.Itoa(len(order)-n) + " dirs"
	}
	return strings.Join(order, ", ")
}

func listingSummary(lines []string) string {
	if len(lines) > 0 && (strings.HasPrefix(lines[0], "ls: ") || strings.HasPrefix(lines[0], "tree: ")) {
		// An error (no such file, permission denied), not a listing.
		return oneLine(lines[0])
	}
	entries, dirs := 0, 0
	var names []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "total "):
			continue
		case strings.HasSuffix(t, ":") && !strings.Contains(t, " "):
			dirs++
			continue
		}
		entries++
		f := strings.Fields(strings.TrimPrefix(t, "- "))
		if len(f) > 0 && len(names) < 4 {
			names = append(names, f[len(f)-1])
		}
	}
	if entries == 0 {
		return "empty listing"
	}
	s := Plural(entries, "entry")
	if dirs > 1 {
		s += " in " + Plural(dirs, "dir")
	}
	return s + ": " + listSome(names, 4)
}

// readRange names the part of a file a read command shows: sed -n 'A,Bp'
// (alone or after a pipe), head -n N, tail -n N.
func readRange(words []string) string {
	prog := ""
	for i, w := range words {
		if i == 0 || words[i-1] == "|" {
			prog = path.Base(w)
			continue
		}
		switch prog {
		case "sed":
			if m := reSedRange().FindStringSubmatch(w); m != nil {
				if m[2] == "" {
					return "line " + m[1]
				}
				return "lines " + m[1] + "-" + m[2]
			}
		case "head", "tail":
			n := ""
			if w == "-n" && i+1 < len(words) {
				n = words[i+1]
			} else if len(w) > 1 && w[0] == '-' && w[1] >= '0' && w[1] <= '9' {
				n = w[1:]
			}
			if n != "" {
				if prog == "head" {
					return "first " + n + " lines"
				}
				return "last " + n + " lines"
			}
		}
	}
	return ""
}

// stripLineNumber removes a line-number prefix: cat -n and nl ("   12\t"),
// Claude Code's Read ("    12→"), numbered listings ("12: ").
func stripLineNumber(l string) string {
	i := 0
	for i < len(l) && l[i] == ' ' {
		i++
	}
	j := i
	for j < len(l) && l[j] >= '0' && l[j] <= '9' {
		j++
	}
	if j == i {
		return l
	}
	rest := l[j:]
	switch {
	case strings.HasPrefix(rest, "\t"):
		return rest[1:]
	case strings.HasPrefix(rest, "→"):
		return rest[len("→"):]
	case strings.HasPrefix(rest, ": "):
		return rest[2:]
	case strings.HasPrefix(rest, ":") && i == 0:
		// SWE-agent's viewer: "12:code".
		return rest[1:]
	case strings.HasPrefix(rest, "  "):
		return rest[2:]
	}
	return l
}

// symbolStart is a cheap filter before the symbol regexp: a definition
// starts at column 0 with a letter (or '#' for markdown headings).
func symbolStart(l, lang string) bool {
	c := l[0]
	if lang == "Markdown" {
		return c == '#'
	}
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// sweResults keeps the result lines of SWE-agent's find_file ("- path"),
// dropping its "Found N matches" and "End of matches" lines.
func sweResults(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "- ") {
			out = append(out, strings.TrimPrefix(l, "- "))
		}
	}
	return out
}
