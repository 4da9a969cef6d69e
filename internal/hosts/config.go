package hosts

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
)

// Names lists the hosts install knows, for usage text.
var Names = []string{"claude-code", "codex", "opencode"}

// Layout says, for usage text, which files install changes per host.
const Layout = `  claude-code  hooks in ~/.claude/settings.json (project: .claude/settings.json),
               MCP server in ~/.claude.json (project: .mcp.json)
  codex        hooks in ~/.codex/hooks.json (project: .codex/hooks.json),
               MCP server in ~/.codex/config.toml (project: .codex/config.toml)
  opencode     MCP server in ~/.config/opencode/opencode.json (project: opencode.json);
               OpenCode has no command hooks
`

// Known reports whether name is a host install knows.
func Known(name string) bool {
	for _, n := range Names {
		if n == name {
			return true
		}
	}
	return false
}

// Options says where and for what memex is installed. The zero value
// installs the user-scope configuration in the user's home directory,
// with "memex" (found on PATH) as the command.
type Options struct {
	// Project selects the project's configuration files (under Dir)
	// instead of the user's.
	Project bool
	// Bin is the memex command the host runs; "" is "memex".
	Bin string
	// UserHome replaces the user's home directory; "" is os.UserHomeDir.
	UserHome string
	// Dir is the project directory; "" is the working directory.
	Dir string
	// Getenv replaces os.Getenv (tests).
	Getenv func(string) string
}

func (o *Options) fill() error {
	if o.Bin == "" {
		o.Bin = "memex"
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.UserHome == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("hosts: cannot find the home directory: %w", err)
		}
		o.UserHome = h
	}
	if o.Dir == "" {
		d, err := os.Getwd()
		if err != nil {
			return err
		}
		o.Dir = d
	}
	return nil
}

// Change is one configuration file's change: its content before (nil for a
// file that does not exist) and after.
type Change struct {
	Path    string
	Old     []byte
	New     []byte
	Existed bool
}

// Changed reports whether applying c writes anything.
func (c Change) Changed() bool {
	return !bytes.Equal(c.Old, c.New) && (c.Existed || len(c.New) > 0)
}

// hookSpec is one hook handler install adds.
type hookSpec struct {
	event, matcher string
	timeout        int
	// async runs the handler in the background: the agent never waits
	// for the capture (a store open costs a few fsyncs).
	async bool
}

var claudeHooks = []hookSpec{
	{"PostToolUse", "*", 10, true},
	{"PostToolUseFailure", "*", 10, true},
	{"PreCompact", "", 120, false},
	{"SessionStart", "startup|resume|clear|compact", 10, false},
	{"Stop", "", 10, false},
	{"SessionEnd", "", 5, false},
}

var codexHooks = []hookSpec{
	{"PostToolUse", "*", 10, false},
	{"PreCompact", "", 120, false},
	{"SessionStart", "", 10, false},
	{"Stop", "", 10, false},
}

// edit is one file's change: fn returns the new content from the old
// (nil for a missing file).
type edit struct {
	path string
	fn   func(old []byte) ([]byte, error)
}

