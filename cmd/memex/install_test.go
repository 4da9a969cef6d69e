package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func backups(t *testing.T, path string) []string {
	t.Helper()
	m, _ := filepath.Glob(path + ".memex-backup-*")
	return m
}

const claudeSettings = `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit", "hooks": [{"type": "command", "command": "gofmt -w $FILE"}]}
    ]
  },
  "model": "opus"
}
`

const claudeJSON = `{"numStartups": 12, "mcpServers": {"other": {"command": "other-mcp"}}, "zeta": true}`

func TestInstallClaudeCode(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	settings := filepath.Join(home, ".claude", "settings.json")
	mcpFile := filepath.Join(home, ".claude.json")
	writeFile(t, settings, claudeSettings)
	writeFile(t, mcpFile, claudeJSON)

	// --dry-run shows the change and writes nothing.
	r := run(t, home, nil, "install", "claude-code", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "+") || !strings.Contains(r.stdout, "memex hook claude-code PostToolUse") {
		t.Fatalf("dry run: %+v", r)
	}
	if readFile(t, settings) != claudeSettings || len(backups(t, settings)) != 0 {
		t.Fatal("dry run wrote")
	}

	if r := run(t, home, nil, "install", "claude-code"); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	got := readFile(t, settings)
	var s struct {
		Permissions map[string]any
		Model       string
		Hooks       map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	if err := json.Unmarshal([]byte(got), &s); err != nil {
		t.Fatalf("settings after install: %v\n%s", err, got)
	}
	if s.Model != "opus" || s.Permissions == nil || len(s.Hooks["PostToolUse"]) != 2 ||
		s.Hooks["PostToolUse"][0].Hooks[0].Command != "gofmt -w $FILE" ||
		s.Hooks["PostToolUse"][1].Hooks[0].Command != "memex hook claude-code PostToolUse" ||
		s.Hooks["SessionStart"][0].Matcher != "startup|resume|clear|compact" || len(s.Hooks["PreCompact"]) != 1 {
		t.Fatalf("settings after install:\n%s", got)
	}
	if !strings.Contains(got, `"async": true`) {
		t.Fatalf("PostToolUse is not run in the background:\n%s", got)
	}
	// Key order is kept: permissions, hooks, model.
	if !(strings.Index(got, `"permissions"`) < strings.Index(got, `"hooks"`) && strings.Index(got, `"hooks"`) < strings.Index(got, `"model"`)) {
		t.Fatalf("keys reordered:\n%s", got)
	}
	mcp := readFile(t, mcpFile)
	if !strings.Contains(mcp, `"memex": {`) || !strings.Contains(mcp, `"other-mcp"`) || strings.Index(mcp, `"numStartups"`) > strings.Index(mcp, `"zeta"`) {
		t.Fatalf(".claude.json after install:\n%s", mcp)
	}
	if len(backups(t, settings)) != 1 || len(backups(t, mcpFile)) != 1 {
		t.Fatal("no backups")
	}
	if b := readFile(t, backups(t, settings)[0]); b != claudeSettings {
		t.Fatalf("backup differs from the original")
	}

	// Idempotent: a second install changes nothing.
	r = run(t, home, nil, "install", "claude-code")
	if r.code != 0 || strings.Count(r.stdout, "nothing to change") != 2 || readFile(t, settings) != got {
		t.Fatalf("second install: %+v", r)
	}

	// Uninstall removes exactly what install added.
	if r := run(t, home, nil, "uninstall", "claude-code"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	var before, after any
	json.Unmarshal([]byte(claudeSettings), &before)
	json.Unmarshal([]byte(readFile(t, settings)), &after)
	if !jsonEqual(before, after) {
		t.Fatalf("settings after uninstall:\n%s", readFile(t, settings))
	}
	json.Unmarshal([]byte(claudeJSON), &before)
	json.Unmarshal([]byte(readFile(t, mcpFile)), &after)
	if !jsonEqual(before, after) {
		t.Fatalf(".claude.json after uninstall:\n%s", readFile(t, mcpFile))
	}
	if r := run(t, home, nil, "uninstall", "claude-code"); strings.Count(r.stdout, "nothing to change") != 2 {
		t.Fatalf("second uninstall: %+v", r)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestInstallProjectScopeAndFreshFiles(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Chdir(proj)
	if r := run(t, home, nil, "install", "claude-code", "--scope", "project"); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	if !strings.Contains(readFile(t, filepath.Join(proj, ".mcp.json")), `"args": [`) ||
		!strings.Contains(readFile(t, filepath.Join(proj, ".claude", "settings.json")), "memex hook claude-code SessionEnd") {
		t.Fatal("project files not written")
	}
	if r := run(t, home, nil, "uninstall", "claude-code", "--scope", "project"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if got := readFile(t, filepath.Join(proj, ".mcp.json")); strings.TrimSpace(got) != "{}" {
		t.Fatalf(".mcp.json after uninstall: %q", got)
	}
	if r := run(t, home, nil, "install", "nohost"); r.code != 2 {
		t.Fatalf("unknown host: %+v", r)
	}
	writeFile(t, filepath.Join(proj, "opencode.json"), "{broken")
	if r := run(t, home, nil, "install", "opencode", "--scope", "project"); r.code != 1 || !strings.Contains(r.stderr, "not valid JSON") {
		t.Fatalf("broken config: %+v", r)
	}
}

func TestInstallCodexAndOpenCode(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	toml := filepath.Join(home, ".codex", "config.toml")
	const tomlOrig = "model = \"o4\"\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\n"
	writeFile(t, toml, tomlOrig)
	oc := filepath.Join(home, ".config", "opencode", "opencode.json")
	const ocOrig = `{"$schema": "https://opencode.ai/config.json", "mcp": {"fs": {"type": "local", "command": ["fs-mcp"]}}}`
	writeFile(t, oc, ocOrig)

	for _, host := range []string{"codex", "opencode"} {
		if r := run(t, home, nil, "install", host); r.code != 0 {
			t.Fatalf("install %s: %+v", host, r)
		}
		if r := run(t, home, nil, "install", host); !strings.Contains(r.stdout, "nothing to change") || strings.Contains(r.stdout, "updated") {
			t.Fatalf("second install %s: %+v", host, r)
		}
	}
	if got := readFile(t, toml); !strings.Contains(got, tomlOrig) || !strings.Contains(got, "[mcp_servers.memex]\ncommand = \"memex\"\nargs = [\"mcp\"]") ||
		!strings.HasPrefix(got, "# memex: begin notify (added by memex install; memex uninstall removes it)\nnotify = [\"memex\", \"hook\", \"codex\", \"notify\"]\n") {
		t.Fatalf("config.toml:\n%s", got)
	}
	if got := readFile(t, filepath.Join(home, ".codex", "hooks.json")); !strings.Contains(got, "memex hook codex PostToolUse") {
		t.Fatalf("codex hooks.json:\n%s", got)
	}
	if got := readFile(t, oc); !strings.Contains(got, `"memex": {`) || !strings.Contains(got, `"fs-mcp"`) {
		t.Fatalf("opencode.json:\n%s", got)
	}
	for _, host := range []string{"codex", "opencode"} {
		if r := run(t, home, nil, "uninstall", host); r.code != 0 {
			t.Fatalf("uninstall %s: %+v", host, r)
		}
	}
	if got := readFile(t, toml); got != tomlOrig {
		t.Fatalf("config.toml after uninstall: %q", got)
	}
	var before, after any
	json.Unmarshal([]byte(ocOrig), &before)
	json.Unmarshal([]byte(readFile(t, oc)), &after)
	if !jsonEqual(before, after) {
		t.Fatalf("opencode.json after uninstall:\n%s", readFile(t, oc))
	}
}
