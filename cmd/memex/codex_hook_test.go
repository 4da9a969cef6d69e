package main

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// codexHookInputs replays a Codex rollout as the PostToolUse inputs Codex
// sends its hooks (codex-rs hooks/src/events/post_tool_use.rs): a shell
// call is named "Bash" with {"command": CMD}, apply_patch keeps its name
// with the patch as its command, and the response of a shell call is its
// raw output, without the "Process exited with code N ... Output:" lines
// the model sees and the rollout records.
func codexHookInputs(t *testing.T, path, cwd string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var thread string
	calls := map[string]map[string]any{}
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l struct {
			Type    string
			Payload struct {
				ID, Type, Name, Input, Arguments, Output string
				CallID                                   string `json:"call_id"`
			}
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		p := l.Payload
		switch {
		case l.Type == "session_meta":
			thread = p.ID
		case p.Type == "function_call":
			var args struct{ Cmd string }
			json.Unmarshal([]byte(p.Arguments), &args)
			calls[p.CallID] = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": args.Cmd}}
		case p.Type == "custom_tool_call":
			calls[p.CallID] = map[string]any{"tool_name": p.Name, "tool_input": map[string]any{"command": p.Input}}
		case p.Type == "function_call_output" || p.Type == "custom_tool_call_output":
			in := calls[p.CallID]
			resp := p.Output
			if _, raw, ok := strings.Cut(resp, "Output:\n"); ok && p.Type == "function_call_output" {
				resp = raw
			}
			in["tool_response"] = resp
			in["tool_use_id"] = p.CallID
			in["session_id"], in["cwd"], in["transcript_path"] = thread, cwd, path
			in["hook_event_name"], in["model"], in["turn_id"], in["permission_mode"] = "PostToolUse", "gpt-5-codex", "turn-1", "default"
			out = append(out, in)
		}
	}
	return out
}

// storedEntry is memex show --json of ref without what differs between two
// stores by nature (the ID and the time of the add).
func storedEntry(t *testing.T, home, ref string) (map[string]any, string) {
	t.Helper()
	r := run(t, home, nil, "show", ref, "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || r.code != 0 {
		t.Fatalf("show %s --json: %v %+v", ref, err, r)
	}
	id, _ := m["id"].(string)
	delete(m, "id")
	delete(m, "created")
	return m, id
}

// TestCodexHookThenImportStoresWhatImportStores: a Codex session whose
// tool calls the PostToolUse hook archived as they ran, then whose rollout
// was imported (Codex's Stop hook), holds the same entries as the same
// rollout imported alone: tool name, input, exit status, aliases
// (SESSION#N too), content and summary; the hook's IDs still name them.
func TestCodexHookThenImportStoresWhatImportStores(t *testing.T) {
	hooked, imported := t.TempDir(), t.TempDir()
	cwd := t.TempDir()
	rollout := fixture(t, t.TempDir(), "rollout-2026-03-02T10-00-00-0199c0de-0000-7000-8000-00000000c0de.jsonl", cwd)
	const thread = "0199c0de-0000-7000-8000-00000000c0de"

	inputs := codexHookInputs(t, rollout, cwd)
	if len(inputs) != 5 {
		t.Fatalf("%d tool calls in the fixture, want 5", len(inputs))
	}
	ids := map[string]string{}
	for _, in := range inputs {
		call := in["tool_use_id"].(string)
		if r := hostHook(t, hooked, "codex", "PostToolUse", in); r.stdout != "" && !strings.HasPrefix(r.stdout, "{") {
			t.Fatalf("PostToolUse %s printed %q", call, r.stdout)
		}
		e, id := storedEntry(t, hooked, call) // the call id names it at once
		if e["input"] == "" {
			t.Fatalf("hook entry of %s has no input: %v", call, e)
		}
		ids[call] = id
	}
	hostHook(t, hooked, "codex", "Stop", map[string]any{"session_id": thread, "transcript_path": rollout, "cwd": cwd, "hook_event_name": "Stop"})
	if r := run(t, imported, nil, "ingest", "codex", rollout, "-q"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}

	for i, in := range inputs {
		call := in["tool_use_id"].(string)
		got, id := storedEntry(t, hooked, call)
		want, _ := storedEntry(t, imported, call)
		if id != ids[call] {
			t.Errorf("%s: the import gave the hook's entry a new ID %s (was %s)", call, id, ids[call])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: hook then import stored\n%v\nimport alone stored\n%v", call, got, want)
		}
		// SESSION#N, which only the rollout can tell, names the entry too.
		if _, byN := storedEntry(t, hooked, thread+"#"+string(rune('0'+i))); byN != id {
			t.Errorf("%s#%d names %s, want %s", thread, i, byN, id)
		}
	}
	// Once completed, an entry is not taken out again by a later import.
	if r := run(t, hooked, nil, "ingest", "codex", rollout, "--full", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"added": 0`) || strings.Contains(r.stdout, `"completed"`) {
		t.Errorf("second import: %+v", r)
	}
	if r := run(t, hooked, nil, "verify"); r.code != 0 {
		t.Errorf("verify after completing hook entries: %+v", r)
	}
}
