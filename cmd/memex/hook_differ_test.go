package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestHookCaptureIsNotAnotherRun: a Read that Claude Code's PostToolUse
// hook archived (the file's content, as the hook receives it) and that the
// transcript then holds as numbered lines is the same call: the import
// finds it present without warning of another run of the session.
func TestHookCaptureIsNotAnotherRun(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "a.go")
	writeFile(t, file, "package a\n")
	resp := map[string]any{"type": "text", "file": map[string]any{"filePath": file, "content": "package a\n", "numLines": 2, "startLine": 1, "totalLines": 2}}
	hostHook(t, home, "claude-code", "PostToolUse", map[string]any{"session_id": "s-2", "cwd": dir, "hook_event_name": "PostToolUse",
		"tool_name": "Read", "tool_input": map[string]any{"file_path": file}, "tool_use_id": "toolu_2", "tool_response": resp})
	transcript := filepath.Join(dir, "s-2.jsonl")
	writeFile(t, transcript, strings.ReplaceAll(`{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s-2","timestamp":"2026-03-01T10:00:00.000Z","cwd":"@D@","message":{"role":"user","content":"read"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s-2","timestamp":"2026-03-01T10:00:01.000Z","cwd":"@D@","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"@D@/a.go"}}]}}
{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s-2","timestamp":"2026-03-01T10:00:02.000Z","cwd":"@D@","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"     1\tpackage a\n     2\t"}]},"toolUseResult":{"type":"text","file":{"filePath":"@D@/a.go","content":"package a\n","numLines":2,"startLine":1,"totalLines":2}}}
`, "@D@", dir))
	r := run(t, home, nil, "ingest", "claude-code", transcript, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"present": 1`) || strings.Contains(r.stdout, `"differ"`) || strings.Contains(r.stderr, "other content") {
		t.Errorf("import after the hook: %+v", r)
	}
}
