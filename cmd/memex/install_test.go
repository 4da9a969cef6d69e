package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
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

// install runs memex install (or uninstall, with its arguments) with the
// real binary as the command the host runs.
func install(t *testing.T, home string, args ...string) result {
	t.Helper()
	if args[0] == "install" {
		args = append(args, "--bin", memexBin)
	}
	return run(t, home, nil, args...)
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

type claudeSettingsJSON struct {
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

func TestInstallClaudeCode(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	settings := filepath.Join(home, ".claude", "settings.json")
	mcpFile := filepath.Join(home, ".claude.json")
	writeFile(t, settings, claudeSettings)
	writeFile(t, mcpFile, claudeJSON)
	// The store is not the default one (~/.memex): the commands name it.
	hookCmd := memexBin + " --home " + home + " hook claude-code PostToolUse"

	// --dry-run shows the change and writes nothing.
	r := install(t, home, "install", "claude-code", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "+") || !strings.Contains(r.stdout, hookCmd) {
		t.Fatalf("dry run: %+v", r)
	}
	if readFile(t, settings) != claudeSettings || len(backups(t, settings)) != 0 {
		t.Fatal("dry run wrote")
	}

	if r := install(t, home, "install", "claude-code"); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	got := readFile(t, settings)
	var s claudeSettingsJSON
	if err := json.Unmarshal([]byte(got), &s); err != nil {
		t.Fatalf("settings after install: %v\n%s", err, got)
	}
	if s.Model != "opus" || s.Permissions == nil || len(s.Hooks["PostToolUse"]) != 2 ||
		s.Hooks["PostToolUse"][0].Hooks[0].Command != "gofmt -w $FILE" ||
		s.Hooks["PostToolUse"][1].Hooks[0].Command != hookCmd || len(s.Hooks["PostToolUseFailure"]) != 1 ||
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
	var m struct {
		McpServers map[string]struct {
			Command string
			Args    []string
		}
	}
	json.Unmarshal([]byte(mcp), &m)
	if srv := m.McpServers["memex"]; srv.Command != memexBin || strings.Join(srv.Args, " ") != "--home "+home+" mcp" ||
		!strings.Contains(mcp, `"other-mcp"`) || strings.Index(mcp, `"numStartups"`) > strings.Index(mcp, `"zeta"`) {
		t.Fatalf(".claude.json after install:\n%s", mcp)
	}
	if len(backups(t, settings)) != 1 || len(backups(t, mcpFile)) != 1 {
		t.Fatal("no backups")
	}
	if b := readFile(t, backups(t, settings)[0]); b != claudeSettings {
		t.Fatalf("backup differs from the original")
	}

	// Idempotent: a second install changes nothing.
	r = install(t, home, "install", "claude-code")
	if r.code != 0 || strings.Count(r.stdout, "nothing to change") != 2 || readFile(t, settings) != got {
		t.Fatalf("second install: %+v", r)
	}

	// Uninstall of files nobody changed since gives back the originals,
	// byte for byte.
	if r := install(t, home, "uninstall", "claude-code"); r.code != 0 || !strings.Contains(r.stdout, "restored") {
		t.Fatalf("uninstall: %+v", r)
	}
	if got := readFile(t, settings); got != claudeSettings {
		t.Fatalf("settings after uninstall:\n%s", got)
	}
	if got := readFile(t, mcpFile); got != claudeJSON {
		t.Fatalf(".claude.json after uninstall:\n%s", got)
	}
	if r := install(t, home, "uninstall", "claude-code"); strings.Count(r.stdout, "nothing to change") != 2 {
		t.Fatalf("second uninstall: %+v", r)
	}
}

// TestUninstallAfterEditsRemovesOnlyMemex: a file changed since install
// (here by the host itself) keeps those changes; only memex's handlers and
// server go.
func TestUninstallAfterEditsRemovesOnlyMemex(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	mcpFile := filepath.Join(home, ".claude.json")
	writeFile(t, mcpFile, claudeJSON)
	if r := install(t, home, "install", "claude-code"); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	writeFile(t, mcpFile, strings.Replace(readFile(t, mcpFile), `"numStartups": 12`, `"numStartups": 13`, 1))
	if r := install(t, home, "uninstall", "claude-code"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	var before, after any
	json.Unmarshal([]byte(strings.Replace(claudeJSON, "12", "13", 1)), &before)
	json.Unmarshal([]byte(readFile(t, mcpFile)), &after)
	if !jsonEqual(before, after) {
		t.Fatalf(".claude.json after uninstall:\n%s", readFile(t, mcpFile))
	}
	// settings.json did not exist: install created it, uninstall removes it.
	if _, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); !os.IsNotExist(err) {
		t.Fatalf("settings.json memex created is still there: %v", err)
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
	if r := install(t, home, "install", "claude-code", "--scope", "project"); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	if !strings.Contains(readFile(t, filepath.Join(proj, ".mcp.json")), `"args": [`) ||
		!strings.Contains(readFile(t, filepath.Join(proj, ".claude", "settings.json")), "hook claude-code SessionEnd") {
		t.Fatal("project files not written")
	}
	if r := install(t, home, "uninstall", "claude-code", "--scope", "project"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	for _, f := range []string{".mcp.json", ".claude/settings.json"} {
		if _, err := os.Stat(filepath.Join(proj, f)); !os.IsNotExist(err) {
			t.Fatalf("%s, which install created, is still there after uninstall", f)
		}
	}
	if r := install(t, home, "install", "nohost"); r.code != 2 {
		t.Fatalf("unknown host: %+v", r)
	}
	writeFile(t, filepath.Join(proj, "opencode.json"), "{broken")
	if r := install(t, home, "install", "opencode", "--scope", "project"); r.code != 1 || !strings.Contains(r.stderr, "not valid JSON") {
		t.Fatalf("broken config: %+v", r)
	}
}

// TestUninstallRemovesTheDirectoriesInstallMade: uninstall leaves a
// project (and a home) as install found it, without the .claude, .codex,
// .gemini and .opencode/plugins directories install made for its files;
// a directory the user put something in since, or replaced with a link,
// stays as it is.
func TestUninstallRemovesTheDirectoriesInstallMade(t *testing.T) {
	hosts := []string{"claude-code", "codex", "gemini", "opencode"}
	for _, kept := range []bool{false, true} {
		home, user, proj := t.TempDir(), t.TempDir(), t.TempDir()
		t.Setenv("HOME", user)
		t.Setenv("CODEX_HOME", "")
		t.Setenv("XDG_CONFIG_HOME", "")
		t.Chdir(proj)
		for _, h := range hosts {
			for _, scope := range []string{"project", "user"} {
				if r := install(t, home, "install", h, "--scope", scope); r.code != 0 {
					t.Fatalf("install %s %s: %+v", h, scope, r)
				}
			}
		}
		linked := filepath.Join(user, ".gemini")
		if kept {
			writeFile(t, filepath.Join(proj, ".claude", "notes.md"), "mine\n")
			// The user's own .gemini, a link to their dotfiles.
			dots := filepath.Join(t.TempDir(), "gemini")
			if err := os.Rename(linked, dots); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dots, linked); err != nil {
				t.Fatal(err)
			}
		}
		for _, h := range hosts {
			for _, scope := range []string{"project", "user"} {
				if r := install(t, home, "uninstall", h, "--scope", scope); r.code != 0 {
					t.Fatalf("uninstall %s %s: %+v", h, scope, r)
				}
			}
		}
		var left []string
		for _, root := range []string{proj, user} {
			filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
				if p != root {
					rel, _ := filepath.Rel(root, p)
					left = append(left, rel)
				}
				return nil
			})
		}
		want := ""
		if kept {
			want = ".claude .claude/notes.md .gemini"
		}
		if got := strings.Join(left, " "); got != want {
			t.Errorf("kept %v: after uninstall %q is left, want %q", kept, got, want)
		}
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
	// Files of the user's that install leaves alone.
	other := filepath.Join(home, ".codex", "AGENTS.md")
	writeFile(t, other, "be brief\n")

	for _, host := range []string{"codex", "opencode"} {
		if r := install(t, home, "install", host); r.code != 0 {
			t.Fatalf("install %s: %+v", host, r)
		}
		if r := install(t, home, "install", host); !strings.Contains(r.stdout, "nothing to change") || strings.Contains(r.stdout, "updated") {
			t.Fatalf("second install %s: %+v", host, r)
		}
	}
	q, _ := json.Marshal(memexBin)
	qh, _ := json.Marshal(home)
	if got := readFile(t, toml); !strings.Contains(got, tomlOrig) ||
		!strings.Contains(got, "[mcp_servers.memex]\ncommand = "+string(q)+"\nargs = [\"--home\", "+string(qh)+", \"mcp\"]") ||
		!strings.HasPrefix(got, "# memex: begin notify (added by memex install; memex uninstall removes it)\nnotify = ["+string(q)+", \"--home\", "+string(qh)+", \"hook\", \"codex\", \"notify\"]\n") {
		t.Fatalf("config.toml:\n%s", got)
	}
	hooksFile := filepath.Join(home, ".codex", "hooks.json")
	if got := readFile(t, hooksFile); !strings.Contains(got, "hook codex PostToolUse") {
		t.Fatalf("codex hooks.json:\n%s", got)
	}
	if got := readFile(t, oc); !strings.Contains(got, `"memex": {`) || !strings.Contains(got, `"fs-mcp"`) {
		t.Fatalf("opencode.json:\n%s", got)
	}
	for _, host := range []string{"codex", "opencode"} {
		if r := install(t, home, "uninstall", host); r.code != 0 {
			t.Fatalf("uninstall %s: %+v", host, r)
		}
	}
	if got := readFile(t, toml); got != tomlOrig {
		t.Fatalf("config.toml after uninstall: %q", got)
	}
	if got := readFile(t, oc); got != ocOrig {
		t.Fatalf("opencode.json after uninstall:\n%s", got)
	}
	// uninstall codex removes the file memex created, and only that one.
	if _, err := os.Stat(hooksFile); !os.IsNotExist(err) {
		t.Fatalf("hooks.json memex created is still there: %v", err)
	}
	if readFile(t, other) != "be brief\n" {
		t.Fatal("a file of the user's changed")
	}
}

// TestInstallRefusesABinaryThatDoesNotRun: a relative, missing or foreign
// binary is refused with the fix, and nothing is written.
func TestInstallRefusesABinaryThatDoesNotRun(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	notMemex := filepath.Join(t.TempDir(), "memex")
	writeFile(t, notMemex, "#!/bin/sh\necho hello\n")
	os.Chmod(notMemex, 0o755)
	for _, c := range []struct{ bin, want string }{
		{"memex", "not an absolute path"},
		{"./bin/memex", "not an absolute path"},
		{filepath.Join(home, "nowhere", "memex"), "no such file"},
		{notMemex, "does not run as memex"},
	} {
		r := run(t, home, nil, "install", "claude-code", "--bin", c.bin)
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("--bin %s: %+v; want one line saying %q", c.bin, r, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "settings.json")); !os.IsNotExist(err) {
		t.Fatal("a refused install wrote settings.json")
	}
}

// TestInstalledHookRunsAgainstItsHome: the command install writes, run as
// the host runs it (through a shell, from elsewhere, without MEMEX_HOME),
// archives into the store install was run for; a binary whose path has a
// space is quoted.
func TestInstalledHookRunsAgainstItsHome(t *testing.T) {
	home, store := t.TempDir(), filepath.Join(t.TempDir(), "my store")
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	bin := filepath.Join(t.TempDir(), "tools dir", "memex")
	writeFile(t, bin, readFile(t, memexBin))
	os.Chmod(bin, 0o755)
	if r := run(t, store, nil, "install", "claude-code", "--bin", bin); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	var s claudeSettingsJSON
	json.Unmarshal([]byte(readFile(t, filepath.Join(home, ".claude", "settings.json"))), &s)
	line := s.Hooks["PostToolUse"][0].Hooks[0].Command
	in, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": home,
		"tool_name": "Bash", "tool_use_id": "toolu_home", "tool_input": map[string]string{"command": "echo hi"},
		"tool_response": map[string]any{"stdout": "hi\n", "stderr": ""}})
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = t.TempDir()
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin"}
	cmd.Stdin = bytes.NewReader(in)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) != 0 {
		t.Fatalf("%s: %v %s", line, err, out)
	}
	if r := run(t, store, nil, "show", "toolu_home"); r.stdout != "hi\n" {
		t.Fatalf("the hook did not archive into %s: %+v (command %s)", store, r, line)
	}
}

