package summarize

import (
	"regexp"
	"strings"

	"github.com/memex-archive/memex/internal/lazyre"
)

// Compiler and linter summaries: how many errors (and warnings) and the
// first errors with file:line. The common "file:line[:col]: message" form
// covers go, gcc/clang, javac, mypy, flake8/ruff, pylint and golangci-lint;
// rustc, tsc and eslint's stylish format have their own shapes.

var (
	reLocated    = lazyre.New(`^([^\s:()]+\.[A-Za-z0-9]+):(\d+)(?::(\d+))?:\s*(.+)$`)
	reRustDiag   = lazyre.New(`^(error|warning)(?:\[(\w+)\])?: (.+)$`)
	reRustLoc    = lazyre.New(`^\s*--> ([^\s:]+:\d+)`)
	reTSC        = lazyre.New(`^(\S+?)\((\d+),(\d+)\): (error|warning) (.+)$`)
	rePyright    = lazyre.New(`^\s+(\S+?):(\d+):\d+ - (error|warning): (.+)$`)
	reESLintLine = lazyre.New(`^\s+(\d+):(\d+)\s+(error|warning)\s+(.+?)(?:\s{2,}\S+)?$`)
)

var buildTools = map[string]bool{
	"go": true, "gcc": true, "g++": true, "cc": true, "clang": true, "clang++": true, "make": true,
	"cargo": true, "rustc": true, "tsc": true, "eslint": true, "mypy": true, "flake8": true,
	"ruff": true, "pylint": true, "javac": true, "mvn": true, "gradle": true, "golangci-lint": true,
	"staticcheck": true, "npx": true, "npm": true, "pnpm": true, "yarn": true, "cmake": true,
	"ninja": true, "pyright": true, "black": true, "shellcheck": true, "vet": true, "py_compile": true,
	"compileall": true, "rubocop": true, "swiftc": true, "kotlinc": true,
}

type diag struct {
	loc, msg string
	warning  bool
}

func compilerOutput(d *doc) string {
	prog := d.program()
	if prog == "grep" || prog == "rg" || prog == "ag" || prog == "git" && len(d.firstStage()) > 1 && d.firstStage()[1] == "grep" || d.isTool("grep", "glob", "read") {
		return ""
	}
	if !buildTools[prog] && !d.has("rror") && !d.has("arning") {
		return ""
	}
	var diags []diag
	eslintFile := ""
	summary := ""
	for i, l := range d.lines {
		if l == "" {
			continue
		}
		if strings.Contains(l, "): ") {
			if m := reTSC().FindStringSubmatch(l); m != nil {
				diags = append(diags, diag{m[1] + ":" + m[2], m[5], m[4] == "warning"})
				continue
			}
		}
		if (l[0] == 'e' || l[0] == 'w') && (strings.HasPrefix(l, "error") || strings.HasPrefix(l, "warning")) {
			if m := reRustDiag().FindStringSubmatch(l); m != nil {
				if strings.HasPrefix(m[3], "aborting due to") || strings.Contains(m[3], "generated ") && strings.Contains(m[3], "warning") || strings.HasPrefix(m[3], "could not compile") {
					summary = m[3]
					continue
				}
				loc := ""
				for j := i + 1; j < len(d.lines) && j < i+4; j++ {
					if lm := reRustLoc().FindStringSubmatch(d.lines[j]); lm != nil {
						loc = lm[1]
						break
					}
				}
				msg := m[3]
				if m[2] != "" {
					msg = m[2] + ": " + msg
				}
				diags = append(diags, diag{loc, msg, m[1] == "warning"})
				continue
			}
		}
		if l[0] != ' ' && l[0] != '\t' {
			if m := matchLocated(l); m != nil {
				msg := strings.TrimSpace(m[4])
				warn := false
				low := strings.ToLower(msg)
				switch {
				case strings.HasPrefix(low, "warning"):
					warn = true
				case strings.HasPrefix(low, "note:"), strings.HasPrefix(low, "info:"):
					continue
				}
				msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(msg, "error:"), "warning:"))
				diags = append(diags, diag{m[1] + ":" + m[2], msg, warn})
				continue
			}
			if strings.Contains(l, "/") || strings.HasSuffix(l, ".js") || strings.HasSuffix(l, ".ts") {
				eslintFile = strings.TrimSpace(l)
			}
		} else if m := matchIf(rePyright(), l, " - "); m != nil {
			diags = append(diags, diag{m[1] + ":" + m[2], m[4], m[3] == "warning"})
		} else if eslintFile != "" {
			if m := matchIf(reESLintLine(), l, "  "); m != nil && (strings.Contains(l, "error") || strings.Contains(l, "warning")) {
				diags = append(diags, diag{eslintFile + ":" + m[1], m[4], m[3] == "warning"})
			}
		}
		if strings.HasPrefix(l, "Found ") && strings.Contains(l, "error") || strings.HasPrefix(l, "✖ ") || strings.Contains(l, " errors, ") && strings.Contains(l, " warning") {
			summary = strings.TrimSpace(l)
		}
	}
	if len(diags) == 0 {
		return ""
	}
	// Located lines alone are also what grep -n prints; without a build
	// tool in the command, require the diagnostics to say error or warning.
	if !buildTools[prog] && !d.pipesToSet(buildTools) {
		sev := 0
		for _, g := range diags {
			low := strings.ToLower(g.msg)
			if g.warning || strings.Contains(low, "error") || strings.Contains(low, "undefined") || strings.Contains(low, "expected") {
				sev++
			}
		}
		if sev*2 < len(diags) || d.marked(mTraceback) {
			return ""
		}
	}
	errs, warns := 0, 0
	var firsts []string
	for _, g := range diags {
		if g.warning {
			warns++
			continue
		}
		errs++
		if len(firsts) < 2 {
			firsts = append(firsts, strings.TrimPrefix(g.loc+": "+g.msg, ": "))
		}
	}
	if errs == 0 {
		for _, g := range diags {
			if len(firsts) < 2 {
				firsts = append(firsts, strings.TrimPrefix(g.loc+": "+g.msg, ": "))
			}
		}
	}
	s := Plural(errs, "error")
	if warns > 0 {
		s += ", " + Plural(warns, "warning")
	}
	if summary != "" && !strings.HasPrefix(summary, Plural(errs, "error")) {
		s += " (" + summary + ")"
	}
	return s + "; " + strings.Join(firsts, "; ")
}

// matchLocated applies reLocated only to lines with a ":<digit>" in them,
// which keeps the common case (no diagnostics) free of regexp work.
func matchLocated(l string) []string {
	for i := 0; i+1 < len(l); i++ {
		if l[i] == ':' && l[i+1] >= '0' && l[i+1] <= '9' {
			return reLocated().FindStringSubmatch(l)
		}
		if l[i] == ' ' {
			return nil
		}
	}
	return nil
}

// matchIf applies re to l only when l contains sub.
func matchIf(re *regexp.Regexp, l, sub string) []string {
	if !strings.Contains(l, sub) {
		return nil
	}
	return re.FindStringSubmatch(l)
}
