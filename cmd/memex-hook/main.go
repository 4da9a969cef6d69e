// Command memex-hook is memex's hook for a tool call that has just run
// (PostToolUse): it takes the same arguments as `memex hook` and builds the
// same entry, through the same write policy, but it does not link the
// store, the index, the server or the MCP SDK, whose package
// initialisation was most of a hook's CPU (docs/performance.md, Hooks).
//
//	memex-hook [--home DIR] hook HOST EVENT [JSON]
//	memex-hook --version
//
// With no server running, it spools the call (a synced file: as durable as
// an add, which acknowledges it) and exits; when it was the last hook in
// flight it starts `memex hook HOST drain`, which archives the spool in one
// open of the store, and does not wait for it. Everything else goes to
// memex itself, with the host's JSON on its stdin: any other event
// (SessionStart prints context, a PreCompact imports a transcript), a
// failed call that may earn a lesson line, a running server, a spool that
// refuses the item. memex is the binary beside memex-hook, else the one on
// PATH.
//
// Like memex hook, it always exits 0 and prints nothing on stdout but what
// memex prints for the host; problems go to stderr.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/memex-archive/memex/internal/buildinfo"

	"github.com/memex-archive/memex/internal/homedir"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/redact"
	"github.com/memex-archive/memex/internal/spool"
)

func main() {
	if err := Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "memex-hook:", err)
		os.Exit(2)
	}
}

const usage = "usage: memex-hook [--home DIR] hook HOST EVENT [JSON] | memex-hook --version"

// Run runs memex-hook with args. Only a command line it does not know
// (or --version without a memex to hand over to) is an error: a hook
// reports its problems on stderr and returns nil.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	flagHome, rest := homeFlag(args)
	if len(rest) == 1 && rest[0] == "--version" {
		bin, err := memexBinary()
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "memex-hook %s, hands over to %s\n", buildVersion(), bin)
		return nil
	}
	if len(rest) < 3 || len(rest) > 4 || rest[0] != "hook" {
		return errors.New(usage)
	}
	dir, err := homedir.Resolve(flagHome)
	if err != nil {
		fmt.Fprintf(stderr, "memex-hook: %v\n", err)
		return nil
	}
	h := hook{ctx: ctx, home: dir, host: rest[1], event: rest[2], stdout: stdout, stderr: stderr}
	var in io.Reader = io.LimitReader(stdin, hosts.MaxHookInput)
	if len(rest) == 4 {
		in = strings.NewReader(rest[3])
	}
	h.run(in)
	return nil
}

type hook struct {
	ctx            context.Context
	home           string
	host, event    string
	stdout, stderr io.Writer
}

func (h hook) run(in io.Reader) {
	raw, err := io.ReadAll(in)
	if err != nil {
		fmt.Fprintf(h.stderr, "memex hook: read input: %v\n", err)
		return
	}
	if !h.capture(raw) {
		h.memex(bytes.NewReader(raw), h.stdout, "hook", h.host, h.event)
	}
}

