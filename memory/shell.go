package memory

import (
	"path"
	"sort"
	"strings"
)

// Lessons and procedures read the command lines agents ran. A line is
// split the way a shell would (quotes, operators, heredoc bodies), then
// reduced to its main command: the one that does the work, without the
// cd, the environment assignments, the virtualenv activation, the output
// filters and the redirections around it. Those are kept beside it: a
// command that failed and then passed with LANG set is the same command,
// and what changed is worth saying.

// Command is a command line as lessons and procedures read it.
type Command struct {
	// Words are the main command's program and arguments, quotes removed.
	Words []string
	// Env holds the NAME=VALUE assignments made for it (inline or by an
	// export earlier in the line), sorted.
	Env []string
	// Setup holds the steps the line ran before it that prepare rather
	// than do: "cd DIR", "source .venv/bin/activate".
	Setup []string
	// Others are the other commands of the line, as written (a git
	// checkout before the test run, an echo after it).
	Others [][]string
	// Family is what the main command is for: FamilyTest, FamilyBuild,
	// ..., or "" for anything else (a script, a probe).
	Family string
}

// Line is the main command, its words joined by single spaces: what two
// runs of "the same command" share.
func (c Command) Line() string { return strings.Join(c.Words, " ") }

// Program is the main command's program name without its directory
// ("python3", "pytest", "runtests.py").
func (c Command) Program() string {
	if len(c.Words) == 0 {
		return ""
	}
	return path.Base(c.Words[0])
}

// Families of commands.
const (
	FamilyTest      = "test"
	FamilyBuild     = "build"
	FamilyLint      = "lint"
	FamilyTypecheck = "typecheck"
	FamilyFormat    = "format"
	FamilyServe     = "serve"
	FamilyInstall   = "install"
)

// token is a word or an operator of a shell line.
type token struct {
	s  string
	op bool // &&, ||, ;, |, &, a newline, ( or )
}