// TestInstallForTheDefaultHomeNamesNone: installed for ~/.memex, the
// commands carry no --home, so they follow the default.
func TestInstallForTheDefaultHomeNamesNone(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	if r := run(t, filepath.Join(home, ".memex"), nil, "install", "claude-code", "--bin", memexBin); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	if got := readFile(t, filepath.Join(home, ".claude", "settings.json")); strings.Contains(got, "--home") || !strings.Contains(got, memexBin+" hook claude-code Stop") {
		t.Fatalf("settings.json:\n%s", got)
	}
}

// TestInstallUpdatesAnEarlierInstall: handlers of an earlier install that
// ran another binary (plain "memex" from PATH) are updated in place, not
// doubled; backups never overwrite each other.
func TestInstallUpdatesAnEarlierInstall(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	settings := filepath.Join(home, ".claude", "settings.json")
	writeFile(t, settings, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "memex hook claude-code Stop", "timeout": 10}]}]}}`)
	writeFile(t, filepath.Join(home, ".claude.json"), `{"mcpServers": {"memex": {"type": "stdio", "command": "memex", "args": ["mcp"], "env": {"X": "1"}}}}`)
	for i := 0; i < 2; i++ {
		store := filepath.Join(home, "store"+string(rune('a'+i)))
		if r := run(t, store, nil, "install", "claude-code", "--bin", memexBin); r.code != 0 {
			t.Fatalf("install: %+v", r)
		}
	}
	var s claudeSettingsJSON
	json.Unmarshal([]byte(readFile(t, settings)), &s)
	if len(s.Hooks["Stop"]) != 1 || s.Hooks["Stop"][0].Hooks[0].Command != memexBin+" --home "+filepath.Join(home, "storeb")+" hook claude-code Stop" {
		t.Fatalf("settings.json:\n%s", readFile(t, settings))
	}
	if got := readFile(t, filepath.Join(home, ".claude.json")); !strings.Contains(got, `"X": "1"`) || !strings.Contains(got, "storeb") || strings.Contains(got, "storea") {
		t.Fatalf(".claude.json:\n%s", got)
	}
	if n := len(backups(t, settings)); n != 2 {
		t.Fatalf("%d backups of settings.json after two installs that changed it; want 2", n)
	}
}

// TestInstallKeepsASymlinkALink: a settings file a dotfile manager links
// stays a link; its target gets the change.
func TestInstallKeepsASymlinkALink(t *testing.T) {
	home, dotfiles := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	target := filepath.Join(dotfiles, "claude-settings.json")
	writeFile(t, target, claudeSettings)
	link := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if r := install(t, home, "install", "claude-code"); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("settings.json is no longer a link: %v", err)
	}
	if !strings.Contains(readFile(t, target), "hook claude-code PostToolUse") {
		t.Fatal("the link's target was not written")
	}
	if r := install(t, home, "uninstall", "claude-code"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 || readFile(t, target) != claudeSettings {
		t.Fatalf("after uninstall: link %v, target:\n%s", err, readFile(t, target))
	}
}
