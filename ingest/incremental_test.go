package ingest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/redact"
)

func readLines(t *testing.T, p string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimRight(b, "\n"), []byte("\n"))
}

func writeFile(t *testing.T, p string, parts ...[]byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, bytes.Join(parts, nil), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestIdempotentAndIncremental grows a Claude Code transcript line by line
// and checks each run adds exactly the records that became complete, with
// a tool call held back until its result arrives, and that the total
// equals one run over the whole file.
func TestIdempotentAndIncremental(t *testing.T) {
	src := readLines(t, "testdata/claude/-home-u-proj/s1.jsonl")
	whole := newMemSink()
	wholeRep, _ := run(t, whole, Options{Format: ClaudeCode, Paths: []string{"testdata/claude/-home-u-proj/s1.jsonl"}})

	dir := t.TempDir()
	p := filepath.Join(dir, "s1.jsonl")
	sink := newMemSink()
	now := time.Now()
	opts := Options{Format: ClaudeCode, Paths: []string{p}, SettleAfter: time.Hour, Now: func() time.Time { return now }}

	// Lines 1-5 end with the tool_use of toolu_A: it must wait.
	writeFile(t, p, src[:5]...)
	rep, _ := run(t, sink, opts)
	if rep.Added != 2 || len(sink.aliases["toolu_A"]) != 0 {
		t.Fatalf("first part: added %d, toolu_A archived %v", rep.Added, sink.aliases["toolu_A"])
	}
	// Same file again: nothing read, nothing added.
	rep, _ = run(t, sink, opts)
	if rep.Added != 0 || rep.Unchanged != 1 {
		t.Fatalf("unchanged file: %+v", rep)
	}
	// Append the result and half of the next line (still being written).
	half := src[7][:len(src[7])/2]
	writeFile(t, p, append(append(src[:7:7], src[6]), half)...)
	writeFile(t, p, append(append([][]byte{}, src[:7]...), half)...)
	rep, _ = run(t, sink, opts)
	if rep.Added != 1 {
		t.Fatalf("after the result: added %d, want the tool entry only", rep.Added)
	}
	if e, body := sink.byAlias(t, "s1#0"); e.Tool != "Bash" || !strings.Contains(body, "FAIL") {
		t.Fatalf("tool entry %+v %q", e, body)
	}
	// The rest of the file.
	writeFile(t, p, src...)
	rep, _ = run(t, sink, opts)
	total := len(sink.entries)
	if total != wholeRep.Added {
		t.Fatalf("incremental runs archived %d entries, one run archives %d", total, wholeRep.Added)
	}
	if kinds(sink.session("s1")) != kinds(whole.session("s1")) {
		t.Fatalf("incremental\n %s\nwhole\n %s", kinds(sink.session("s1")), kinds(whole.session("s1")))
	}
	for _, a := range []string{"s1#0", "s1#1", "s1#2"} {
		e1, b1 := sink.byAlias(t, a)
		e2, b2 := whole.byAlias(t, a)
		if b1 != b2 || e1.Input != e2.Input {
			t.Errorf("%s differs between incremental and whole runs", a)
		}
	}
	// A rewritten file (same records, different bytes at the head) is read
	// whole and adds nothing.
	writeFile(t, p, append([][]byte{[]byte("{\"type\":\"tag\",\"tag\":\"x\"}\n")}, src...)...)
	rep, _ = run(t, sink, opts)
	if rep.Added != 0 || rep.Present == 0 {
		t.Fatalf("rewritten file: %+v", rep)
	}
}

// TestPendingToolSettles archives a tool call whose result never came once
// the file has been left alone long enough.
func TestPendingToolSettles(t *testing.T) {
	src := readLines(t, "testdata/claude/-home-u-proj/s1.jsonl")
	p := filepath.Join(t.TempDir(), "s1.jsonl")
	writeFile(t, p, src[:5]...)
	sink := newMemSink()
	later := time.Now().Add(2 * time.Hour)
	run(t, sink, Options{Format: ClaudeCode, Paths: []string{p}, SettleAfter: time.Hour, Now: func() time.Time { return later }})
	e, body := sink.byAlias(t, "toolu_A")
	if e.Attrs["result"] != "missing" || body != "" || e.Exit != nil {
		t.Fatalf("settled call %+v %q", e, body)
	}
}

// TestTruncatedLastLine: a last line without its newline that is not
// JSON yet is left for a later run, which reads it once whole; it is not
// counted as skipped, but it is told, by file and line, so that a file cut
// short for good is not taken for a whole one.
func TestTruncatedLastLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	writeFile(t, p, []byte("{\"content\":\"one\"}\n{\"content\":\"tw"))
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: JSONL, Paths: []string{p}})
	if rep.Added != 1 || rep.SkippedTotal() != 0 {
		t.Fatalf("report %+v warnings %q", rep, warns)
	}
	if want := p + ":2: last line cut short"; len(warns) != 1 || !strings.HasPrefix(warns[0], want) {
		t.Fatalf("warnings %q, want one starting %q", warns, want)
	}
	writeFile(t, p, []byte("{\"content\":\"one\"}\n{\"content\":\"two\"}\n{\"content\":\"three\"}"))
	rep, _ = run(t, sink, Options{Format: JSONL, Paths: []string{p}})
	if rep.Added != 2 || rep.Present != 0 {
		t.Fatalf("grown file: %+v", rep)
	}
}

