package hosts

import (
	"bytes"
	"encoding/json"
	"strings"
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
		`{"session_id":"s","tool_use_id":"01M96ZVPR9KARJDQ26944T2TMK","tool_response":"x"}`, `{"tool_use_id":" "}`,
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
		for _, a := range e.Aliases {
			if err := memex.CheckAlias(a); err != nil {
				t.Fatalf("alias %q the archive refuses: %v", a, err)
			}
		}
		if len(body) > maxIndented(len(in.ToolResponse)) {
			t.Fatalf("a %d-byte response became a %d-byte body", len(in.ToolResponse), len(body))
		}
	})
}

// TestDeepResponseIsNotBlownUp: a response nested 9,000 arrays deep is
// archived within a bound of its own size (indenting it would make 162 MB
// of it), and a plain object is still indented for reading.
func TestDeepResponseIsNotBlownUp(t *testing.T) {
	deep := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	in := HookInput{ToolName: "mcp__x__y", ToolUseID: "toolu_deep", ToolResponse: json.RawMessage(deep)}
	_, body := ToolEntry("claude-code", in)
	if len(body) > maxIndented(len(deep)) || string(body) != deep {
		t.Fatalf("a %d-byte response became a %d-byte body", len(deep), len(body))
	}
	_, body = ToolEntry("claude-code", HookInput{ToolResponse: json.RawMessage(`{"a":[1,2],"b":{"c":"x"}}`)})
	want := "{\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": {\n    \"c\": \"x\"\n  }\n}"
	if string(body) != want {
		t.Fatalf("object archived as %q", body)
	}
	if got := indentedSize([]byte(`{"a":[1,2],"b":{"c":"x"}}`)); got < len(want) {
		t.Fatalf("indentedSize %d under the real %d", got, len(want))
	}
}

// TestInvalidUTF8IsCounted: bytes of the host's JSON that are not UTF-8
// are counted on the entry rather than replaced without a word.
func TestInvalidUTF8IsCounted(t *testing.T) {
	raw := []byte("{\"tool_name\":\"Bash\",\"tool_use_id\":\"toolu_u\",\"tool_response\":{\"stdout\":\"caf\xe9 \xff\",\"stderr\":\"\"}}")
	in, err := ReadHook(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	e, body := ToolEntry("claude-code", in)
	if e.Attrs["invalid_utf8"] != "2" || string(body) != "caf\uFFFD \uFFFD" {
		t.Fatalf("attrs %v body %q", e.Attrs, body)
	}
}

// TestToolEntryRecordsCwd: a hook's entry keeps the working directory, as
// the transcript importers do, so that paths read relative to it.
func TestToolEntryRecordsCwd(t *testing.T) {
	raw := []byte(`{"tool_name":"Edit","cwd":"/home/u/api","tool_input":{"file_path":"/home/u/api/auth/token.go"},"tool_response":{}}`)
	in, err := ReadHook(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := ToolEntry("claude-code", in); e.Attrs["cwd"] != "/home/u/api" {
		t.Fatalf("attrs %v", e.Attrs)
	}
}

// TestToolEntryAliasesTheArchiveTakes: a host's tool id that the archive
// would refuse as an alias (of an ID's form, spaces) is left out, as the
// importers leave it out, and the key stays: an entry that cannot be
// archived would stay spooled for good.
func TestToolEntryAliasesTheArchiveTakes(t *testing.T) {
	for _, id := range []string{"01M96ZVPR9KARJDQ26944T2TMK", "  "} {
		e, _ := ToolEntry("claude-code", HookInput{SessionID: "s", ToolUseID: id})
		if len(e.Aliases) != 1 || e.Aliases[0] != Key(e) || !strings.Contains(e.Aliases[0], ":") {
			t.Errorf("tool id %q: aliases %q, want the key alone", id, e.Aliases)
		}
	}
	e, _ := ToolEntry("claude-code", HookInput{SessionID: "s", ToolUseID: "toolu_01ABC"})
	if len(e.Aliases) != 2 || e.Aliases[1] != "toolu_01ABC" {
		t.Errorf("aliases %q, want the key and toolu_01ABC", e.Aliases)
	}
}
