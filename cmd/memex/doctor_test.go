package main

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/service"
)

// doctorRun runs memex doctor --json against home and decodes its report.
func doctorRun(t *testing.T, home string) (service.DoctorReport, result) {
	t.Helper()
	r := run(t, home, nil, "doctor", "--json")
	var rep service.DoctorReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v: %+v", err, r)
	}
	if (r.code == 0) != rep.OK || (r.code != 0 && r.code != 1) {
		t.Fatalf("doctor exited %d with ok %v", r.code, rep.OK)
	}
	return rep, r
}

func hasProblem(rep service.DoctorReport, where, text string) bool {
	for _, p := range rep.Problems {
		if strings.HasPrefix(p.Where, where) && strings.Contains(p.Problem, text) && p.Fix != "" {
			return true
		}
	}
	return false
}

// doctorSetup installs memex for Claude Code in a fresh user home, with
// store as its memex home, and runs one hook.
func doctorSetup(t *testing.T, bin string) (userHome, store string) {
	userHome, store = t.TempDir(), filepath.Join(t.TempDir(), "memex")
	t.Setenv("HOME", userHome)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Chdir(userHome)
	if r := run(t, store, nil, "install", "claude-code", "--bin", bin); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	hookRun(t, store, "PostToolUse", map[string]any{"hook_event_name": "PostToolUse", "session_id": "d1", "cwd": userHome,
		"tool_name": "Bash", "tool_use_id": "toolu_doc", "tool_input": map[string]string{"command": "true"},
		"tool_response": map[string]any{"stdout": "", "stderr": ""}})
	return userHome, store
}

func TestDoctorHealthy(t *testing.T) {
	_, store := doctorSetup(t, memexBin)
	rep, r := doctorRun(t, store)
	if !rep.OK || len(rep.Hosts) != 1 {
		t.Fatalf("doctor on a healthy install: %+v\n%s", rep.Problems, r.stdout)
	}
	h := rep.Hosts[0]
	if h.Host != "claude-code" || len(h.Missing) != 0 || h.Server == nil || len(h.Binaries) != 1 || !h.Binaries[0].Runs ||
		len(h.WritesTo) != 1 || h.WritesTo[0] != store || h.LastHook == nil || h.LastHook.Event != "PostToolUse" || !h.Recorded {
		t.Fatalf("host report: %+v", h)
	}
	if !rep.Store.Exists || rep.Store.Schema == 0 || rep.Store.PendingIndex != 1 || rep.Version != version {
		t.Fatalf("store report: %+v", rep.Store)
	}
	text := run(t, store, nil, "doctor")
	if text.code != 0 || !strings.Contains(text.stdout, "no problems found") || !strings.Contains(text.stdout, "last hook: PostToolUse") {
		t.Fatalf("doctor: %+v", text)
	}
}

func TestDoctorBinaryMissing(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "memex")
	writeFile(t, bin, readFile(t, memexBin))
	os.Chmod(bin, 0o755)
	_, store := doctorSetup(t, bin)
	os.Remove(bin)
	rep, r := doctorRun(t, store)
	if r.code != 1 || !hasProblem(rep, "claude-code", "does not run as memex") {
		t.Fatalf("binary removed: %+v", rep.Problems)
	}
}

func TestDoctorWrongHome(t *testing.T) {
	_, store := doctorSetup(t, memexBin)
	other := t.TempDir()
	rep, r := doctorRun(t, other)
	if r.code != 1 || !hasProblem(rep, "claude-code", "write to the store in "+store) {
		t.Fatalf("read from another home: %+v", rep.Problems)
	}
}

func TestDoctorHooksRemovedByHand(t *testing.T) {
	userHome, store := doctorSetup(t, memexBin)
	settings := filepath.Join(userHome, ".claude", "settings.json")
	// One hook taken out: it says which.
	var s map[string]map[string]any
	json.Unmarshal([]byte(readFile(t, settings)), &s)
	delete(s["hooks"], "Stop")
	b, _ := json.Marshal(s)
	writeFile(t, settings, string(b))
	rep, r := doctorRun(t, store)
	if r.code != 1 || !hasProblem(rep, "claude-code", "hooks missing: Stop") {
		t.Fatalf("Stop removed: %+v", rep.Problems)
	}
	// Every hook and the server taken out: install's record still knows.
	writeFile(t, settings, `{"model": "opus"}`)
	writeFile(t, filepath.Join(userHome, ".claude.json"), `{}`)
	rep, r = doctorRun(t, store)
	if r.code != 1 || !hasProblem(rep, "claude-code", "gone from") {
		t.Fatalf("everything removed: %+v", rep.Problems)
	}
}

