package ingest

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// parseBytes runs format f's parser over data as if read from a file named
// name, and stores the records in a memSink. Arbitrary input must never
// panic, and every record must reach the sink with a Key.
func parseBytes(t *testing.T, f Format, name string, data []byte) {
	t.Helper()
	rep := &Report{}
	opts := &Options{Now: time.Now, SettleAfter: -1}
	src := &source{path: name, format: f, data: data, line: 1, mtime: time.Unix(1700000000, 0), opts: opts, rep: rep,
		proj: func(cwd string) string { return cwd }}
	if err := parserFor(f)(context.Background(), src); err != nil {
		return
	}
	sink := newMemSink()
	r := &runner{sink: sink, opts: opts, rep: rep, projects: map[string]string{}, sessions: map[memex.SessionRef]bool{}}
	if err := r.storeSource(context.Background(), src); err != nil {
		t.Fatalf("store: %v", err)
	}
	for _, rec := range src.records {
		if rec.Key == "" {
			t.Fatalf("record without key: %+v", rec.Entry)
		}
	}
	if src.resume < 0 || src.resume > int64(len(data)) {
		t.Fatalf("resume %d outside [0,%d]", src.resume, len(data))
	}
}

func seed(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

func FuzzClaudeCode(f *testing.F) {
	seed(f, "testdata/claude/-home-u-proj/s1/subagents/agent-a1b2c3.jsonl")
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":[{"type":"image"}]}]}}`))
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a","input":null},{"type":"tool_use","id":"a"}]}}` + "\n" + `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a","is_error":true,"content":"Exit code 99999999999999999999"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) { parseBytes(t, ClaudeCode, "/p/s.jsonl", b) })
}

func FuzzCodex(f *testing.F) {
	seed(f, "testdata/codex/rollout-2026-11-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl")
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","arguments":{"cmd":["ls"]},"call_id":"c"}}` + "\n" + `{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"x"}]}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"local_shell_call","id":"l","action":{"command":["bash","-c","x"]}}}`))
	f.Fuzz(func(t *testing.T, b []byte) { parseBytes(t, Codex, "/p/rollout-x.jsonl", b) })
}

func FuzzMiniSWEAgent(f *testing.F) {
	seed(f, "testdata/swe/acme__widget-42/acme__widget-42.traj.json")
	f.Add([]byte(`{"messages":[{"role":"assistant","content":"` + "```bash\\nls\\n```" + `","timestamp":1e300}]}`))
	f.Fuzz(func(t *testing.T, b []byte) { parseBytes(t, MiniSWEAgent, "/p/x.traj.json", b) })
}

func FuzzSWEAgent(f *testing.F) {
	seed(f, "testdata/swe/acme__widget-7.traj")
	f.Add([]byte(`{"trajectory":[{"action":"","observation":{"a":1},"state":"\"x\""}],"history":[{"role":"user","content":[]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) { parseBytes(t, SWEAgent, "/p/x.traj", b) })
}

func FuzzJSONL(f *testing.F) {
	seed(f, "testdata/jsonl/bench.jsonl")
	f.Add([]byte(`{"content":"x","exit":-1,"time":"bad"}` + "\n" + `{"content":"y","aliases":["01JD0000000000000000000000"]}`))
	f.Fuzz(func(t *testing.T, b []byte) { parseBytes(t, JSONL, "/p/x.jsonl", b) })
}

// FuzzOpenCode feeds arbitrary JSON to the part and message decoders and
// the session walk (the SQLite layer itself is the driver's to fuzz).
func FuzzOpenCode(f *testing.F) {
	seed(f, "testdata/opencode/storage/part/msg_02/prt_04.json", "testdata/opencode/storage/message/ses_01/msg_02.json")
	f.Add([]byte(`{"type":"tool","state":{"status":"error","metadata":{"exit":"x"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p ocPart
		var m ocMessage
		_ = json.Unmarshal(b, &p)
		_ = json.Unmarshal(b, &m)
		p.ID, m.ID, p.MessageID = "prt_x", "msg_x", "msg_x"
		rep := &Report{}
		src := &source{path: "/p/opencode.db", format: OpenCode, opts: &Options{Now: time.Now}, rep: rep, proj: func(c string) string { return c }}
		emitOpenCodeSession(src, ocSession{ID: "ses_x"}, []ocMessage{m}, map[string][]ocPart{"msg_x": {p}})
		sink := newMemSink()
		r := &runner{sink: sink, opts: src.opts, rep: rep, projects: map[string]string{}, sessions: map[memex.SessionRef]bool{}}
		if err := r.storeSource(context.Background(), src); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzSniff(f *testing.F) {
	seed(f, "testdata/jsonl/bench.jsonl", "testdata/codex/rollout-2026-11-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl")
	f.Fuzz(func(t *testing.T, b []byte) {
		p := t.TempDir() + "/x.jsonl"
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_ = sniff(p)
	})
}

func FuzzGemini(f *testing.F) {
	seed(f, "testdata/gemini/tmp/proj/chats/session-2026-11-29T10-00-5c0ffee0.jsonl")
	f.Add([]byte(`{"$rewindTo":"x"}` + "\n" + `{"$set":{"messages":[{"id":"a","type":"gemini","toolCalls":[{"id":"t","status":"success","result":{"functionResponse":null}}]}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		parseBytes(t, Gemini, "/g/tmp/p/chats/session-x.jsonl", b)
		parseBytes(t, Gemini, "/g/tmp/p/chats/session-x.json", b)
	})
}
