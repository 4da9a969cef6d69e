package ingest

import (
	"encoding/json"
	"strings"
)

// A tool call reaches memex twice: from the host's hook as it happens, and
// from its transcript when that is imported. Both paths build the entry
// with the rules below, so that the entry reads the same whichever got
// there first, and the second finds the first by its key.

// ToolKey is the idempotency key of a host's tool call: the key the
// transcript importer gives the call, and the one its hook gives it.
// Claude Code's tool_use ids are unique on their own ("cc:ID"); a Codex
// call_id only within its thread ("codex:THREAD:ID"). An OpenCode call is
// keyed by its part's id in the import ("oc:PART"), which its plugin's
// hook cannot know: the import also names the call
// "opencode:SESSION:CALLID", the hook's key, and completes an entry the
// hook archived under it.
func ToolKey(agent, session, callID string) string {
	switch agent {
	case agentCodex:
		return "codex:" + session + ":" + callID
	case agentOpenCode:
		return "opencode:" + session + ":" + callID
	}
	return "cc:" + callID
}

// ToolInput is a tool call's Input, from its arguments as the host gives
// them (an object, or a string holding one as Codex writes them): a shell
// call's command (the command or cmd argument; an argv joined by spaces,
// ["bash","-lc",SCRIPT] as its script), else the arguments as one-line
// JSON, else (a freeform tool's input, such as a raw patch) the string as
// it is.
func ToolInput(args json.RawMessage) string {
	s, isString := jsonString(args)
	if isString {
		if !json.Valid([]byte(s)) {
			return s
		}
		args = json.RawMessage(s)
	}
	var v struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if len(args) > 0 && args[0] == '{' && json.Unmarshal(args, &v) == nil {
		for _, c := range []json.RawMessage{v.Command, v.Cmd} {
			if cmd, ok := jsonString(c); ok {
				return cmd
			}
			var argv []string
			if len(c) > 0 && json.Unmarshal(c, &argv) == nil && len(argv) > 0 {
				// ["bash","-lc","go test ./..."] reads best as its script.
				if len(argv) == 3 && (argv[0] == "bash" || argv[0] == "sh" || argv[0] == "zsh") && (argv[1] == "-lc" || argv[1] == "-c") {
					return argv[2]
				}
				return strings.Join(argv, " ")
			}
		}
	}
	return compactJSON(args)
}