// TestCodexZstd reads a compressed rollout, skips it while its plain twin
// exists, and adds nothing when the plain file is replaced by it.
func TestCodexZstd(t *testing.T) {
	plain, err := os.ReadFile("testdata/codex/rollout-2026-11-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	comp := enc.EncodeAll(plain, nil)
	dir := t.TempDir()
	name := filepath.Join(dir, "2026", "11", "02", "rollout-2026-11-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl")
	writeFile(t, name, plain)
	writeFile(t, name+".zst", comp)
	targets, _ := discover(Codex, []string{dir}, true)
	if len(targets) != 1 || targets[0].path != name {
		t.Fatalf("targets %+v: plain must win", targets)
	}
	sink := newMemSink()
	rep, _ := run(t, sink, Options{Format: Codex, Paths: []string{dir}})
	added := rep.Added
	if added == 0 {
		t.Fatal("nothing added")
	}
	if err := os.Remove(name); err != nil {
		t.Fatal(err)
	}
	rep, warns := run(t, sink, Options{Format: Codex, Paths: []string{dir}})
	if rep.Files != 1 || rep.Added != 0 || rep.Present != added || len(warns) != 0 {
		t.Fatalf("compressed twin: %+v %q", rep, warns)
	}
	if f := sniff(name + ".zst"); f != Codex {
		t.Errorf("sniff zst = %q", f)
	}
}

// TestOpenCodeDB builds a database with the schema OpenCode writes and
// reads it read-only.
func TestOpenCodeDB(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "opencode.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	mustExec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	mustExec(`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER)`)
	mustExec(`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`)
	mustExec(`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`)
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	mustExec(`INSERT INTO session VALUES ('ses_a','p1',NULL,'/home/u/proj','main',  '1', 1762000000000, 1762000009000)`)
	mustExec(`INSERT INTO session VALUES ('ses_b','p1','ses_a','/home/u/proj','sub', '1', 1762000005000, 1762000006000)`)
	mustExec(`INSERT INTO message VALUES ('msg_1','ses_a',1762000000000,0,?)`, js(map[string]any{"role": "user", "time": map[string]any{"created": 1762000000000}}))
	mustExec(`INSERT INTO message VALUES ('msg_2','ses_a',1762000001000,0,?)`, js(map[string]any{"role": "assistant", "modelID": "m", "path": map[string]any{"cwd": "/home/u/proj", "root": "/home/u/proj"}}))
	mustExec(`INSERT INTO message VALUES ('msg_3','ses_b',1762000005000,0,?)`, js(map[string]any{"role": "assistant"}))
	mustExec(`INSERT INTO part VALUES ('prt_1','msg_1','ses_a',1762000000000,0,?)`, js(map[string]any{"type": "text", "text": "list files"}))
	mustExec(`INSERT INTO part VALUES ('prt_2','msg_2','ses_a',1762000001000,0,?)`, js(map[string]any{"type": "tool", "callID": "call_x", "tool": "bash",
		"state": map[string]any{"status": "completed", "input": map[string]any{"command": "ls"}, "output": "a.go\nb.go\n", "metadata": map[string]any{"exit": 0}}}))
	mustExec(`INSERT INTO part VALUES ('prt_3','msg_2','ses_a',1762000002000,0,?)`, js(map[string]any{"type": "tool", "callID": "call_y", "tool": "read",
		"state": map[string]any{"status": "error", "input": map[string]any{"filePath": "/nope"}, "error": "File not found: /nope"}}))
	mustExec(`INSERT INTO part VALUES ('prt_4','msg_2','ses_a',1762000003000,0,?)`, js(map[string]any{"type": "tool", "callID": "call_z", "tool": "bash",
		"state": map[string]any{"status": "running", "input": map[string]any{"command": "sleep 9"}}}))
	mustExec(`INSERT INTO part VALUES ('prt_5','msg_2','ses_a',1762000004000,0,?)`, js(map[string]any{"type": "compaction"}))
	mustExec(`INSERT INTO part VALUES ('prt_6','msg_3','ses_b',1762000005000,0,?)`, js(map[string]any{"type": "reasoning", "text": "subagent thinks"}))
	mustExec(`INSERT INTO part VALUES ('prt_7','msg_3','ses_b',1762000005001,0,'{not json')`)
	db.Close()

	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: OpenCode, Paths: []string{dir}})
	if rep.Files != 1 || rep.Sessions != 2 || rep.Skipped["malformed json"] != 1 {
		t.Fatalf("report %+v warnings %q", rep, warns)
	}
	// The row that is not JSON is told by table and id, as a line is.
	if want := dbPath + ": part prt_7: malformed json: "; len(warns) != 1 || !strings.HasPrefix(warns[0], want) {
		t.Fatalf("warnings %q, want one starting %q", warns, want)
	}
	if got := kinds(sink.session("ses_a")); got != "message tool:bash tool:read event" {
		t.Fatalf("ses_a kinds %s", got)
	}
	ls, body := sink.byAlias(t, "ses_a#0")
	if ls.Input != "ls" || body != "a.go\nb.go\n" || *ls.Exit != 0 || ls.Project != "/home/u/proj" {
		t.Errorf("ls %+v %q", ls, body)
	}
	rd, body := sink.byAlias(t, "call_y")
	if *rd.Exit != 1 || body != "File not found: /nope" || rd.Input != `{"filePath":"/nope"}` {
		t.Errorf("read %+v %q", rd, body)
	}
	sub := sink.session("ses_b")
	if len(sub) != 1 || sub[0].Attrs["parent_session"] != "ses_a" || sub[0].Kind != memex.KindReasoning {
		t.Errorf("subagent session %+v", sub)
	}
	// The running call finishes: the next run adds only it.
	db, _ = sql.Open("sqlite", dbPath)
	mustExec(`UPDATE part SET data=? WHERE id='prt_4'`, js(map[string]any{"type": "tool", "callID": "call_z", "tool": "bash",
		"state": map[string]any{"status": "completed", "input": map[string]any{"command": "sleep 9"}, "output": ""}}))
	db.Close()
	rep, _ = run(t, sink, Options{Format: OpenCode, Paths: []string{dbPath}})
	if rep.Added != 1 {
		t.Fatalf("second run added %d, want 1", rep.Added)
	}
}