// Plan reads the configuration files install (or uninstall, when remove is
// set) changes for host and returns each file's change, without writing
// anything. An unknown host is memex.ErrInvalid; a file that is not what
// the host reads (invalid JSON, a key of another shape) is
// memex.ErrInvalid with the file's path and what to fix.
func Plan(host string, o Options, remove bool) ([]Change, error) {
	if err := o.fill(); err != nil {
		return nil, err
	}
	edits, err := hostEdits(host, o, remove)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, e := range edits {
		old, err := os.ReadFile(e.path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		c := Change{Path: e.path, Old: old, Existed: err == nil}
		if c.New, err = e.fn(old); err != nil {
			return nil, fmt.Errorf("%s: %w", e.path, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// hostEdits lists the files a host's install touches.
func hostEdits(host string, o Options, remove bool) ([]edit, error) {
	pick := func(user, proj string) string {
		if o.Project {
			return proj
		}
		return user
	}
	switch host {
	case "claude-code":
		dir := filepath.Join(o.UserHome, ".claude")
		mcpFile := filepath.Join(o.UserHome, ".claude.json")
		if d := o.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			dir, mcpFile = d, filepath.Join(d, ".claude.json")
		}
		server := newObject("type", "stdio", "command", o.Bin, "args", []any{"mcp"})
		return []edit{
			{pick(filepath.Join(dir, "settings.json"), filepath.Join(o.Dir, ".claude", "settings.json")),
				jsonEdit(func(root *object) error { return editHooks(root, o.Bin, "claude-code", claudeHooks, remove) })},
			{pick(mcpFile, filepath.Join(o.Dir, ".mcp.json")),
				jsonEdit(func(root *object) error { return editServer(root, "mcpServers", server, remove) })},
		}, nil
	case "codex":
		dir := ingest.CodexHome(o.Getenv, o.UserHome)
		if o.Project {
			dir = filepath.Join(o.Dir, ".codex")
		}
		return []edit{
			{filepath.Join(dir, "hooks.json"), jsonEdit(func(root *object) error { return editHooks(root, o.Bin, "codex", codexHooks, remove) })},
			{filepath.Join(dir, "config.toml"), tomlEdit(o.Bin, remove)},
		}, nil
	case "opencode":
		cfg := filepath.Join(o.UserHome, ".config")
		if d := o.Getenv("XDG_CONFIG_HOME"); d != "" {
			cfg = d
		}
		server := newObject("type", "local", "command", []any{o.Bin, "mcp"}, "enabled", true)
		return []edit{
			{pick(filepath.Join(cfg, "opencode", "opencode.json"), filepath.Join(o.Dir, "opencode.json")),
				jsonEdit(func(root *object) error { return editServer(root, "mcp", server, remove) })},
		}, nil
	}
	return nil, fmt.Errorf("unknown host %q: want %s: %w", host, strings.Join(Names, ", "), memex.ErrInvalid)
}

// jsonEdit applies fn to a JSON object file, keeping key order. A missing
// or empty file is an empty object; a result that is an empty object from
// a missing file writes nothing.
func jsonEdit(fn func(*object) error) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		root := newObject()
		if len(bytes.TrimSpace(old)) > 0 {
			v, err := parseOrdered(old)
			if err != nil {
				return nil, fmt.Errorf("not valid JSON (fix or move it, then run again): %v: %w", err, memex.ErrInvalid)
			}
			o, ok := v.(*object)
			if !ok {
				return nil, fmt.Errorf("not a JSON object: %w", memex.ErrInvalid)
			}
			root = o
		}
		before := encodeOrdered(root)
		if err := fn(root); err != nil {
			return nil, err
		}
		after := encodeOrdered(root)
		if bytes.Equal(before, after) {
			return old, nil // untouched: keep the file byte for byte
		}
		if len(old) == 0 && len(root.keys) == 0 {
			return nil, nil
		}
		return after, nil
	}
}

func hookCommandLine(bin, host, event string) string {
	return bin + " hook " + host + " " + event
}

// isMemexHook reports whether a handler command is one install adds.
func isMemexHook(cmd, bin, host string) bool {
	return strings.HasPrefix(cmd, bin+" hook "+host+" ")
}

// editHooks adds (or removes) the memex handlers under root.hooks.
func editHooks(root *object, bin, host string, specs []hookSpec, remove bool) error {
	hooks, ok := root.get("hooks").(*object)
	if !ok && root.get("hooks") != nil {
		return notShaped("hooks", "an object")
	}
	if remove {
		if hooks == nil {
			return nil
		}
		for _, ev := range append([]string(nil), hooks.keys...) {
			groups, ok := hooks.get(ev).([]any)
			if !ok {
				continue
			}
			var kept []any
			changed := false
			for _, g := range groups {
				gobj, ok := g.(*object)
				hs, ok2 := gobj.getArr("hooks")
				if !ok || !ok2 {
					kept = append(kept, g)
					continue
				}
				keepH := []any{}
				for _, h := range hs {
					if hobj, ok := h.(*object); ok {
						if cmd, _ := hobj.get("command").(string); isMemexHook(cmd, bin, host) {
							continue
						}
					}
					keepH = append(keepH, h)
				}
				if len(keepH) == len(hs) {
					kept = append(kept, g)
					continue
				}
				changed = true
				if len(keepH) == 0 {
					continue // the group held only memex's handler
				}
				gobj.set("hooks", keepH)
				kept = append(kept, g)
			}
			if !changed {
				continue
			}
			if len(kept) == 0 {
				hooks.del(ev)
			} else {
				hooks.set(ev, kept)
			}
		}
		if len(hooks.keys) == 0 {
			root.del("hooks")
		}
		return nil
	}
	if hooks == nil {
		hooks = newObject()
		root.set("hooks", hooks)
	}
	for _, sp := range specs {
		cmd := hookCommandLine(bin, host, sp.event)
		groups, ok := hooks.get(sp.event).([]any)
		if !ok && hooks.get(sp.event) != nil {
			return notShaped("hooks."+sp.event, "a list")
		}
		present := false
		for _, g := range groups {
			if gobj, ok := g.(*object); ok {
				hs, _ := gobj.getArr("hooks")
				for _, h := range hs {
					if hobj, ok := h.(*object); ok && hobj.get("command") == cmd {
						present = true
					}
				}
			}
		}
		if present {
			continue
		}
		g := newObject()
		if sp.matcher != "" {
			g.set("matcher", sp.matcher)
		}
		h := newObject("type", "command", "command", cmd, "timeout", json.Number(fmt.Sprint(sp.timeout)))
		if sp.async {
			h.set("async", true)
		}
		g.set("hooks", []any{h})
		hooks.set(sp.event, append(groups, g))
	}
	return nil
}

// notShaped is the error for a configuration key of an unexpected type:
// install refuses rather than overwrite what the user wrote.
func notShaped(key, want string) error {
	return fmt.Errorf("%q is not %s; fix it by hand, then run again: %w", key, want, memex.ErrInvalid)
}

// editServer adds (or removes) root[key].memex = server. An entry named
// memex that is not install's own is left alone.
func editServer(root *object, key string, server *object, remove bool) error {
	servers, ok := root.get(key).(*object)
	if !ok && root.get(key) != nil {
		return notShaped(key, "an object")
	}
	if remove {
		if servers == nil {
			return nil
		}
		if cur, ok := servers.get("memex").(*object); ok && bytes.Equal(encodeOrdered(cur), encodeOrdered(server)) {
			servers.del("memex")
			if len(servers.keys) == 0 {
				root.del(key)
			}
		}
		return nil
	}
	if servers == nil {
		servers = newObject()
		root.set(key, servers)
	}
	if _, present := servers.m["memex"]; !present {
		servers.set("memex", server)
	}
	return nil
}
