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
var Names = []string{"claude-code", "codex", "gemini", "opencode"}

// Layout says, for usage text, which files install changes per host.
const Layout = `  claude-code  hooks in ~/.claude/settings.json (project: .claude/settings.json),
               MCP server in ~/.claude.json (project: .mcp.json)
  codex        hooks in ~/.codex/hooks.json (project: .codex/hooks.json),
               MCP server in ~/.codex/config.toml (project: .codex/config.toml)
  gemini       hooks and MCP server in ~/.gemini/settings.json (project: .gemini/settings.json;
               $GEMINI_CLI_HOME/.gemini when Gemini CLI's GEMINI_CLI_HOME is set)
  opencode     plugin ~/.config/opencode/plugins/memex.js (project: .opencode/plugins/memex.js),
               MCP server in ~/.config/opencode/opencode.json (project: opencode.json)
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
// with "memex" (found on PATH) as the command and the default memex home.
type Options struct {
	// Project selects the project's configuration files (under Dir)
	// instead of the user's.
	Project bool
	// Bin is the memex binary the host runs (see CheckBin); "" is
	// "memex".
	Bin string
	// HookBin is the binary the host's PostToolUse hook runs instead of
	// Bin: memex-hook, which spools a tool call without linking the
	// store (see HookBinBeside); "" runs Bin for every hook.
	HookBin string
	// Home is the memex home the installed commands use (--home), ""
	// for the default one.
	Home string
	// Manifest is the file where install records what it created and the
	// user's own originals, so that uninstall can remove the one and
	// restore the other; "" keeps no record.
	Manifest string
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
	Host    string
	Path    string
	Old     []byte
	New     []byte
	Existed bool
	// Remove deletes the file: uninstall of a file install created, that
	// holds nothing else.
	Remove bool
	// Restored is the backup whose bytes New is: uninstall of a file
	// nobody changed since install gives back the user's own original.
	Restored string

	uninstall bool
	manifest  string
}

// Changed reports whether applying c writes anything.
func (c Change) Changed() bool {
	if c.Remove {
		return c.Existed
	}
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

// geminiHooks: Gemini CLI's AfterTool carries no id of the call that the
// session file also records, so a capture there could not be told from
// the same call imported later; its calls are archived from the session
// file at the end of every turn (AfterAgent), before a compression and
// when the session ends.
var geminiHooks = []hookSpec{
	{"SessionStart", "", 10, false},
	{"AfterAgent", "", 10, false},
	{"PreCompress", "", 120, false},
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
	// whole: install writes the file whole, uninstall removes it.
	whole bool
}

// Plan reads the configuration files install (or uninstall, when remove is
// set) changes for host and returns each file's change, without writing
// anything. An unknown host is memex.ErrInvalid; a file that is not what
// the host reads (invalid JSON, a key of another shape) is
// memex.ErrInvalid with the file's path and what to fix.
//
// Uninstall removes memex's handlers and server entries whatever binary
// and home they name. With a manifest, a file install created is removed
// when nothing else is left in it, and a file nobody changed since install
// gets the user's original bytes back.
func Plan(host string, o Options, remove bool) ([]Change, error) {
	if err := o.fill(); err != nil {
		return nil, err
	}
	edits, err := hostEdits(host, o, remove)
	if err != nil {
		return nil, err
	}
	m, err := readManifest(o.Manifest)
	if err != nil {
		return nil, err
	}
	var out []Change
	for _, e := range edits {
		old, err := os.ReadFile(e.path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		c := Change{Host: host, Path: e.path, Old: old, Existed: err == nil, uninstall: remove, manifest: o.Manifest}
		if c.New, err = e.fn(old); err != nil {
			return nil, fmt.Errorf("%s: %w", e.path, err)
		}
		if e.whole && remove {
			// A file install writes whole holds nothing of the user's.
			c.Remove = c.Existed && c.New == nil
		}
		if rec, ok := m.Files[e.path]; ok && remove && c.Existed {
			untouched := rec.Written == digest(old)
			switch {
			case rec.Created && (untouched || emptyConfig(c.New)):
				c.Remove = true
			case untouched && rec.Original != "":
				if orig, err := os.ReadFile(rec.Original); err == nil {
					c.New, c.Restored = orig, rec.Original
				}
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// emptyConfig reports whether b holds no configuration: nothing, blank
// lines, or an empty JSON object.
func emptyConfig(b []byte) bool {
	t := bytes.TrimSpace(b)
	return len(t) == 0 || string(t) == "{}"
}

// layout is where a host keeps what install writes: the file of its hook
// handlers ("" for a host without command hooks) and the file of its MCP
// servers, under serverKey (a JSON object of servers) or, with toml set,
// Codex's config.toml.
type layout struct {
	hooks string
	specs []hookSpec
	// msTimeout: the host reads a handler's timeout in milliseconds.
	msTimeout bool
	server    string
	serverKey string
	toml      bool
	// newServer is the server entry install writes.
	newServer func(argv []string) *object
	// plugin is the plugin file install writes whole (OpenCode's).
	plugin string
}

// hostLayout is host's layout for o's scope.
func hostLayout(host string, o *Options) (layout, error) {
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
		return layout{
			hooks: pick(filepath.Join(dir, "settings.json"), filepath.Join(o.Dir, ".claude", "settings.json")), specs: claudeHooks,
			server: pick(mcpFile, filepath.Join(o.Dir, ".mcp.json")), serverKey: "mcpServers",
			newServer: func(argv []string) *object {
				return newObject("type", "stdio", "command", argv[0], "args", anys(argv[1:]))
			},
		}, nil
	case "codex":
		dir := ingest.CodexHome(o.Getenv, o.UserHome)
		if o.Project {
			dir = filepath.Join(o.Dir, ".codex")
		}
		return layout{hooks: filepath.Join(dir, "hooks.json"), specs: codexHooks, server: filepath.Join(dir, "config.toml"), toml: true}, nil
	case "gemini":
		file := pick(filepath.Join(ingest.GeminiHome(o.Getenv, o.UserHome), "settings.json"), filepath.Join(o.Dir, ".gemini", "settings.json"))
		return layout{
			hooks: file, specs: geminiHooks, msTimeout: true, server: file, serverKey: "mcpServers",
			newServer: func(argv []string) *object {
				return newObject("command", argv[0], "args", anys(argv[1:]))
			},
		}, nil
	case "opencode":
		cfg := filepath.Join(o.UserHome, ".config")
		if d := o.Getenv("XDG_CONFIG_HOME"); d != "" {
			cfg = d
		}
		return layout{
			plugin: pick(filepath.Join(cfg, "opencode", "plugins", "memex.js"), filepath.Join(o.Dir, ".opencode", "plugins", "memex.js")),
			server: pick(filepath.Join(cfg, "opencode", "opencode.json"), filepath.Join(o.Dir, "opencode.json")), serverKey: "mcp",
			newServer: func(argv []string) *object {
				return newObject("type", "local", "command", anys(argv), "enabled", true)
			},
		}, nil
	}
	return layout{}, fmt.Errorf("unknown host %q: want %s: %w", host, strings.Join(Names, ", "), memex.ErrInvalid)
}

// hostEdits lists the files a host's install touches, with their edits.
// Hooks and servers in one file make one edit.
func hostEdits(host string, o Options, remove bool) ([]edit, error) {
	l, err := hostLayout(host, &o)
	if err != nil {
		return nil, err
	}
	var out []edit
	hooks := func(root *object) error { return editHooks(root, &o, host, l.specs, l.msTimeout, remove) }
	server := func(root *object) error { return editServer(root, l.serverKey, l.newServer(o.argv("mcp")), remove) }
	if l.hooks != "" && l.hooks != l.server {
		out = append(out, edit{path: l.hooks, fn: jsonEdit(hooks)})
	}
	if l.plugin != "" {
		out = append(out, edit{path: l.plugin, fn: pluginEdit(&o, remove), whole: true})
	}
	switch {
	case l.toml:
		out = append(out, edit{path: l.server, fn: tomlEdit(&o, remove)})
	case l.hooks == l.server:
		out = append(out, edit{path: l.server, fn: jsonEdit(func(root *object) error {
			if err := hooks(root); err != nil {
				return err
			}
			return server(root)
		})})
	default:
		out = append(out, edit{path: l.server, fn: jsonEdit(server)})
	}
	return out, nil
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
				return nil, fmt.Errorf("not valid JSON at %v (fix or move it, then run again): %w", err, memex.ErrInvalid)
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

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// memexHandlers calls fn for every handler under hooks.EVENT that is one
// install writes for host; fn returns false to drop the handler. It
// reports whether any handler was dropped.
func memexHandlers(hooks *object, event, host string, fn func(h *object, c Command) bool) bool {
	groups, ok := hooks.get(event).([]any)
	if !ok {
		return false
	}
	var kept []any
	dropped := false
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
				line, _ := hobj.get("command").(string)
				if c, ev, ok := hookCommand(line, host); ok && ev == event && !fn(hobj, c) {
					continue
				}
			}
			keepH = append(keepH, h)
		}
		if len(keepH) == len(hs) {
			kept = append(kept, g)
			continue
		}
		dropped = true
		if len(keepH) == 0 {
			continue // the group held only memex's handler
		}
		gobj.set("hooks", keepH)
		kept = append(kept, g)
	}
	if dropped {
		if len(kept) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, kept)
		}
	}
	return dropped
}

// editHooks adds (or removes) the memex handlers under root.hooks. A
// memex handler that runs another binary or home than o's (an earlier
// install) is updated in place; uninstall removes memex's handlers
// whatever they run.
func editHooks(root *object, o *Options, host string, specs []hookSpec, msTimeout, remove bool) error {
	hooks, ok := root.get("hooks").(*object)
	if !ok && root.get("hooks") != nil {
		return notShaped("hooks", "an object")
	}
	if remove {
		if hooks == nil {
			return nil
		}
		for _, ev := range append([]string(nil), hooks.keys...) {
			memexHandlers(hooks, ev, host, func(*object, Command) bool { return false })
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
		cmd := ShellJoin(o.hookArgv(host, sp.event))
		groups, ok := hooks.get(sp.event).([]any)
		if !ok && hooks.get(sp.event) != nil {
			return notShaped("hooks."+sp.event, "a list")
		}
		present := false
		memexHandlers(hooks, sp.event, host, func(h *object, _ Command) bool {
			if !present && h.get("command") != cmd {
				h.set("command", cmd)
			}
			present = true
			return true
		})
		if present {
			continue
		}
		g := newObject()
		if sp.matcher != "" {
			g.set("matcher", sp.matcher)
		}
		timeout := sp.timeout
		if msTimeout {
			timeout *= 1000
		}
		h := newObject("type", "command", "command", cmd, "timeout", json.Number(fmt.Sprint(timeout)))
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

// serverCommand reads the command line of an MCP server entry: Claude
// Code's command string with its args, or OpenCode's command array.
func serverCommand(server *object) []string {
	var argv []string
	switch c := server.get("command").(type) {
	case string:
		argv = append(argv, c)
		args, _ := server.getArr("args")
		for _, a := range args {
			s, ok := a.(string)
			if !ok {
				return nil
			}
			argv = append(argv, s)
		}
	case []any:
		for _, a := range c {
			s, ok := a.(string)
			if !ok {
				return nil
			}
			argv = append(argv, s)
		}
	}
	return argv
}

// editServer adds (or removes) root[key].memex = server. An entry named
// memex that install wrote (its command is BIN [--home DIR] mcp) is
// updated to server; one of another shape is the user's and left alone.
func editServer(root *object, key string, server *object, remove bool) error {
	servers, ok := root.get(key).(*object)
	if !ok && root.get(key) != nil {
		return notShaped(key, "an object")
	}
	cur, _ := servers.get("memex").(*object)
	_, ours := mcpCommand(serverCommand(cur))
	if remove {
		if servers != nil && cur != nil && ours {
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
	} else if ours {
		// Keep what the user added to the entry (env, timeouts).
		for _, k := range server.keys {
			cur.set(k, server.m[k])
		}
	}
	return nil
}
