package hosts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// Command is a memex command line found in a host's configuration: the
// binary it runs, the memex home it names ("" for the default) and the
// rest of its arguments.
type Command struct {
	Bin  string   `json:"bin"`
	Home string   `json:"home,omitempty"`
	Args []string `json:"args"`
}

// argv is the command line memex install writes to run args.
func (o *Options) argv(args ...string) []string {
	out := []string{o.Bin}
	if o.Home != "" {
		out = append(out, "--home", o.Home)
	}
	return append(out, args...)
}

// hookArgv is the command line of host's handler of event: memex-hook's
// for a tool call when there is one (HookBin), memex's otherwise. Both
// read BIN [--home DIR] hook HOST EVENT, so that hookCommand recognises
// either.
func (o *Options) hookArgv(host, event string) []string {
	if event == "PostToolUse" {
		return append(o.toolArgv(), "hook", host, event)
	}
	return o.argv("hook", host, event)
}

// toolArgv is the command line, before "hook HOST EVENT", of the handler
// of a tool call: memex-hook's when there is one, memex's otherwise.
func (o *Options) toolArgv() []string {
	h := *o
	if o.HookBin != "" {
		h.Bin = o.HookBin
	}
	return h.argv()
}

// HookBinName is the hook binary go install ./cmd/... puts beside memex.
const HookBinName = "memex-hook"

// HookBinBeside returns the memex-hook beside the memex binary bin when
// there is one that answers --version (and finds its memex), "" otherwise:
// install then points the PostToolUse hooks at it, and every hook runs bin
// when there is none.
func HookBinBeside(ctx context.Context, bin string) string {
	name := HookBinName
	if strings.EqualFold(filepath.Ext(bin), ".exe") {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(bin), name)
	fi, err := os.Stat(p)
	if err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	if line, err := RunsVersion(ctx, p); err != nil || !strings.HasPrefix(line, HookBinName+" ") {
		return ""
	}
	return p
}

// InstallBins sets the binaries memex install writes: o.Bin, when "",
// this memex (DefaultBin), checked to run as memex (CheckBin); and
// o.HookBin, the memex-hook beside it when there is one (HookBinBeside):
// a tool call's hook then starts in a fraction of memex's time
// (docs/performance.md, Hooks).
func (o *Options) InstallBins(ctx context.Context) error {
	if o.Bin == "" {
		bin, err := DefaultBin()
		if err != nil {
			return err
		}
		o.Bin = bin
	}
	if err := CheckBin(ctx, o.Bin); err != nil {
		return err
	}
	o.HookBin = HookBinBeside(ctx, o.Bin)
	return nil
}

// parseArgv reads a memex command line: the binary, then an optional
// --home DIR (or --home=DIR), then the rest. ok is false for an empty one.
func parseArgv(words []string) (Command, bool) {
	if len(words) == 0 {
		return Command{}, false
	}
	c := Command{Bin: words[0]}
	rest := words[1:]
	for len(rest) > 0 {
		switch {
		case rest[0] == "--home" && len(rest) > 1:
			c.Home, rest = rest[1], rest[2:]
			continue
		case strings.HasPrefix(rest[0], "--home="):
			c.Home, rest = strings.TrimPrefix(rest[0], "--home="), rest[1:]
			continue
		}
		break
	}
	c.Args = rest
	return c, true
}

// hookCommand recognises a hook handler install writes for host:
// BIN [--home DIR] hook HOST EVENT, whatever the binary and home.
func hookCommand(line, host string) (Command, string, bool) {
	words, err := shellSplit(line)
	if err != nil {
		return Command{}, "", false
	}
	c, ok := parseArgv(words)
	if !ok || len(c.Args) != 3 || c.Args[0] != "hook" || c.Args[1] != host {
		return Command{}, "", false
	}
	return c, c.Args[2], true
}

// mcpCommand recognises the MCP server command install writes:
// BIN [--home DIR] mcp.
func mcpCommand(argv []string) (Command, bool) {
	c, ok := parseArgv(argv)
	if !ok || len(c.Args) != 1 || c.Args[0] != "mcp" {
		return Command{}, false
	}
	return c, true
}

// shellQuote quotes s for a POSIX shell when it holds anything but
// characters that need no quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=+@%,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin quotes words the way a POSIX shell reads them back: a
// command line to print, to write into a host's configuration, or to
// archive as what ran.
func ShellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// shellSplit splits a command line into words as a POSIX shell would for
// the quoting install writes (single quotes, double quotes, backslashes);
// it expands nothing.
func shellSplit(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// DefaultBin is the memex binary install writes when none is given: this
// process's own executable, under the name PATH finds it by when PATH
// leads to the same file (a symlink such as /usr/local/bin/memex outlives
// an upgrade that moves its target).
func DefaultBin() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this memex binary is (give --bin): %w", err)
	}
	if p, err := exec.LookPath("memex"); err == nil {
		if abs, err := filepath.Abs(p); err == nil && sameFile(abs, exe) {
			return abs, nil
		}
	}
	return exe, nil
}

func sameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// CheckBin makes sure bin is a memex binary a host can run: an absolute
// path to an executable file that answers --version as memex. Each error
// says in one line how to fix it (memex.ErrInvalid).
func CheckBin(ctx context.Context, bin string) error {
	if !filepath.IsAbs(bin) {
		fix := "give its absolute path"
		if p, err := exec.LookPath(bin); err == nil {
			if abs, err := filepath.Abs(p); err == nil {
				fix = "use --bin " + shellQuote(abs)
			}
		}
		return fmt.Errorf("--bin %s is not an absolute path, and a host runs it from another directory with another PATH: %s: %w", bin, fix, memex.ErrInvalid)
	}
	if strings.Contains(bin, string(filepath.Separator)+"go-build") {
		return fmt.Errorf("%s is a temporary binary of go run, deleted when it exits: install memex (go install ./cmd/memex) and run that one: %w", bin, memex.ErrInvalid)
	}
	fi, err := os.Stat(bin)
	if err != nil {
		return fmt.Errorf("%s: no such file: install memex there or give --bin the path of one: %w", bin, memex.ErrInvalid)
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file: chmod +x it or give --bin another: %w", bin, memex.ErrInvalid)
	}
	line, err := RunsVersion(ctx, bin)
	if err == nil && strings.HasPrefix(line, HookBinName+" ") {
		// It answers, but only tool-call hooks may run it (HookBin).
		err = fmt.Errorf("it is %s, which only spools tool calls", HookBinName)
	}
	if err != nil {
		return fmt.Errorf("%s does not run as memex (%v): give --bin the path of a memex binary: %w", bin, err, memex.ErrInvalid)
	}
	return nil
}

// RunsVersion runs bin --version (for at most five seconds) and returns
// the version line it prints, or why it does not answer as memex (or as
// memex-hook, which names the memex it hands over to, and fails when it
// finds none).
func RunsVersion(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(line, "memex ") && !strings.HasPrefix(line, "memex-hook ") {
		return "", fmt.Errorf("it printed %q", line)
	}
	return line, nil
}
