package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeminiInstallAndHooks: install writes Gemini CLI's hooks (timeouts
// in milliseconds) and MCP server into one settings.json; the end of a
// turn imports the session file; a new session in the project gets the
// project's memory; uninstall removes the file install created.
func TestGeminiInstallAndHooks(t *testing.T) {
	userHome, store := t.TempDir(), t.TempDir()
	t.Setenv("HOME", userHome)
	if r := run(t, store, nil, "install", "gemini", "--bin", memexBin); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	settings := filepath.Join(userHome, ".gemini", "settings.json")
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		}
		McpServers map[string]struct {
			Command string
			Args    []string
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, settings)), &s); err != nil {
		t.Fatal(err)
	}
	if h := s.Hooks["AfterAgent"]; len(h) != 1 || h[0].Hooks[0].Timeout != 10000 || !strings.HasSuffix(h[0].Hooks[0].Command, " hook gemini AfterAgent") ||
		s.McpServers["memex"].Command != memexBin || len(s.Hooks["AfterTool"]) != 0 {
		t.Fatalf("settings.json:\n%s", readFile(t, settings))
	}

	// Gemini CLI's tree: the project's directory names its root.
	proj := t.TempDir()
	chats := filepath.Join(userHome, ".gemini", "tmp", "proj", "chats")
	writeFile(t, filepath.Join(userHome, ".gemini", "tmp", "proj", ".project_root"), proj)
	session := filepath.Join(chats, "session-2026-11-29T10-00-5c0ffee0.jsonl")
	writeFile(t, session, readFile(t, filepath.Join("..", "..", "ingest", "testdata", "gemini", "tmp", "proj", "chats", filepath.Base(session))))
	const sid = "5c0ffee0-aaaa-4bbb-8ccc-123456789abc"
	in, _ := json.Marshal(map[string]any{"hook_event_name": "AfterAgent", "session_id": sid, "transcript_path": session, "cwd": proj,
		"prompt": "run the tests", "prompt_response": "I changed Parse to return 1."})
	if r := run(t, store, in, "hook", "gemini", "AfterAgent"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("AfterAgent: %+v", r)
	}
	if r := run(t, store, nil, "show", "run_shell_command-1764410402000-aa"); r.code != 0 || !strings.Contains(r.stdout, "--- FAIL: TestParse") {
		t.Fatalf("the turn's shell call: %+v", r)
	}
	in, _ = json.Marshal(map[string]any{"hook_event_name": "SessionStart", "session_id": "next", "cwd": proj, "source": "startup"})
	r := run(t, store, in, "hook", "gemini", "SessionStart")
	var out struct {
		HookSpecificOutput struct{ AdditionalContext string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !strings.Contains(out.HookSpecificOutput.AdditionalContext, "go test ./...") {
		t.Fatalf("SessionStart: %v %+v", err, r)
	}

	if r := run(t, store, nil, "uninstall", "gemini"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if _, err := os.Stat(settings); !os.IsNotExist(err) {
		t.Fatalf("settings.json install created is still there: %v", err)
	}
}