// lex splits a shell line into words and operators. Quotes are removed
// from words; a heredoc's body is skipped (the redirection that starts it
// is dropped with it); $(...) and `...` stay inside their word.
func lex(s string) []token {
	var toks []token
	var cur strings.Builder
	inWord := false
	var heredocs []string // delimiters waiting for the end of the line
	flush := func() {
		if inWord {
			toks = append(toks, token{s: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				cur.WriteByte(s[i])
				inWord = true
			}
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			// Command substitution: kept whole inside the word.
			depth := 0
			j := i
			for ; j < len(s); j++ {
				if s[j] == '(' {
					depth++
				} else if s[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			end := min(j+1, len(s))
			cur.WriteString(s[i:end])
			inWord = true
			i = end - 1
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			end := len(s)
			if j >= 0 {
				end = i + 2 + j
			}
			cur.WriteString(s[i:end])
			inWord = true
			i = end - 1
		case c == '#' && !inWord:
			// A comment runs to the end of the line.
			for i+1 < len(s) && s[i+1] != '\n' {
				i++
			}
		case c == '<' && strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<"):
			flush()
			j := i + 2
			if j < len(s) && s[j] == '-' {
				j++
			}
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			k := j
			for k < len(s) && !strings.ContainsRune(" \t\n;&|<>()", rune(s[k])) {
				k++
			}
			delim := strings.Trim(s[j:k], `'"\`)
			if delim != "" {
				heredocs = append(heredocs, delim)
			}
			i = k - 1
		case c == '\n':
			flush()
			toks = append(toks, token{s: "\n", op: true})
			for _, d := range heredocs {
				// Skip the body, up to the line that is the delimiter.
				for i+1 < len(s) {
					end := strings.IndexByte(s[i+1:], '\n')
					line := s[i+1:]
					if end >= 0 {
						line = s[i+1 : i+1+end]
					}
					if end < 0 {
						i = len(s)
					} else {
						i += end + 1
					}
					if strings.TrimSpace(line) == d {
						break
					}
				}
			}
			heredocs = nil
		case c == ' ' || c == '\t' || c == '\r':
			flush()
		case c == '&' || c == '|' || c == ';' || c == '(' || c == ')':
			if c == '&' && inWord && strings.HasSuffix(cur.String(), ">") {
				cur.WriteByte(c) // 2>&1
				break
			}
			if c == '&' && i+1 < len(s) && s[i+1] == '>' {
				flush()
				cur.WriteString("&>")
				inWord = true
				i++
				break
			}
			flush()
			op := string(c)
			if i+1 < len(s) && (c == '&' || c == '|' || c == ';') && s[i+1] == c {
				op += string(c)
				i++
			}
			toks = append(toks, token{s: op, op: true})
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return toks
}

// simple is one simple command: its words, and the pipeline it heads.
type simple struct {
	words []string
	pipe  [][]string // the commands it pipes into
}

// segments splits tokens into the simple commands of the line, each with
// the commands it pipes into; redirections are dropped.
func segments(toks []token) []simple {
	var out []simple
	var cur simple
	var words []string
	endWords := func() {
		if len(words) == 0 {
			return
		}
		if cur.words == nil {
			cur.words = words
		} else {
			cur.pipe = append(cur.pipe, words)
		}
		words = nil
	}
	end := func() {
		endWords()
		if cur.words != nil {
			out = append(out, cur)
		}
		cur = simple{}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.op {
			if t.s == "|" {
				endWords()
			} else {
				end()
			}
			continue
		}
		if r, target := redirection(t.s); r {
			if !target && i+1 < len(toks) && !toks[i+1].op {
				i++ // the file redirected to
			}
			continue
		}
		words = append(words, t.s)
	}
	end()
	return out
}

// redirection reports whether w is a redirection operator, and whether it
// holds its target itself (">out.txt", "2>&1") rather than in the next
// word.
func redirection(w string) (bool, bool) {
	s := strings.TrimLeft(w, "0123456789")
	if s == "&>" || s == "&>>" {
		return true, false
	}
	for _, op := range []string{">>", ">|", ">", "<"} {
		if strings.HasPrefix(s, op) {
			if len(s) > len(op) && s[:len(op)] == op {
				return true, true
			}
			return true, false
		}
	}
	return false, false
}

// filters are programs a command's output is piped through to cut or
// search it: the command that matters is the one before.
var filters = map[string]bool{"head": true, "tail": true, "grep": true, "egrep": true, "rg": true, "less": true, "more": true,
	"tee": true, "sort": true, "uniq": true, "wc": true, "cut": true, "awk": true, "sed": true, "cat": true, "tr": true, "column": true, "jq": true, "nl": true}

// wrappers run the command after them unchanged; the number is how many
// arguments of their own they take (-1: their flags only).
var wrappers = map[string]int{"time": 0, "nohup": 0, "sudo": -1, "exec": 0, "command": 0, "timeout": 1, "nice": -1, "stdbuf": -1, "xvfb-run": -1, "env": -1}

// ParseCommand reads a shell command line.
func ParseCommand(line string) Command {
	var c Command
	env := map[string]string{}
	var main []string
	var cmds [][]string
	for _, seg := range segments(lex(line)) {
		w := seg.words
		for len(w) > 0 && isAssignment(w[0]) {
			name, value, _ := strings.Cut(w[0], "=")
			env[name] = value
			w = w[1:]
		}
		w = unwrap(w, env)
		if len(w) == 0 {
			continue
		}
		switch prog := path.Base(w[0]); {
		case prog == "cd" || prog == "pushd":
			if len(w) > 1 {
				c.Setup = append(c.Setup, "cd "+w[1])
			}
			continue
		case prog == "export":
			for _, a := range w[1:] {
				if name, value, ok := strings.Cut(a, "="); ok {
					env[name] = value
				}
			}
			continue
		case prog == "source" || prog == ".":
			c.Setup = append(c.Setup, "source "+strings.Join(w[1:], " "))
			continue
		case prog == "set" || prog == "unset" || prog == "popd" || prog == "true" || prog == ":":
			continue
		case (prog == "conda" || prog == "pyenv") && len(w) > 1 && (w[1] == "activate" || w[1] == "shell"):
			c.Setup = append(c.Setup, strings.Join(w, " "))
			continue
		}
		if len(seg.pipe) > 0 && feeds(w) {
			// cat input | prog: prog is the command.
			w = unwrap(seg.pipe[0], env)
		}
		cmds = append(cmds, w)
	}
	// The main command: the last that has a family, else the last that is
	// not an echo of a status.
	best := -1
	for i, w := range cmds {
		if familyOf(w) != "" {
			best = i
		}
	}
	if best < 0 {
		for i := len(cmds) - 1; i >= 0; i-- {
			if p := path.Base(cmds[i][0]); p != "echo" && p != "printf" {
				best = i
				break
			}
		}
		if best < 0 && len(cmds) > 0 {
			best = len(cmds) - 1
		}
	}
	for i, w := range cmds {
		if i == best {
			main = w
		} else {
			c.Others = append(c.Others, w)
		}
	}
	c.Words = main
	c.Family = familyOf(main)
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	sort.Strings(c.Env)
	return c
}

// isAssignment reports whether w is NAME=VALUE.
func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// unwrap drops the wrappers in front of a command (timeout 60, env A=B,
// time), recording env's assignments.
func unwrap(w []string, env map[string]string) []string {
	for len(w) > 0 {
		n, ok := wrappers[path.Base(w[0])]
		if !ok {
			return w
		}
		w = w[1:]
		for len(w) > 0 && (strings.HasPrefix(w[0], "-") || isAssignment(w[0])) {
			if name, value, ok := strings.Cut(w[0], "="); ok && isAssignment(w[0]) {
				env[name] = value
			}
			w = w[1:]
		}
		if n > 0 && len(w) > n {
			w = w[n:]
		}
	}
	return w
}

// feeds reports whether a command only feeds its output to the next one.
func feeds(w []string) bool {
	switch path.Base(w[0]) {
	case "cat", "echo", "printf", "yes":
		return true
	}
	return false
}

// familyOf says what a command is for.
func familyOf(w []string) string {
	if len(w) == 0 {
		return ""
	}
	prog := path.Base(w[0])
	arg := func(i int) string {
		if i < len(w) {
			return w[i]
		}
		return ""
	}
	// Runners that name a tool after them: python -m X, uv run X, npx X.
	switch {
	case strings.HasPrefix(prog, "python") && arg(1) == "-m" && arg(2) != "":
		return familyOf(w[2:])
	case strings.HasPrefix(prog, "python") && arg(1) != "" && !strings.HasPrefix(arg(1), "-"):
		if f := scriptFamily(arg(1), w[2:]); f != "" {
			return f
		}
		return ""
	case (prog == "uv" || prog == "poetry" || prog == "pipenv" || prog == "pdm" || prog == "hatch" || prog == "rye") && arg(1) == "run" && len(w) > 2:
		return familyOf(w[2:])
	case prog == "npx" || prog == "bunx" || prog == "pnpx":
		return familyOf(w[1:])
	case prog == "bundle" && arg(1) == "exec":
		return familyOf(w[2:])
	}
	if f := scriptFamily(w[0], w[1:]); f != "" {
		return f
	}
	sub := arg(1)
	switch prog {
	case "pytest", "py.test", "unittest", "nose2", "nosetests", "tox", "nox", "jest", "vitest", "mocha", "ava", "rspec", "phpunit", "ctest", "karma", "playwright":
		if prog == "playwright" && sub != "test" {
			return ""
		}
		return FamilyTest
	case "go":
		switch sub {
		case "test":
			return FamilyTest
		case "build", "install", "generate":
			return FamilyBuild
		case "vet":
			return FamilyLint
		case "run":
			return FamilyServe
		case "mod":
			return FamilyInstall
		}
	case "cargo":
		switch sub {
		case "test", "nextest":
			return FamilyTest
		case "build", "check":
			return FamilyBuild
		case "clippy":
			return FamilyLint
		case "fmt":
			return FamilyFormat
		case "run":
			return FamilyServe
		}
	case "npm", "yarn", "pnpm", "bun":
		script := sub
		if sub == "run" || sub == "run-script" {
			script = arg(2)
		}
		switch {
		case script == "test" || script == "t" || strings.HasPrefix(script, "test:") || strings.HasPrefix(script, "test-") || script == "e2e":
			return FamilyTest
		case script == "build" || strings.HasPrefix(script, "build:"):
			return FamilyBuild
		case script == "lint" || strings.HasPrefix(script, "lint:"):
			return FamilyLint
		case script == "typecheck" || script == "type-check" || script == "tsc" || script == "check-types":
			return FamilyTypecheck
		case script == "format" || script == "fmt" || script == "prettier":
			return FamilyFormat
		case script == "dev" || script == "start" || script == "serve" || script == "preview":
			return FamilyServe
		case sub == "install" || sub == "i" || sub == "ci" || sub == "add" || (prog != "npm" && sub == ""):
			return FamilyInstall
		}
	case "make", "gmake", "just", "task":
		sub = ""
		for _, a := range w[1:] {
			if !strings.HasPrefix(a, "-") && !isAssignment(a) {
				sub = a
				break
			}
		}
		switch sub {
		case "test", "tests", "check", "test-all", "unittest":
			return FamilyTest
		case "lint", "vet":
			return FamilyLint
		case "fmt", "format":
			return FamilyFormat
		case "run", "serve", "dev", "start":
			return FamilyServe
		case "install", "deps":
			return FamilyInstall
		case "", "all", "build":
			return FamilyBuild
		}
	case "mvn", "gradle", "gradlew", "sbt", "dotnet", "swift", "mix", "zig":
		switch {
		case sub == "test" || strings.HasSuffix(sub, ":test"):
			return FamilyTest
		case sub == "build" || sub == "compile" || sub == "package" || sub == "install" || sub == "assemble":
			return FamilyBuild
		case sub == "run" || sub == "bootRun":
			return FamilyServe
		}
	case "rails", "bin/rails":
		switch sub {
		case "test":
			return FamilyTest
		case "server", "s":
			return FamilyServe
		}
	case "golangci-lint", "staticcheck", "ruff", "flake8", "pylint", "eslint", "shellcheck", "rubocop", "clippy", "hadolint", "markdownlint", "stylelint", "biome", "revive":
		if prog == "ruff" && sub == "format" {
			return FamilyFormat
		}
		return FamilyLint
	case "mypy", "pyright", "tsc", "basedpyright", "pyre", "vue-tsc":
		return FamilyTypecheck
	case "gofmt", "goimports", "black", "isort", "prettier", "rustfmt", "clang-format", "yapf", "autopep8":
		return FamilyFormat
	case "uvicorn", "gunicorn", "flask", "hypercorn", "daphne", "vite", "next", "nodemon", "hugo", "jekyll", "air":
		if prog == "next" || prog == "vite" {
			switch sub {
			case "build":
				return FamilyBuild
			case "lint":
				return FamilyLint
			}
		}
		return FamilyServe
	case "pip", "pip3", "uv", "poetry", "pipenv", "bundle", "composer", "conda":
		switch sub {
		case "install", "sync", "add", "lock":
			return FamilyInstall
		case "build":
			return FamilyBuild
		}
	case "docker", "podman":
		if sub == "build" {
			return FamilyBuild
		}
		if sub == "compose" && (arg(2) == "up" || arg(2) == "run") || sub == "run" {
			return FamilyServe
		}
	case "docker-compose":
		if sub == "up" || sub == "run" {
			return FamilyServe
		}
	case "tsx", "ts-node", "node", "deno":
		if sub == "test" {
			return FamilyTest
		}
	}
	return ""
}

// scriptFamily knows the test and service scripts of common projects:
// Django's tests/runtests.py and manage.py, SymPy's bin/test, setup.py.
func scriptFamily(script string, args []string) string {
	base := path.Base(script)
	switch {
	case base == "runtests.py" || base == "runtests" || script == "bin/test" || script == "./bin/test" || base == "run_tests.py" || base == "run-tests":
		return FamilyTest
	case base == "manage.py" && len(args) > 0:
		switch args[0] {
		case "test":
			return FamilyTest
		case "runserver":
			return FamilyServe
		case "check":
			return FamilyLint
		}
	case base == "setup.py" && len(args) > 0:
		switch args[0] {
		case "test":
			return FamilyTest
		case "build", "build_ext", "develop", "install", "bdist_wheel", "sdist":
			return FamilyBuild
		}
	case base == "gradlew" || base == "mvnw":
		return familyOf(append([]string{"gradle"}, args...))
	}
	return ""
}
