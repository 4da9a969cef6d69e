package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/jsondec"
	"github.com/memex-archive/memex/internal/testutil"
)

// agree checks that unmarshal decodes data into T as json.Unmarshal does:
// the same value, the same error.
func agree[T any](t *testing.T, what string, data []byte) {
	t.Helper()
	var got, want T
	gerr, werr := jsondec.Unmarshal(data, &got), json.Unmarshal(data, &want)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) {
		t.Errorf("%s %.80q: error %v, encoding/json's %v", what, data, gerr, werr)
	}
	if g, w := fmt.Sprintf("%+v", deref(got)), fmt.Sprintf("%+v", deref(want)); g != w {
		t.Errorf("%s %.80q: decoded\n%.300s\nencoding/json\n%.300s", what, data, g, w)
	}
}

// deref renders v with its pointers followed, so that two decodings
// compare by what they hold.
func deref(v any) any {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDecodeAgreesWithEncodingJSON: what the parsers decode is what
// encoding/json decodes, value and error: for valid and broken lines (a
// raw tab in a string, a bad escape or a missing value in a field no
// parser reads, a leading zero, which a decoder that skips without
// validating accepts), names matched regardless of case, repeated names,
// invalid UTF-8, type mismatches, and every line and trajectory of the
// corpora.
func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"role":"user","content":"hi"}}`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"x"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
		"{\"type\":\"user\",\"uuid\":\"a\xffb\"}",
		"{\"type\":\"user\",\"uuid\":\"a\xed\xa0\x80b\"}",
		`{"type":"user","uuid":"\ud800"}`,
		`{"type":"a","type":"b"}`,
		`{"TYPE":"upper"}`,
		`{"Type":"x","SessionID":"s","UUID":"u"}`,
		`{"session_id":"s","message":{"CONTENT":"c"}}`,
		`[{"type":"tool_result","toolUseID":"a","ToolUseId":"b","tool_use_id":"c"}]`,
		`[{"type":"tool_result","tooluseid":"a","is_error":"yes"}]`,
		`{"message":{"id":"a"},"message":{"model":"b"}}`,
		`{"type":"x","type":null,"message":{"id":"a"},"message":null}`,
		`{"payload":{"type":"x"},"payload":{"call_id":"c"},"callId":"d"}`,
		`{"type":"x"} trailing`,
		`{"type":"x"}}`,
		`{"zz":"bad \q escape","type":"x"}`,
		`{"zz":[1,2,,3],"type":"x"}`,
		`{"zz":tru,"type":"x"}`,
		"{\"type\":\"tab\there\"}",
		`{"zz":{"q":[1,{"w":"\u00zz"}]},"type":"x"}`,
		`{"zz":01,"type":"x"}`,
		`{"zz":- 1,"type":"x"}`,
		`{"type":"x"`,
		``,
		`[1]`,
		`{"type":1}`,
		`{"isMeta":"true"}`,
		`{"message":"a string"}`,
		`{"message":{"content":[1,2]}}`,
		`{"compactMetadata":{"preTokens":1.5}}`,
		`{"compactMetadata":{"preTokens":1e999}}`,
		`{"timestamp":1712345678.5,"payload":{"type":"message"}}`,
		`{"messages":[{"role":"user","content":"x","timestamp":"soon"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"text","text":"a"}],"timestamp":1712345678.25}]}`,
		`{"trajectory":[{"action":"ls","observation":"a\u0000b"}],"history":[]}`,
	}
	for _, l := range lines {
		agree[ccLine](t, "claude line", []byte(l))
		agree[[]ccBlock](t, "claude blocks", []byte(l))
		agree[codexLine](t, "codex line", []byte(l))
		agree[codexPayload](t, "codex payload", []byte(l))
		agree[mswTraj](t, "mini-swe-agent", []byte(l))
		agree[sweTraj](t, "swe-agent", []byte(l))
	}
	dir := testutil.CorporaDir()
	if dir == "" {
		return
	}
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		switch {
		case strings.Contains(p, "claude-code") && strings.HasSuffix(p, ".jsonl"):
			for _, l := range bytes.Split(data, []byte{'\n'}) {
				agree[ccLine](t, p, l)
				var cl ccLine
				if jsondec.Unmarshal(l, &cl) == nil && cl.Message != nil && len(cl.Message.Content) > 0 {
					agree[[]ccBlock](t, p, cl.Message.Content)
				}
				n++
			}
		case strings.Contains(p, "codex") && strings.HasSuffix(p, ".jsonl"):
			for _, l := range bytes.Split(data, []byte{'\n'}) {
				agree[codexLine](t, p, l)
				n++
			}
		case strings.HasSuffix(p, ".traj.json"):
			agree[mswTraj](t, p, data)
			n++
		case strings.HasSuffix(p, ".traj"):
			agree[sweTraj](t, p, data)
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Error("no transcript in the corpora")
	}
}
