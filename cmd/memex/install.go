package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/memex-archive/memex"
	"github.com/spf13/cobra"
)

// install writes memex's hooks and MCP server into an agent host's
// configuration files, merging into what is there: keys keep their order,
// nothing else is touched, a changed file is first copied to
// FILE.memex-backup-TIMESTAMP, and a second install changes nothing.
// uninstall removes exactly the handlers and the server entry that install
// adds (recognised by their command), leaving the rest as it is.

type installOptions struct {
	scope  string
	dryRun bool
	bin    string
}

func (a *app) installCommand() *cobra.Command {
	return a.installLike("install", `Set up memex for an agent host in one command: its hooks (capture every tool output,
import the transcript before a compaction, inject the IndexedSummary after it) and the
memex MCP server (memex_search, memex_read, memex_compress, memex_context).

  claude-code  hooks in ~/.claude/settings.json (project: .claude/settings.json),
               MCP server in ~/.claude.json (project: .mcp.json)
  codex        hooks in ~/.codex/hooks.json (project: .codex/hooks.json),
               MCP server in ~/.codex/config.toml (project: .codex/config.toml)
  opencode     MCP server in ~/.config/opencode/opencode.json (project: opencode.json);
               OpenCode has no command hooks

Existing files are merged, not replaced; a changed file is backed up first; running it
again changes nothing. --dry-run prints the changes without writing.`,
		`  memex install claude-code
  memex install codex --scope project --dry-run`)
}

func (a *app) uninstallCommand() *cobra.Command {
	return a.installLike("uninstall", `Remove what memex install added to a host's configuration: the memex hook handlers
and the memex MCP server entry. Everything else stays as it is; a changed file is backed
up first.`, `  memex uninstall claude-code
  memex uninstall opencode --scope project`)
}

func (a *app) installLike(verb, long, example string) *cobra.Command {
	var o installOptions
	c := &cobra.Command{
		Use:     verb + " claude-code|codex|opencode [--scope user|project] [--dry-run]",
		Short:   strings.ToUpper(verb[:1]) + verb[1:] + " memex's hooks and MCP server in an agent host's configuration",
		Long:    long,
		Example: example,
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return a.runInstall(o, verb == "uninstall", args[0])
		},
	}
	c.Flags().StringVar(&o.scope, "scope", "user", "user (your home) or project (the current directory)")
	c.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the changes without writing them")
	c.Flags().StringVar(&o.bin, "bin", "memex", "the memex command the host runs")
	return c
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

// configEdit is one file's change: edit returns the new content from the
// old (nil for a missing file).
type configEdit struct {
	path string
	edit func(old []byte) ([]byte, error)
}

func (a *app) runInstall(o installOptions, remove bool, host string) error {
	if o.scope != "user" && o.scope != "project" {
		return usagef("--scope %q: want user or project", o.scope)
	}
	edits, err := hostEdits(host, o, remove)
	if err != nil {
		return err
	}
	stamp := time.Now().UTC().Format("20060102T150405Z")
	for _, e := range edits {
		old, err := os.ReadFile(e.path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		existed := err == nil
		neu, err := e.edit(old)
		if err != nil {
			return fmt.Errorf("%s: %w", e.path, err)
		}
		if bytes.Equal(old, neu) || (!existed && len(neu) == 0) {
			fmt.Fprintf(a.stdout, "%s: nothing to change\n", e.path)
			continue
		}
		if o.dryRun {
			fmt.Fprintf(a.stdout, "--- %s\n+++ %s (after memex %s)\n", e.path, e.path, map[bool]string{false: "install", true: "uninstall"}[remove])
			lineDiff(a.stdout, string(old), string(neu))
			continue
		}
		mode := os.FileMode(0o644)
		if existed {
			fi, err := os.Stat(e.path)
			if err == nil {
				mode = fi.Mode().Perm()
			}
			backup := e.path + ".memex-backup-" + stamp
			if err := os.WriteFile(backup, old, mode); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%s: updated (backup in %s)\n", e.path, backup)
		} else {
			fmt.Fprintf(a.stdout, "%s: created\n", e.path)
		}
		if err := os.MkdirAll(filepath.Dir(e.path), 0o755); err != nil {
			return err
		}
		if err := writeFileAtomic(e.path, neu, mode); err != nil {
			return err
		}
	}
	return nil
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp := path + ".memex-tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// hostEdits lists the files a host's install touches.
func hostEdits(host string, o installOptions, remove bool) ([]configEdit, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	project := o.scope == "project"
	pick := func(user, proj string) string {
		if project {
			return proj
		}
		return user
	}
	switch host {
	case "claude-code":
		dir := filepath.Join(home, ".claude")
		mcpFile := filepath.Join(home, ".claude.json")
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			dir, mcpFile = d, filepath.Join(d, ".claude.json")
		}
		server := newObj("type", "stdio", "command", o.bin, "args", []any{"mcp"})
		return []configEdit{
			{pick(filepath.Join(dir, "settings.json"), filepath.Join(cwd, ".claude", "settings.json")),
				jsonEdit(func(root *jobj) error { return editHooks(root, o.bin, "claude-code", claudeHooks, remove) })},
			{pick(mcpFile, filepath.Join(cwd, ".mcp.json")),
				jsonEdit(func(root *jobj) error { return editServer(root, "mcpServers", server, remove) })},
		}, nil
	case "codex":
		dir := filepath.Join(home, ".codex")
		if d := os.Getenv("CODEX_HOME"); d != "" && !project {
			dir = d
		}
		if project {
			dir = filepath.Join(cwd, ".codex")
		}
		return []configEdit{
			{filepath.Join(dir, "hooks.json"), jsonEdit(func(root *jobj) error { return editHooks(root, o.bin, "codex", codexHooks, remove) })},
			{filepath.Join(dir, "config.toml"), tomlEdit(o.bin, remove)},
		}, nil
	case "opencode":
		cfg := filepath.Join(home, ".config")
		if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
			cfg = d
		}
		server := newObj("type", "local", "command", []any{o.bin, "mcp"}, "enabled", true)
		return []configEdit{
			{pick(filepath.Join(cfg, "opencode", "opencode.json"), filepath.Join(cwd, "opencode.json")),
				jsonEdit(func(root *jobj) error { return editServer(root, "mcp", server, remove) })},
		}, nil
	}
	return nil, usagef("unknown host %q: want claude-code, codex or opencode", host)
}