// capture spools the tool call raw holds, as memex hook does without a
// server, and reports whether it did: false leaves the call to memex.
func (h hook) capture(raw []byte) bool {
	if !hosts.HasHooks(h.host) {
		return false
	}
	hi, err := hosts.ReadHook(bytes.NewReader(raw))
	if err != nil {
		return false // memex says what is wrong, and notes it for memex doctor
	}
	event := h.event
	if hi.Event != "" {
		event = hi.Event
	}
	event = hosts.Event(event)
	if event != "PostToolUse" && event != "PostToolUseFailure" {
		return false
	}
	if serverNamed(h.home) {
		return false
	}
	e, body := hosts.ToolEntry(h.host, hi)
	if !hosts.EnvOff("MEMEX_LESSONS") && e.Exit != nil && *e.Exit != 0 {
		return false // a failed call: memex asks the store for a lesson line
	}
	// The write policy memex's Service applies (service.Policy), before
	// the item reaches the disk: the spool holds no credentials.
	e, body, _ = redact.Bytes(e, body)
	last, err := spool.Hook(h.home, spool.Item{Entry: &e, Content: body})
	if err != nil {
		return false // memex tries the store, then says why
	}
	if hi.InvalidUTF8 > 0 {
		fmt.Fprintf(h.stderr, "memex hook: the host's JSON holds %d byte sequence(s) that are not valid UTF-8; they are archived as U+FFFD (attrs.invalid_utf8 counts them)\n", hi.InvalidUTF8)
	}
	hosts.RecordHook(h.home, hosts.HookRun{Host: h.host, Event: event, Session: hi.SessionID, At: time.Now().UTC()})
	if last && !spool.Taken(filepath.Join(h.home, homedir.LockFile)) {
		// A store taken (by the drain another hook started, say) would
		// only make the drain fail busy: its holder, or the next process
		// that takes it, archives the spool.
		h.startDrain()
	}
	return true
}

// startDrain starts `memex hook HOST drain` and does not wait for it: the
// call is acknowledged once spooled, and the host need not wait for a
// store to open. The drain runs in a session of its own, without the
// host's pipes (a host reading the hook's stderr to its end would wait
// for the drain too); its problems go to memex doctor's note.
func (h hook) startDrain() {
	bin, err := memexBinary()
	if err != nil {
		fmt.Fprintf(h.stderr, "memex-hook: %v\n", err)
		return
	}
	cmd := exec.Command(bin, "--home", h.home, "hook", h.host, spool.DrainEvent)
	detach(cmd)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(h.stderr, "memex-hook: %s: %v\n", bin, err)
		return
	}
	cmd.Process.Release()
}

// memex runs memex on the same home with args and waits for it.
func (h hook) memex(stdin io.Reader, stdout io.Writer, args ...string) {
	bin, err := memexBinary()
	if err != nil {
		fmt.Fprintf(h.stderr, "memex-hook: %v\n", err)
		return
	}
	cmd := exec.CommandContext(h.ctx, bin, append([]string{"--home", h.home}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, h.stderr
	var exit *exec.ExitError
	if err := cmd.Run(); err != nil && !errors.As(err, &exit) {
		fmt.Fprintf(h.stderr, "memex-hook: %s: %v\n", bin, err)
	}
}

// memexBinary is the memex memex-hook hands over to: the one beside it
// (as go install ./cmd/... and memex install lay them out), else the one
// on PATH.
func memexBinary() (string, error) {
	name := "memex"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("memex")
	if err != nil {
		return "", fmt.Errorf("no memex binary beside this one or on PATH: install both (go install ./cmd/...)")
	}
	return filepath.Abs(p)
}

// homeFlag takes --home DIR (or --home=DIR) from the front of args, as
// memex's command lines written by memex install have it.
func homeFlag(args []string) (dir string, rest []string) {
	for len(args) > 0 {
		switch {
		case args[0] == "--home" && len(args) > 1:
			dir, args = args[1], args[2:]
			continue
		case strings.HasPrefix(args[0], "--home="):
			dir, args = strings.TrimPrefix(args[0], "--home="), args[1:]
			continue
		}
		break
	}
	return dir, args
}

// serverNamed reports whether dir's serve.addr names a server, as
// home.ReadServer reads it: then the call goes to memex, which sends it
// there (or finds the server gone).
func serverNamed(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, homedir.ServerFile))
	if err != nil {
		return false
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(first) != ""
}

// buildVersion is the commit memex-hook was built from, when it knows.
func buildVersion() string {
	b := buildinfo.Read("")
	switch {
	case b.Commit != "" && b.Modified:
		return b.ShortCommit() + "+modified"
	case b.Commit != "":
		return b.ShortCommit()
	case b.Version != "":
		return b.Version
	}
	return "(unknown build)"
}
