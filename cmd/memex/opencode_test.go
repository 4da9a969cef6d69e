package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// openCodeCall is what memex's OpenCode plugin sends for the tool part
// prt_04 of ingest/testdata/opencode (tool.execute.after's input and
// output, as OpenCode hands them to plugins).
func openCodeCall(cwd string) map[string]any {
	return map[string]any{"hook_event_name": "PostToolUse", "session_id": "ses_01", "cwd": cwd, "tool_name": "bash",
		"tool_use_id": "toolu_oc1", "tool_input": map[string]any{"command": "go test ./..."},
		"tool_response": map[string]any{"title": "go test", "output": "--- FAIL: TestParse\nFAIL\n", "metadata": map[string]any{"exit": 1}}}
}

// TestOpenCodeHookThenImportStoresWhatImportStores: a call the plugin's
// PostToolUse archived, then the session imported when it went idle (Stop,
// which reads OpenCode's data directory), is the entry the import alone
// makes of it, under the hook's ID; the call is archived once.
func TestOpenCodeHookThenImportStoresWhatImportStores(t *testing.T) {
	hooked, imported := t.TempDir(), t.TempDir()
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	if err := os.Rename(copyTree(t, filepath.Join("..", "..", "ingest", "testdata", "opencode")), filepath.Join(data, "opencode")); err != nil {
		t.Fatal(err)
	}

	hostHook(t, hooked, "opencode", "PostToolUse", openCodeCall("/home/u/proj"))
	first, id := storedEntry(t, hooked, "toolu_oc1")
	if first["exit"] != float64(1) || first["input"] != "go test ./..." || first["tool"] != "bash" {
		t.Fatalf("the plugin's entry: %v", first)
	}
	hostHook(t, hooked, "opencode", "Stop", map[string]any{"hook_event_name": "Stop", "session_id": "ses_01", "cwd": "/home/u/proj"})
	if r := run(t, imported, nil, "ingest", "opencode", filepath.Join(data, "opencode"), "-q"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	got, gotID := storedEntry(t, hooked, "toolu_oc1")
	want, _ := storedEntry(t, imported, "toolu_oc1")
	if gotID != id || !reflect.DeepEqual(got, want) {
		t.Errorf("hook then import (%s, was %s):\n%v\nimport alone:\n%v", gotID, id, got, want)
	}
	r := run(t, hooked, nil, "context", "--session", "ses_01", "--json")
	if n := strings.Count(r.stdout, `"kind": "tool"`); n != 1 {
		t.Errorf("%d tool entries for one call: %s", n, r.stdout)
	}
	// The plugin's hook after the import archives nothing more.
	hostHook(t, imported, "opencode", "PostToolUse", openCodeCall("/home/u/proj"))
	if r := run(t, imported, nil, "context", "--session", "ses_01", "--json"); strings.Count(r.stdout, `"kind": "tool"`) != 1 {
		t.Errorf("a hook after the import archived the call again: %s", r.stdout)
	}
}

// TestOpenCodePlugin: memex install opencode writes a plugin that OpenCode
// loads (an ES module whose export is the plugin function); run under node
// with OpenCode's hook arguments, it archives a tool call through memex
// hook opencode, and gives a new session the project's handoff capsule in
// its system prompt; uninstall removes it.
func TestOpenCodePlugin(t *testing.T) {
	node := nodePath(t)
	store := t.TempDir()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	repo := testutil.NewRepo(t, "git@github.com:acme/demo.git")
	repo.Commit("init", map[string]string{"README.md": "# demo\n"})
	t.Chdir(repo.Dir)
	if r := run(t, store, nil, "install", "opencode", "--scope", "project", "--bin", memexBin); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	plugin := filepath.Join(repo.Dir, ".opencode", "plugins", "memex.js")
	src := readFile(t, plugin)
	bin, _ := json.Marshal([]string{memexBin, "--home", store})
	if !strings.HasPrefix(src, "// memex: written by `memex install opencode`") || !strings.Contains(src, "const MEMEX = "+string(bin)) {
		t.Fatalf("plugin:\n%s", src)
	}
	if cfg := readFile(t, filepath.Join(repo.Dir, "opencode.json")); !strings.Contains(cfg, `"mcp"`) {
		t.Fatalf("opencode.json: %s", cfg)
	}
	if r := run(t, store, nil, "install", "opencode", "--scope", "project", "--bin", memexBin); r.code != 0 || readFile(t, plugin) != src {
		t.Fatalf("second install: %+v", r)
	}

	// OpenCode's calls, made by a driver the way OpenCode makes them.
	mod := filepath.Join(t.TempDir(), "memex.mjs")
	writeFile(t, mod, src)
	drive := func(script string) string {
		t.Helper()
		driver := filepath.Join(filepath.Dir(mod), "driver.mjs")
		writeFile(t, driver, `import { MemexPlugin } from "./memex.mjs"
const hooks = await MemexPlugin({ directory: `+jsString(repo.Dir)+`, worktree: `+jsString(repo.Dir)+` })
`+script)
		out, err := exec.Command(node, driver).CombinedOutput()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, out)
		}
		return string(out)
	}
	drive(`await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_A", callID: "call_1" }, { args: { command: "go test ./..." } })
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_A", callID: "call_1" },
  { title: "go test", output: "--- FAIL: TestParse\nFAIL\n", metadata: { exit: 1 } })
await hooks.event({ event: { type: "session.updated", properties: {} } })
`)
	e, _ := storedEntry(t, store, "call_1")
	if e["exit"] != float64(1) || e["input"] != "go test ./..." || e["agent"] != "opencode" || e["session"] != "ses_A" || e["project"] != "github.com/acme/demo" {
		t.Fatalf("the call the plugin archived: %v", e)
	}
	out := drive(`const output = { system: ["You are OpenCode."] }
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_B", model: {} }, output)
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_B", model: {} }, { system: [] })
console.log(JSON.stringify(output.system))
`)
	var system []string
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &system); err != nil || len(system) != 2 ||
		!strings.Contains(system[1], "[memex handoff · github.com/acme/demo · 1 earlier session") || !strings.Contains(system[1], "go test ./... · exit 1") {
		t.Fatalf("system prompt after the transform: %v %q", err, out)
	}
	t.Setenv("MEMEX_HANDOFF", "off")
	if out := drive(`const output = { system: [] }
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_C", model: {} }, output)
console.log(output.system.length)
`); strings.TrimSpace(out) != "0" {
		t.Errorf("MEMEX_HANDOFF=off: %q", out)
	}

	if r := run(t, store, nil, "uninstall", "opencode", "--scope", "project"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if _, err := os.Stat(plugin); !os.IsNotExist(err) {
		t.Errorf("plugin still there after uninstall: %v", err)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestOpenCodePluginHooksToolCallsThroughMemexHook: with memex-hook
// installed beside memex, the plugin runs it for a tool call (as the
// command hooks of the other hosts do) and memex for the rest; the call
// is archived all the same.
func TestOpenCodePluginHooksToolCallsThroughMemexHook(t *testing.T) {
	node := nodePath(t)
	bins := t.TempDir()
	if err := os.Symlink(memexBin, filepath.Join(bins, "memex")); err != nil {
		t.Fatal(err)
	}
	hookBin, err := buildHookBin(bins)
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	repo := testutil.NewRepo(t, "git@github.com:acme/demo.git")
	repo.Commit("init", map[string]string{"README.md": "# demo\n"})
	t.Chdir(repo.Dir)
	if r := run(t, store, nil, "install", "opencode", "--scope", "project", "--bin", filepath.Join(bins, "memex")); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	src := readFile(t, filepath.Join(repo.Dir, ".opencode", "plugins", "memex.js"))
	memex, _ := json.Marshal([]string{filepath.Join(bins, "memex"), "--home", store})
	tool, _ := json.Marshal([]string{hookBin, "--home", store})
	if !strings.Contains(src, "const MEMEX = "+string(memex)+"\n") || !strings.Contains(src, "const MEMEX_TOOL = "+string(tool)+"\n") {
		t.Fatalf("plugin:\n%s", src)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "memex.mjs"), src)
	writeFile(t, filepath.Join(dir, "driver.mjs"), `import { MemexPlugin } from "./memex.mjs"
const hooks = await MemexPlugin({ directory: `+jsString(repo.Dir)+`, worktree: `+jsString(repo.Dir)+` })
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_A", callID: "call_1", args: { command: "make" } },
  { title: "make", output: "make: *** [all] Error 2\n", metadata: { exit: 2 } })
`)
	if out, err := exec.Command(node, filepath.Join(dir, "driver.mjs")).CombinedOutput(); err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	e, _ := storedEntry(t, store, "call_1")
	if e["exit"] != float64(2) || e["input"] != "make" || e["agent"] != "opencode" || e["session"] != "ses_A" {
		t.Fatalf("the call memex-hook archived: %v", e)
	}
}

// nodePath finds node on PATH, or skips t (fails it when
// MEMEX_REQUIRE_NODE=1, as .ci/run sets once it installed node).
func nodePath(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		return node
	}
	if os.Getenv("MEMEX_REQUIRE_NODE") == "1" {
		t.Fatalf("MEMEX_REQUIRE_NODE=1 but node is not on PATH: %v", err)
	}
	t.Skip("node not installed: apt-get install nodejs to run the OpenCode plugin's tests")
	return ""
}
