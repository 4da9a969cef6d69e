package hosts

import (
	"encoding/json"
	"io"
)

// LessonOutput is what a PostToolUse hook prints to add one line to the
// agent's context (the lesson of a failure seen before): the host's JSON,
// the line cut to ContextChars. Claude Code runs memex's PostToolUse
// hook in the background, so the line reaches the agent on its next
// turn; Codex reads it at once.
func LessonOutput(w io.Writer, line string) error {
	if len(line) > ContextChars {
		line = line[:ContextChars]
	}
	return json.NewEncoder(w).Encode(map[string]any{
		"hookSpecificOutput": map[string]string{"hookEventName": "PostToolUse", "additionalContext": line},
	})
}