// jsonEdit applies fn to a JSON object file, keeping key order. A missing
// or empty file is an empty object; a result that is an empty object from
// a missing file writes nothing.
func jsonEdit(fn func(*jobj) error) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		root := newObj()
		if len(bytes.TrimSpace(old)) > 0 {
			v, err := parseOrdered(old)
			if err != nil {
				return nil, fmt.Errorf("not valid JSON (fix or move it, then run again): %v: %w", err, memex.ErrInvalid)
			}
			o, ok := v.(*jobj)
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
func editHooks(root *jobj, bin, host string, specs []hookSpec, remove bool) error {
	hooks, ok := root.get("hooks").(*jobj)
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
				gobj, ok := g.(*jobj)
				hs, ok2 := gobj.getArr("hooks")
				if !ok || !ok2 {
					kept = append(kept, g)
					continue
				}
				keepH := []any{}
				for _, h := range hs {
					if hobj, ok := h.(*jobj); ok {
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
		hooks = newObj()
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
			if gobj, ok := g.(*jobj); ok {
				hs, _ := gobj.getArr("hooks")
				for _, h := range hs {
					if hobj, ok := h.(*jobj); ok && hobj.get("command") == cmd {
						present = true
					}
				}
			}
		}
		if present {
			continue
		}
		g := newObj()
		if sp.matcher != "" {
			g.set("matcher", sp.matcher)
		}
		h := newObj("type", "command", "command", cmd, "timeout", json.Number(fmt.Sprint(sp.timeout)))
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
func editServer(root *jobj, key string, server *jobj, remove bool) error {
	servers, ok := root.get(key).(*jobj)
	if !ok && root.get(key) != nil {
		return notShaped(key, "an object")
	}
	if remove {
		if servers == nil {
			return nil
		}
		if cur, ok := servers.get("memex").(*jobj); ok && bytes.Equal(encodeOrdered(cur), encodeOrdered(server)) {
			servers.del("memex")
			if len(servers.keys) == 0 {
				root.del(key)
			}
		}
		return nil
	}
	if servers == nil {
		servers = newObj()
		root.set(key, servers)
	}
	if _, present := servers.m["memex"]; !present {
		servers.set("memex", server)
	}
	return nil
}

const (
	tomlBegin       = "# memex: begin (added by memex install; memex uninstall removes it)"
	tomlEnd         = "# memex: end"
	tomlNotifyBegin = "# memex: begin notify (added by memex install; memex uninstall removes it)"
	tomlNotifyEnd   = "# memex: end notify"
)

// tomlEdit adds (or removes) memex's parts of a Codex config.toml, each
// between marker comments: the notify program (a top-level key, so first
// in the file, unless the user has a notify of their own) and the MCP
// server table (last). A [mcp_servers.memex] table the user wrote is left
// alone.
func tomlEdit(bin string, remove bool) func([]byte) ([]byte, error) {
	return func(old []byte) ([]byte, error) {
		s := string(old)
		if remove {
			var err error
			if s, err = cutBlock(s, tomlNotifyBegin, tomlNotifyEnd); err != nil {
				return nil, err
			}
			if s, err = cutBlock(s, tomlBegin, tomlEnd); err != nil {
				return nil, err
			}
			return []byte(s), nil
		}
		q, _ := json.Marshal(bin)
		if !strings.Contains(s, tomlNotifyBegin) && !hasTopLevelKey(s, "notify") {
			s = tomlNotifyBegin + "\nnotify = [" + string(q) + ", \"hook\", \"codex\", \"notify\"]\n" + tomlNotifyEnd + "\n" + s
		}
		if !strings.Contains(s, tomlBegin) && !strings.Contains(s, "[mcp_servers.memex]") {
			if s != "" {
				if !strings.HasSuffix(s, "\n") {
					s += "\n"
				}
				s += "\n"
			}
			s += tomlBegin + "\n[mcp_servers.memex]\ncommand = " + string(q) + "\nargs = [\"mcp\"]\n" + tomlEnd + "\n"
		}
		return []byte(s), nil
	}
}

// cutBlock removes the lines from begin to end (markers included) and the
// blank line install put before a trailing block.
func cutBlock(s, begin, end string) (string, error) {
	i := strings.Index(s, begin)
	if i < 0 {
		return s, nil
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		return "", fmt.Errorf("memex block %q has no end marker: %w", begin, memex.ErrInvalid)
	}
	stop := i + j + len(end)
	if stop < len(s) && s[stop] == '\n' {
		stop++
	}
	start := i
	if start > 0 && strings.HasSuffix(s[:start], "\n\n") {
		start--
	}
	return s[:start] + s[stop:], nil
}

// hasTopLevelKey reports whether a TOML document sets key before its first
// table.
func hasTopLevelKey(s, key string) bool {
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			return false
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == key {
			return true
		}
	}
	return false
}

// lineDiff prints a minimal line diff of a and b ("-", "+", " " prefixes).
func lineDiff(w io.Writer, a, b string) {
	x, y := splitLines(a), splitLines(b)
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			fmt.Fprintf(w, " %s\n", x[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(w, "+%s\n", y[j])
			j++
		default:
			fmt.Fprintf(w, "-%s\n", x[i])
			i++
		}
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// jobj is a JSON object that keeps its keys in order, so that editing a
// host's configuration does not reorder what the user wrote. Values are
// *jobj, []any, string, json.Number, bool or nil.
type jobj struct {
	keys []string
	m    map[string]any
}

// newObj builds an object from key, value pairs.
func newObj(kv ...any) *jobj {
	o := &jobj{m: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *jobj) get(k string) any {
	if o == nil {
		return nil
	}
	return o.m[k]
}

func (o *jobj) getArr(k string) ([]any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.m[k].([]any)
	return v, ok
}

func (o *jobj) set(k string, v any) {
	if _, ok := o.m[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.m[k] = v
}

func (o *jobj) del(k string) {
	if _, ok := o.m[k]; !ok {
		return
	}
	delete(o.m, k)
	for i, kk := range o.keys {
		if kk == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// parseOrdered decodes one JSON value, keeping object key order.
func parseOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObj()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token()
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token()
			return arr, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return t, nil
	}
}

// encodeOrdered writes v as JSON indented by two spaces, with a final
// newline.
func encodeOrdered(v any) []byte {
	var b bytes.Buffer
	writeValue(&b, v, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, depth int) {
	ind := strings.Repeat("  ", depth+1)
	switch v := v.(type) {
	case *jobj:
		if len(v.keys) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for i, k := range v.keys {
			b.WriteString(ind)
			writeString(b, k)
			b.WriteString(": ")
			writeValue(b, v.m[k], depth+1)
			if i < len(v.keys)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("  ", depth) + "}")
	case []any:
		if len(v) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteString("[\n")
		for i, x := range v {
			b.WriteString(ind)
			writeValue(b, x, depth+1)
			if i < len(v)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("  ", depth) + "]")
	case string:
		writeString(b, v)
	case json.Number:
		b.WriteString(v.String())
	case bool:
		fmt.Fprint(b, v)
	case nil:
		b.WriteString("null")
	default:
		enc, _ := json.Marshal(v)
		b.Write(enc)
	}
}

func writeString(b *bytes.Buffer, s string) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