func TestDoctorServerDown(t *testing.T) {
	_, store := doctorSetup(t, memexBin)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing answers there now, as after a kill -9 of memex serve
	writeFile(t, filepath.Join(store, "serve.addr"), addr+"\n")
	rep, r := doctorRun(t, store)
	if r.code != 1 || !rep.Server.Running || rep.Server.Answering || !hasProblem(rep, "server", "does not answer") {
		t.Fatalf("server down: %+v %+v", rep.Server, rep.Problems)
	}
}

func TestDoctorLastHookFailed(t *testing.T) {
	_, store := doctorSetup(t, memexBin)
	// A store that cannot be opened: every capture fails (and the hook
	// still exits 0, so only doctor tells).
	os.RemoveAll(filepath.Join(store, "store"))
	writeFile(t, filepath.Join(store, "store"), "not a directory\n")
	hookRun(t, store, "PostToolUse", map[string]any{"hook_event_name": "PostToolUse", "session_id": "d1",
		"tool_name": "Bash", "tool_use_id": "toolu_doc2", "tool_input": map[string]string{"command": "true"},
		"tool_response": map[string]any{"stdout": "", "stderr": ""}})
	rep, r := doctorRun(t, store)
	if h := rep.Hosts[0]; r.code != 1 || h.LastHook == nil || h.LastHook.Error == "" || !hasProblem(rep, "claude-code", "the last hook (PostToolUse") {
		t.Fatalf("last hook: %+v, problems %+v", h.LastHook, rep.Problems)
	}
}

// TestDoctorOtherHostsRemovedByHand: for every host but Claude Code (the
// test above), memex's hooks and server taken out of its configuration by
// hand are found, each with its fix.
func TestDoctorOtherHostsRemovedByHand(t *testing.T) {
	for _, host := range []string{"codex", "gemini", "opencode"} {
		t.Run(host, func(t *testing.T) {
			userHome, store := t.TempDir(), filepath.Join(t.TempDir(), "memex")
			t.Setenv("HOME", userHome)
			for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME", "GEMINI_CLI_HOME"} {
				t.Setenv(k, "")
			}
			t.Chdir(userHome)
			if r := run(t, store, nil, "install", host, "--bin", memexBin); r.code != 0 {
				t.Fatalf("install %s: %+v", host, r)
			}
			if rep, r := doctorRun(t, store); r.code != 0 || len(rep.Hosts) != 1 || rep.Hosts[0].Host != host {
				t.Fatalf("doctor after install %s: %+v %+v", host, rep.Hosts, rep.Problems)
			}
			// Every file of the user's home that names memex loses it, as
			// an editor would leave it.
			var edited []string
			filepath.WalkDir(userHome, func(p string, d os.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, _ := os.ReadFile(p)
				if !strings.Contains(string(b), "memex") {
					return nil
				}
				switch filepath.Ext(p) {
				case ".json":
					writeFile(t, p, "{}\n")
				case ".toml":
					writeFile(t, p, "model = \"o3\"\n")
				default:
					os.Remove(p)
				}
				edited = append(edited, p)
				return nil
			})
			if len(edited) == 0 {
				t.Fatalf("install %s wrote no file of the user's home that names memex", host)
			}
			rep, r := doctorRun(t, store)
			if r.code != 1 || !hasProblem(rep, host, "gone from") {
				t.Fatalf("%s with %v emptied by hand: %+v", host, edited, rep.Problems)
			}
		})
	}
}

// TestDoctorCodexNotifyRemovedByHand: Codex's notify block taken out of
// config.toml, the rest left, is named.
func TestDoctorCodexNotifyRemovedByHand(t *testing.T) {
	userHome, store := t.TempDir(), filepath.Join(t.TempDir(), "memex")
	t.Setenv("HOME", userHome)
	t.Setenv("CODEX_HOME", "")
	t.Chdir(userHome)
	if r := run(t, store, nil, "install", "codex", "--bin", memexBin); r.code != 0 {
		t.Fatalf("install codex: %+v", r)
	}
	toml := filepath.Join(userHome, ".codex", "config.toml")
	var kept []string
	in := false
	for _, l := range strings.SplitAfter(readFile(t, toml), "\n") {
		switch {
		case strings.HasPrefix(l, "# memex: begin notify"):
			in = true
		case in && strings.HasPrefix(l, "# memex: end notify"):
			in = false
		case !in:
			kept = append(kept, l)
		}
	}
	writeFile(t, toml, strings.Join(kept, ""))
	if strings.Contains(readFile(t, toml), "notify") {
		t.Fatalf("notify block still in:\n%s", readFile(t, toml))
	}
	rep, r := doctorRun(t, store)
	if r.code != 1 || !hasProblem(rep, "codex", "notify") {
		t.Fatalf("notify removed: %+v", rep.Problems)
	}
}
