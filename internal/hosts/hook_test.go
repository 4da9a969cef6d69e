package hosts

import (
	"encoding/json"
	"testing"

	"github.com/memex-archive/memex"
)

// FuzzHookInput: whatever the host writes, turning it into an entry never
// panics, and a string response is archived byte for byte.
func FuzzHookInput(f *testing.F) {
	for _, s := range []string{
		`{"tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a\n","stderr":"b"}}`,
		`{"tool_name":"Read","tool_input":{"file_path":"x"},"tool_response":{"type":"text","file":{"content":"x\ny"}}}`,
		`{"tool_name":"X","tool_response":"plain"}`, `{"tool_response":[1,2]}`, `{"tool_response":null}`, `{}`,
		`{"tool_input":"not an object","tool_response":{"stdout":null}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var in HookInput
		if json.Unmarshal([]byte(raw), &in) != nil {
			return
		}
		e, body := ToolEntry("claude-code", in)
		if e.ID.IsZero() || e.Kind != memex.KindTool {
			t.Fatalf("entry %+v", e)
		}
		var s string
		if json.Unmarshal(in.ToolResponse, &s) == nil && string(body) != s {
			t.Fatalf("string response %q archived as %q", s, body)
		}
	})
}
