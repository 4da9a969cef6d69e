package hosts

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/testutil"
)

// recordSink keeps what ingest adds, by alias.
type recordSink struct{ byAlias map[string]memex.Entry }

func (s *recordSink) Add(_ context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	for _, a := range e.Aliases {
		s.byAlias[a] = e
	}
	return e, nil
}
func (s *recordSink) Lookup(context.Context, string, string) (memex.ID, error) {
	return memex.ID{}, memex.ErrNotFound
}
func (s *recordSink) GetState(context.Context, string) ([]byte, error) { return nil, memex.ErrNotFound }
func (s *recordSink) SetState(context.Context, string, []byte) error   { return nil }

// hookCalls replays a Claude Code transcript as the hook inputs the host
// would have sent: PostToolUse for a call that succeeded,
// PostToolUseFailure (with the result's text as the error) for one marked
// is_error.
func hookCalls(t *testing.T, path string) []HookInput {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var calls []HookInput
	at := map[string]int{}
	for sc.Scan() {
		var l struct {
			SessionID, Cwd string
			Message        struct{ Content json.RawMessage }
			ToolUseResult  json.RawMessage
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		var raw []map[string]json.RawMessage
		if json.Unmarshal(l.Message.Content, &raw) != nil {
			continue
		}
		for _, b := range raw {
			var typ, id, name, tuid string
			var isError *bool
			json.Unmarshal(b["type"], &typ)
			json.Unmarshal(b["id"], &id)
			json.Unmarshal(b["name"], &name)
			json.Unmarshal(b["tool_use_id"], &tuid)
			json.Unmarshal(b["is_error"], &isError)
			switch typ {
			case "tool_use":
				at[id] = len(calls)
				calls = append(calls, HookInput{SessionID: l.SessionID, Cwd: l.Cwd, Event: "PostToolUse",
					ToolName: name, ToolInput: b["input"], ToolUseID: id})
			case "tool_result":
				i, ok := at[tuid]
				if !ok {
					continue
				}
				if isError != nil && *isError {
					var text string
					if json.Unmarshal(b["content"], &text) != nil {
						continue // a block list: the hook's error is its text, not rebuilt here
					}
					calls[i].Event, calls[i].Error = "PostToolUseFailure", text
					continue
				}
				calls[i].ToolResponse = l.ToolUseResult
				if len(l.ToolUseResult) == 0 {
					calls[i].ToolResponse = b["content"]
				}
			}
		}
	}
	return calls
}

// TestHookAndTranscriptAgree: for every tool call of the real Claude Code
// transcripts, the entry the hook makes has the key, the input and the
// exit status the transcript importer gives the same call.
func TestHookAndTranscriptAgree(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.Corpora(t), "claude-code", "projects", "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	compared, failures := 0, 0
	for _, path := range files {
		sink := &recordSink{byAlias: map[string]memex.Entry{}}
		if _, err := ingest.Run(context.Background(), sink, ingest.Options{Format: ingest.ClaudeCode, Paths: []string{path}, SettleAfter: -1}); err != nil {
			t.Fatal(err)
		}
		for _, in := range hookCalls(t, path) {
			if len(in.ToolResponse) == 0 && in.Error == "" {
				continue // no result in the transcript: the hook never ran
			}
			e, _ := ToolEntry("claude-code", in)
			want, ok := sink.byAlias[Key(e)]
			if !ok {
				t.Errorf("%s: call %s: the hook's key %q is not the importer's (aliases %v)", filepath.Base(path), in.ToolUseID, Key(e), e.Aliases)
				continue
			}
			compared++
			if e.Input != want.Input {
				t.Errorf("%s: call %s (%s): hook input %q, transcript input %q", filepath.Base(path), in.ToolUseID, in.ToolName, e.Input, want.Input)
			}
			if !bytes.Equal(exitJSON(e.Exit), exitJSON(want.Exit)) {
				t.Errorf("%s: call %s (%s, %s): hook exit %s, transcript exit %s", filepath.Base(path), in.ToolUseID, in.ToolName, in.Event, exitJSON(e.Exit), exitJSON(want.Exit))
			}
			if in.Event == "PostToolUseFailure" {
				failures++
			}
		}
	}
	if compared < 100 || failures == 0 {
		t.Fatalf("compared %d calls (%d failures); want at least 100 and some failures", compared, failures)
	}
	t.Logf("%d calls compared, %d of them failures", compared, failures)
}

func exitJSON(p *int) []byte {
	b, _ := json.Marshal(p)
	return b
}
