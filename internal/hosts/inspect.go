package hosts

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Installation is what a host's configuration (of one scope) holds of
// memex: the handlers and the server entry install writes, and the
// commands they run.
type Installation struct {
	Host  string `json:"host"`
	Scope string `json:"scope"` // "user" or "project"
	// Files are the configuration files read.
	Files []string `json:"files"`
	// Hooks maps each event install registers to the memex command found
	// for it; Missing lists the events without one.
	Hooks   map[string]Command `json:"hooks,omitempty"`
	Missing []string           `json:"missing_hooks,omitempty"`
	// Server is the memex MCP server entry, nil when there is none (or
	// one of the user's own that runs something else).
	Server *Command `json:"mcp_server,omitempty"`
	// Notify is Codex's notify program, when it is memex's.
	Notify *Command `json:"notify,omitempty"`
	// Plugin is the memex command OpenCode's plugin runs (its hooks), and
	// PluginTool the one it runs for a tool call, when the plugin is
	// memex's; "plugin" is in Missing when it is not there.
	Plugin     *Command `json:"plugin,omitempty"`
	PluginTool *Command `json:"plugin_tool,omitempty"`
	// Errors are files that could not be read as the host reads them.
	Errors []string `json:"errors,omitempty"`
}

// Present reports whether the configuration holds any part of memex.
func (i Installation) Present() bool {
	return len(i.Hooks) > 0 || i.Server != nil || i.Notify != nil || i.Plugin != nil
}

// Commands lists the memex commands the configuration runs.
func (i Installation) Commands() []Command {
	var out []Command
	for _, sp := range i.specs() {
		if c, ok := i.Hooks[sp.event]; ok {
			out = append(out, c)
		}
	}
	if i.Server != nil {
		out = append(out, *i.Server)
	}
	if i.Notify != nil {
		out = append(out, *i.Notify)
	}
	for _, c := range []*Command{i.Plugin, i.PluginTool} {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out
}

func (i Installation) specs() []hookSpec {
	var o Options
	o.fill()
	l, _ := hostLayout(i.Host, &o)
	return l.specs
}

// Inspect reads what host's configuration (of o's scope) holds of memex.
// A missing file holds nothing; one that does not parse is in Errors.
func Inspect(host string, o Options) (Installation, error) {
	in := Installation{Host: host, Scope: "user", Hooks: map[string]Command{}}
	if o.Project {
		in.Scope = "project"
	}
	if err := o.fill(); err != nil {
		return in, err
	}
	l, err := hostLayout(host, &o)
	if err != nil {
		return in, err
	}
	read := func(path string) (*object, bool) {
		if !contains(in.Files, path) {
			in.Files = append(in.Files, path)
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, false
		}
		if err != nil {
			in.Errors = append(in.Errors, err.Error())
			return nil, false
		}
		if len(strings.TrimSpace(string(b))) == 0 {
			return nil, false
		}
		v, err := parseOrdered(b)
		root, ok := v.(*object)
		if err != nil {
			in.Errors = append(in.Errors, fmt.Sprintf("%s: not valid JSON at %v, which the host cannot read", path, err))
			return nil, false
		}
		if !ok {
			in.Errors = append(in.Errors, fmt.Sprintf("%s: not a JSON object the host can read", path))
			return nil, false
		}
		return root, true
	}
	if l.hooks != "" {
		root, _ := read(l.hooks)
		hooks, _ := root.get("hooks").(*object)
		for _, sp := range l.specs {
			found := false
			if hooks != nil {
				memexHandlers(hooks, sp.event, host, func(_ *object, c Command) bool {
					if !found {
						in.Hooks[sp.event] = c
					}
					found = true
					return true
				})
			}
			if !found {
				in.Missing = append(in.Missing, sp.event)
			}
		}
	}
	if l.plugin != "" {
		in.Files = append(in.Files, l.plugin)
		b, err := os.ReadFile(l.plugin)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			in.Errors = append(in.Errors, err.Error())
		}
		if strings.HasPrefix(string(b), pluginMarker) {
			in.Plugin, in.PluginTool = pluginCommand(b, "MEMEX"), pluginCommand(b, "MEMEX_TOOL")
		}
		if in.Plugin == nil {
			in.Missing = append(in.Missing, "plugin")
		}
	}
	if l.toml {
		in.Files = append(in.Files, l.server)
		b, err := os.ReadFile(l.server)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			in.Errors = append(in.Errors, err.Error())
		}
		s := string(b)
		if argv := tomlArgv(blockText(s, tomlNotifyBegin, tomlNotifyEnd), "notify"); argv != nil {
			if c, ok := parseArgv(argv); ok {
				in.Notify = &c
			}
		}
		if in.Notify == nil && !hasTopLevelKey(s, "notify") {
			// install writes memex's notify unless the user has one of
			// their own: with neither, it was taken out.
			in.Missing = append(in.Missing, "notify")
		}
		srv := blockText(s, tomlBegin, tomlEnd)
		if cmd := tomlArgv(srv, "command"); len(cmd) == 1 {
			if c, ok := mcpCommand(append(cmd, tomlArgv(srv, "args")...)); ok {
				in.Server = &c
			}
		}
		return in, nil
	}
	if root, ok := read(l.server); ok {
		servers, _ := root.get(l.serverKey).(*object)
		if cur, ok := servers.get("memex").(*object); ok {
			if c, ok := mcpCommand(serverCommand(cur)); ok {
				in.Server = &c
			}
		}
	}
	return in, nil
}

// pluginCommand reads the command of `const NAME = [...]` in the plugin
// install writes (OpenCodePlugin); nil when it is not there.
func pluginCommand(src []byte, name string) *Command {
	for _, line := range strings.Split(string(src), "\n") {
		v, ok := strings.CutPrefix(line, "const "+name+" = ")
		var argv []string
		if !ok || json.Unmarshal([]byte(v), &argv) != nil {
			continue
		}
		if c, ok := parseArgv(argv); ok {
			return &c
		}
	}
	return nil
}

// tomlArgv reads `key = VALUE` from the lines install writes: a basic
// string (one word) or an array of them. nil when key is absent.
func tomlArgv(block, key string) []string {
	for _, line := range strings.Split(block, "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		v = strings.TrimSpace(v)
		var one string
		if json.Unmarshal([]byte(v), &one) == nil {
			return []string{one}
		}
		var many []string
		if json.Unmarshal([]byte(v), &many) == nil {
			return many
		}
	}
	return nil
}

// Specs lists, for host, the hook events install registers.
func Specs(host string) []string {
	var o Options
	o.fill()
	l, _ := hostLayout(host, &o)
	out := make([]string, len(l.specs))
	for i, sp := range l.specs {
		out[i] = sp.event
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