// TestOpenCodeDBBadRowsAreTold: a row whose data is not what OpenCode
// writes (a field of another type, JSON cut short) is not dropped in
// silence: each is warned by table and id and counted as skipped, and the
// parts of a message whose own row is bad are still read.
func TestOpenCodeDBBadRowsAreTold(t *testing.T) {
	dbPath := filepath.Join(t.TempDir(), "opencode.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER)`,
		`CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`,
		`CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT)`,
		`INSERT INTO session VALUES ('ses_a','p1',NULL,'/home/u/proj','main','1',1762000000000,1762000009000)`,
		`INSERT INTO message VALUES ('msg_1','ses_a',1762000000000,0,'{"role":"assistant","modelID":7}')`,
		`INSERT INTO part VALUES ('prt_1','msg_1','ses_a',1762000000001,0,'{"type":"text","text":"kept"}')`,
		`INSERT INTO part VALUES ('prt_2','msg_1','ses_a',1762000000002,0,'{"type":"tool","callID":"c2","tool":"bash","state":{"status":"completed","output":"FAIL","metadata":{"exit":"1"}}}')`,
		`INSERT INTO part VALUES ('prt_3','msg_1','ses_a',1762000000003,0,'{"type":"text","text":"cut')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: OpenCode, Paths: []string{dbPath}})
	if rep.Added != 1 || rep.Skipped["malformed json"] != 3 || len(rep.Ignored) != 0 {
		t.Fatalf("report %+v", rep)
	}
	want := []string{
		dbPath + `: message msg_1: malformed json: field "modelID": found a number, want a string`,
		dbPath + `: part prt_2: malformed json: field "state.metadata.exit": found a string, want an integer`,
		dbPath + `: part prt_3: malformed json: JSON cut short`,
	}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q, want %q", warns, want)
	}
	for i := range want {
		if !strings.HasPrefix(warns[i], want[i]) {
			t.Errorf("warning %q, want it to start %q", warns[i], want[i])
		}
	}
	if got := sink.session("ses_a"); len(got) != 1 || got[0].Attrs["role"] != "assistant" {
		t.Errorf("entries %+v, want the text part of the bad message row", got)
	}
}

// TestPolicyBeforeSink: what reaches the sink, and what a later run
// compares with it, is the record after Options.Policy; without one
// ingest stores the record as it is (it does not redact on its own).
func TestPolicyBeforeSink(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	secret := "ghp_" + strings.Repeat("Ab1", 12)
	writeFile(t, p, []byte(`{"kind":"tool","input":"curl -H 'Authorization: token `+secret+`' api","content":"GITHUB_TOKEN=`+secret+`\nok\n","attrs":{"env":"DB_PASSWORD=hunter22x"}}`+"\n"))
	sink := newMemSink()
	rep, _ := run(t, sink, Options{Format: JSONL, Paths: []string{p}, Policy: redact.Bytes})
	if rep.Redacted != 3 || rep.RedactedKinds["github_token"] != 2 || rep.RedactedKinds["password"] != 1 {
		t.Fatalf("report %+v", rep)
	}
	e, body := sink.byAlias(t, "s#0")
	if strings.Contains(body, secret) || strings.Contains(e.Input, secret) || body != "GITHUB_TOKEN=[REDACTED:github_token]\nok\n" || e.Attrs["env"] != "DB_PASSWORD=[REDACTED:password]" {
		t.Fatalf("secret reached the sink: %q %q", e.Input, body)
	}
	p2 := filepath.Join(t.TempDir(), "raw.jsonl")
	writeFile(t, p2, []byte(`{"content":"`+secret+`"}`+"\n"))
	rep, _ = run(t, sink, Options{Format: JSONL, Paths: []string{p2}})
	if rep.Redacted != 0 || sink.body(sink.session("raw")[0].ID) != secret {
		t.Fatal("without a Policy the input must be stored as is")
	}
	// The same records read again under the policy are the ones stored,
	// not another run of the session with other content.
	rep, _ = run(t, sink, Options{Format: JSONL, Paths: []string{p}, Policy: redact.Bytes, Full: true})
	if rep.Added != 0 || rep.Present != 1 || rep.Differ != 0 {
		t.Fatalf("re-read under the policy: %+v", rep)
	}
}

func TestProgressCallback(t *testing.T) {
	var seen []Progress
	sink := newMemSink()
	_, err := Run(context.Background(), sink, Options{Format: Auto, Paths: []string{"testdata/swe"}, Progress: func(p Progress) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 3 || seen[0].Files != 0 || seen[2].Files != 2 || seen[2].TotalFiles != 2 || seen[2].Bytes != seen[2].TotalBytes {
		t.Fatalf("progress %+v", seen)
	}
}

func TestDetectProject(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	writeFile(t, filepath.Join(repo, ".git", "config"), []byte("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = git@github.com:acme/widget.git\n"))
	if err := os.MkdirAll(filepath.Join(repo, "sub", "dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := DetectProject(filepath.Join(repo, "sub", "dir")); got != "github.com/acme/widget" {
		t.Errorf("remote project %q", got)
	}
	// A worktree points at the main repository's git dir.
	wt := filepath.Join(root, "wt")
	writeFile(t, filepath.Join(repo, ".git", "worktrees", "wt", "commondir"), []byte("../..\n"))
	writeFile(t, filepath.Join(wt, ".git"), []byte("gitdir: "+filepath.Join(repo, ".git", "worktrees", "wt")+"\n"))
	if got := DetectProject(wt); got != "github.com/acme/widget" {
		t.Errorf("worktree project %q", got)
	}
	local := filepath.Join(root, "local")
	writeFile(t, filepath.Join(local, ".git", "HEAD"), []byte("ref: refs/heads/main\n"))
	if got := DetectProject(local); got != local {
		t.Errorf("local project %q", got)
	}
	if got := DetectProject("/no/such/dir/anywhere"); got != "/no/such/dir/anywhere" {
		t.Errorf("gone dir %q", got)
	}
}

func TestDefaultPaths(t *testing.T) {
	home := t.TempDir()
	got := DefaultPaths(Auto, home)
	want := []string{
		filepath.Join(home, ".claude", "projects"),
		filepath.Join(home, ".codex", "sessions"), filepath.Join(home, ".codex", "archived_sessions"),
		filepath.Join(home, ".gemini", "tmp"),
		filepath.Join(home, ".local", "share", "opencode"),
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("DefaultPaths = %q", got)
	}
	// With no home given, the environment moves them.
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(home, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(home, "codex"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	t.Setenv("GEMINI_CLI_HOME", filepath.Join(home, "gemini"))
	got = DefaultPaths(Auto, "")
	want = []string{
		filepath.Join(home, "claude", "projects"),
		filepath.Join(home, "codex", "sessions"), filepath.Join(home, "codex", "archived_sessions"),
		filepath.Join(home, "gemini", ".gemini", "tmp"),
		filepath.Join(home, "data", "opencode"),
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("DefaultPaths from the environment = %q", got)
	}
	// Missing default locations are empty, not errors.
	rep, err := Run(context.Background(), newMemSink(), Options{Format: Auto, Home: home})
	if err != nil || rep.Files != 0 || len(rep.FileErrors) != 0 {
		t.Fatalf("empty home: %+v %v", rep, err)
	}
}

// TestClaudeSpilledOutput reads a tool output the host saved to
// tool-results/ instead of the preview left in the transcript.
func TestClaudeSpilledOutput(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "-home-u-proj")
	full := strings.Repeat("line of a very long build log\n", 2000)
	writeFile(t, filepath.Join(proj, "s9", "tool-results", "toolu_big.txt"), []byte(full))
	preview := "<persisted-output>\nOutput too large (58.6KB). Full output saved to: /Users/x/.claude/projects/-home-u-proj/s9/tool-results/toolu_big.txt\n\nPreview (first 2KB):\nline of a very long build log\n</persisted-output>"
	use := `{"type":"assistant","uuid":"a1","sessionId":"s9","timestamp":"2026-11-01T10:00:00Z","cwd":"/home/u/proj","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_big","name":"Bash","input":{"command":"make"}}]}}`
	res, _ := json.Marshal(map[string]any{"type": "user", "uuid": "u1", "sessionId": "s9", "timestamp": "2026-11-01T10:00:09Z",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_big", "content": preview}}}})
	writeFile(t, filepath.Join(proj, "s9.jsonl"), []byte(use+"\n"), res, []byte("\n"))
	sink := newMemSink()
	run(t, sink, Options{Format: ClaudeCode, Paths: []string{proj}})
	e, body := sink.byAlias(t, "toolu_big")
	if body != full || !strings.HasSuffix(e.Attrs["spilled"], "toolu_big.txt") {
		t.Fatalf("spilled output not read: %d bytes, attrs %v", len(body), e.Attrs)
	}
}

// TestRelativeCwdIsTheProjectAsWritten: a transcript whose cwd is not an
// absolute path (written on another system, or made anonymous) names no
// directory of this machine: its project is that cwd as written, not the
// repository holding the directory memex happens to run in, so the same
// file imports alike from anywhere.
func TestRelativeCwdIsTheProjectAsWritten(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "-x-y")
	use := `{"type":"assistant","uuid":"a1","sessionId":"s1","timestamp":"2026-11-01T10:00:00Z","cwd":"-x/y/worktrees/agent-1","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}]}}`
	res := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-11-01T10:00:09Z","cwd":"-x/y/worktrees/agent-1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}`
	writeFile(t, filepath.Join(proj, "s1.jsonl"), []byte(use+"\n"+res+"\n"))
	// Run from inside a repository with an origin.
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:acme/widget.git\n"))
	t.Chdir(repo)
	sink := newMemSink()
	run(t, sink, Options{Format: ClaudeCode, Paths: []string{proj}})
	e, _ := sink.byAlias(t, "toolu_1")
	if e.Project != "-x/y/worktrees/agent-1" {
		t.Fatalf("project %q, want the cwd as written", e.Project)
	}
}

func TestConcurrentRunsAddOnce(t *testing.T) {
	sink := newMemSink()
	done := make(chan Report)
	for i := 0; i < 4; i++ {
		go func() {
			rep, _ := Run(context.Background(), sink, Options{Format: ClaudeCode, Paths: []string{"testdata/claude"}, SettleAfter: -1})
			done <- rep
		}()
	}
	added := 0
	for i := 0; i < 4; i++ {
		added += (<-done).Added
	}
	one, _ := run(t, newMemSink(), Options{Format: ClaudeCode, Paths: []string{"testdata/claude"}})
	if added != one.Added || len(sink.entries) != one.Added {
		t.Fatalf("4 concurrent runs added %d (%d stored), one run adds %d", added, len(sink.entries), one.Added)
	}
}

func TestNoDefaultLocation(t *testing.T) {
	if _, err := Run(context.Background(), newMemSink(), Options{Format: SWEAgent}); err == nil {
		t.Fatal("want an error: swe-agent has no default location")
	}
}
