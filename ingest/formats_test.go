package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

func run(t *testing.T, sink Sink, opts Options) (Report, []string) {
	t.Helper()
	var warns []string
	opts.Warn = func(s string) { warns = append(warns, s) }
	if opts.SettleAfter == 0 {
		opts.SettleAfter = -1
	}
	rep, err := Run(context.Background(), sink, opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return rep, warns
}

func TestClaudeCodeFixture(t *testing.T) {
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: ClaudeCode, Paths: []string{"testdata/claude"}})
	if rep.Files != 2 || rep.Sessions != 2 {
		t.Errorf("files %d sessions %d, want 2 and 2", rep.Files, rep.Sessions)
	}
	if rep.Skipped["malformed json"] != 1 || len(warns) != 1 || !strings.Contains(warns[0], "s1.jsonl:6: malformed json") {
		t.Errorf("skipped %v, warnings %q", rep.Skipped, warns)
	}
	if rep.Unknown["claude-code:some-future-type"] != 1 {
		t.Errorf("unknown %v", rep.Unknown)
	}
	if rep.Ignored["claude-code:empty thinking"] != 1 || rep.Ignored["claude-code:permission-mode"] != 1 {
		t.Errorf("ignored %v", rep.Ignored)
	}
	es := sink.session("s1")
	want := "message reasoning tool:Bash tool:Read tool:Task event event message"
	if got := kinds(es); got != want {
		t.Fatalf("session s1 kinds\n got %s\nwant %s", got, want)
	}
	for i := 1; i < len(es); i++ {
		if es[i].Created.Before(es[i-1].Created) {
			t.Errorf("entry %d created before its predecessor", i)
		}
	}

	bash, body := sink.byAlias(t, "toolu_A")
	if bash.Input != "go test ./..." || bash.Exit == nil || *bash.Exit != 1 || !strings.HasPrefix(body, "Exit code 1\n--- FAIL") {
		t.Errorf("bash entry: input %q exit %v body %q", bash.Input, bash.Exit, body)
	}
	if bash.Project != "/home/u/proj" || bash.Agent != "claude-code" || bash.Attrs["git_branch"] != "" {
		t.Errorf("bash entry: project %q agent %q attrs %v", bash.Project, bash.Agent, bash.Attrs)
	}
	if !bash.Created.Equal(time.Date(2026, 11, 1, 10, 0, 2, 0, time.UTC)) {
		t.Errorf("created %v, want the tool_use time", bash.Created)
	}
	for _, a := range []string{"cc:toolu_A", "s1#0"} {
		if e, _ := sink.byAlias(t, a); e.ID != bash.ID {
			t.Errorf("alias %s names another entry", a)
		}
	}
	read, body := sink.byAlias(t, "s1#1")
	if read.Tool != "Read" || read.Input != `{"file_path":"/home/u/proj/parser.go"}` {
		t.Errorf("read entry %q %q", read.Tool, read.Input)
	}
	if want := "     1\tpackage parser\n[image: image/png, 8 bytes]\n     2\tvar m map[string]int"; body != want {
		t.Errorf("read body %q, want %q", body, want)
	}
	if read.Exit == nil || *read.Exit != 0 {
		t.Errorf("read exit %v, want 0 from a structured toolUseResult", read.Exit)
	}
	task, _ := sink.byAlias(t, "toolu_C")
	if task.Attrs["subagent_session"] != "agent-a1b2c3" {
		t.Errorf("task attrs %v", task.Attrs)
	}
	boundary := es[5]
	if boundary.Attrs["event"] != "compact_boundary" || boundary.Attrs["trigger"] != "auto" || boundary.Attrs["pre_tokens"] != "155000" {
		t.Errorf("boundary %+v", boundary.Attrs)
	}
	if es[6].Attrs["event"] != "compact_summary" || !strings.Contains(sink.body(es[6].ID), "Summary: the nil map") {
		t.Errorf("summary %+v", es[6].Attrs)
	}
	if th := sink.body(es[1].ID); th != "The test probably fails on the nil map." || es[1].Attrs["message_id"] != "msg_1" {
		t.Errorf("reasoning %q %v", th, es[1].Attrs)
	}

	sub := sink.session("agent-a1b2c3")
	if got := kinds(sub); got != "message tool:Bash" {
		t.Fatalf("subagent kinds %s", got)
	}
	if sub[1].Attrs["parent_session"] != "s1" || sub[1].Attrs["agent_type"] != "Explore" || sub[1].Exit == nil || *sub[1].Exit != 0 {
		t.Errorf("subagent tool %+v exit %v", sub[1].Attrs, sub[1].Exit)
	}
	if _, b := sink.byAlias(t, "agent-a1b2c3#0"); b != "parser.go\nparser_test.go" {
		t.Errorf("subagent body %q", b)
	}
}

// TestClaudeCode10Exit reads tool results from CLI 1.0.x transcripts
// (lines copied from the shared corpora): LS there has a plain-string
// toolUseResult holding the listing and no is_error, which is a success;
// a failed Edit has is_error true and an "Error: …" string.
func TestClaudeCode10Exit(t *testing.T) {
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: ClaudeCode, Paths: []string{"testdata/claude-1.0"}})
	if rep.Files != 2 || len(warns) != 0 {
		t.Fatalf("report %+v warnings %q", rep, warns)
	}
	ls, body := sink.byAlias(t, "toolu_01T5E4HLptRjueQLGKCpSzZD")
	if ls.Tool != "LS" || !strings.HasPrefix(body, "- /Users/dain/workspace/claude-code-log/\n") {
		t.Errorf("LS entry %q body %.60q", ls.Tool, body)
	}
	if ls.Exit == nil || *ls.Exit != 0 {
		t.Errorf("LS exit %s, want 0: a string toolUseResult is the output, not a failure", fmtExit(ls.Exit))
	}
	edit, body := sink.byAlias(t, "toolu_01J2W1ayDBZZGv1F6SVFz3HD")
	if edit.Exit == nil || *edit.Exit != 1 || !strings.HasPrefix(body, "<tool_use_error>String to replace not found") {
		t.Errorf("failed Edit exit %s body %.60q", fmtExit(edit.Exit), body)
	}
}

func TestClaudeExitStatus(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name    string
		isError *bool
		tur     string
		body    string
		want    *int
	}{
		{"is_error with exit code", &yes, `"Error: Exit code 127"`, "Exit code 127\n/bin/bash: pytest: command not found", memex.IntPtr(127)},
		{"is_error without exit code", &yes, `"Error: File has not been read yet."`, "<tool_use_error>File has not been read yet.</tool_use_error>", memex.IntPtr(1)},
		{"is_error false", &no, "", "ok", memex.IntPtr(0)},
		{"structured result", nil, `{"stdout":"ok"}`, "ok", memex.IntPtr(0)},
		{"string result is the output", nil, `"- /p/\n  - a.go\n"`, "- /p/\n  - a.go\n", memex.IntPtr(0)},
		{"string result is an error", nil, `"Error: String to replace not found in file."`, "String to replace not found in file.", memex.IntPtr(1)},
		{"string result is a rejection", nil, `"The user doesn't want to take this action right now."`, "The user doesn't want to take this action right now.", memex.IntPtr(1)},
		{"tool_use_error result", nil, "", "<tool_use_error>File does not exist.</tool_use_error>", memex.IntPtr(1)},
		{"nothing to go by", nil, "", "ok", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tur json.RawMessage
			if tt.tur != "" {
				tur = json.RawMessage(tt.tur)
			}
			got := ClaudeExit(tt.isError, tur, tt.body)
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("exit %v, want %v", fmtExit(got), fmtExit(tt.want))
			}
		})
	}
}

func fmtExit(p *int) string {
	if p == nil {
		return "unknown"
	}
	return strconv.Itoa(*p)
}

func TestCodexFixture(t *testing.T) {
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: Codex, Paths: []string{"testdata/codex"}})
	if len(warns) != 0 || rep.Files != 1 {
		t.Fatalf("warnings %q, report %+v", warns, rep)
	}
	thread := "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
	es := sink.session(thread)
	if got, want := kinds(es), "message reasoning tool:shell tool:apply_patch event message"; got != want {
		t.Fatalf("kinds\n got %s\nwant %s", got, want)
	}
	if b := sink.body(es[0].ID); b != "run the tests" {
		t.Errorf("prompt %q (injected context must not be archived)", b)
	}
	sh, body := sink.byAlias(t, "call_1")
	if sh.Input != "go test ./..." || sh.Exit == nil || *sh.Exit != 0 || !strings.Contains(body, `"exit_code":0`) {
		t.Errorf("shell: %q %v %q", sh.Input, sh.Exit, body)
	}
	if e, _ := sink.byAlias(t, thread+"#1"); e.Tool != "apply_patch" || !strings.HasPrefix(e.Input, "*** Begin Patch") {
		t.Errorf("patch: %+v", e)
	}
	if es[4].Attrs["event"] != "compacted" || sink.body(es[4].ID) != "Summary: tests pass after patch to a.go" {
		t.Errorf("compaction %+v", es[4])
	}
	if sh.Project != "/home/u/proj" {
		t.Errorf("project %q", sh.Project)
	}
}

func TestSWEFixtures(t *testing.T) {
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: Auto, Paths: []string{"testdata/swe"}})
	if len(warns) != 0 || rep.Files != 2 {
		t.Fatalf("warnings %q report %+v", warns, rep)
	}
	mini := sink.session("acme__widget-42")
	want := "message reasoning tool:bash reasoning message reasoning tool:bash reasoning tool:bash event"
	if got := kinds(mini); got != want {
		t.Fatalf("mini kinds\n got %s\nwant %s", got, want)
	}
	if mini[0].Attrs["task"] != "true" || mini[0].Project != "github.com/acme/widget" || mini[0].Agent != "mini-swe-agent" {
		t.Errorf("task %+v", mini[0])
	}
	test, body := sink.byAlias(t, "acme__widget-42#1")
	if test.Input != "python -m pytest tests/test_core.py -q" || test.Exit == nil || *test.Exit != 1 || !strings.Contains(body, "ZeroDivisionError") {
		t.Errorf("test step %q %v %q", test.Input, test.Exit, body)
	}
	if !test.Created.Equal(time.Unix(1763511620, 0).UTC()) {
		t.Errorf("created %v", test.Created)
	}

	swe := sink.session("acme__widget-7")
	if got := kinds(swe); got != "message reasoning tool:open reasoning tool:submit event" {
		t.Fatalf("swe kinds %s", got)
	}
	open, body := sink.byAlias(t, "acme__widget-7#0")
	if open.Input != "open src/Widget.java" || body != "[File: /acme__widget/src/Widget.java (3 lines total)]\n1:class Widget {\n2:}\n" || open.Attrs["cwd"] != "/acme__widget" {
		t.Errorf("open %+v %q", open, body)
	}
	if b := sink.body(swe[0].ID); !strings.Contains(b, "ISSUE: Widget breaks") {
		t.Errorf("task %q (the demo must be skipped)", b)
	}
}

func TestJSONLFixture(t *testing.T) {
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: JSONL, Paths: []string{"testdata/jsonl/bench.jsonl"}})
	if rep.Added != 3 || rep.Skipped["no content"] != 1 || len(warns) != 1 || !strings.HasSuffix(warns[0], `bench.jsonl:4: no content: field "content" is required ("" archives an empty entry)`) {
		t.Fatalf("report %+v warnings %q", rep, warns)
	}
	e, body := sink.byAlias(t, "D1:3")
	if e.Project != "p" || e.Agent != "cli" || e.Tool != "bash" || *e.Exit != 1 || e.AgentSummary != "TestX fails" || body != "--- FAIL: TestX\nFAIL" {
		t.Errorf("keyed entry %+v %q", e, body)
	}
	if e2, _ := sink.byAlias(t, "j1#1"); e2.Input != "ls" {
		t.Errorf("s1#1 = %+v", e2)
	}
	note := sink.session("bench")
	if len(note) != 1 || note[0].Kind != memex.KindNote {
		t.Errorf("default session entries %+v", note)
	}
}

// TestJSONLRepeatedLines: a JSONL line is known by its session and its
// bytes (memex ingest --help says so), so a line repeated word for word
// in a session is one entry, and a repeated record that carries its own
// key or time is kept each time.
func TestJSONLRepeatedLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	writeFile(t, p, []byte(`{"session":"s","content":"ok"}
{"session":"s","content":"ok"}
{"session":"t","content":"ok"}
{"session":"s","content":"ok","key":"run-2"}
{"session":"s","content":"ok","time":"2026-11-29T10:00:00Z"}
`))
	sink := newMemSink()
	rep, _ := run(t, sink, Options{Format: JSONL, Paths: []string{p}})
	if rep.Added != 4 || rep.Present != 1 || len(sink.session("s")) != 3 || len(sink.session("t")) != 1 {
		t.Fatalf("report %+v, sessions s %d t %d", rep, len(sink.session("s")), len(sink.session("t")))
	}
}

func TestOpenCodeTree(t *testing.T) {
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: OpenCode, Paths: []string{"testdata/opencode"}})
	if rep.Files != 1 || rep.Skipped["malformed json"] != 1 || len(warns) != 1 {
		t.Fatalf("report %+v warnings %q", rep, warns)
	}
	es := sink.session("ses_01")
	if got := kinds(es); got != "message reasoning tool:bash message" {
		t.Fatalf("kinds %s", got)
	}
	tool, body := sink.byAlias(t, "prt_04")
	if tool.Input != "go test ./..." || *tool.Exit != 1 || body != "--- FAIL: TestParse\nFAIL\n" || tool.Agent != "opencode" {
		t.Errorf("tool %+v %q", tool, body)
	}
	for _, a := range []string{"toolu_oc1", "ses_01#0", "oc:prt_04"} {
		if e, _ := sink.byAlias(t, a); e.ID != tool.ID {
			t.Errorf("alias %s", a)
		}
	}
}

// TestOpenCodeTreeBadMetadataKeepsParts: a legacy session or message
// file that does not decode is warned with its path and line, and the
// parts under it are still read: a wrong field in a message's metadata
// does not lose its tool calls.
func TestOpenCodeTreeBadMetadataKeepsParts(t *testing.T) {
	want, _ := run(t, newMemSink(), Options{Format: OpenCode, Paths: []string{"testdata/opencode"}})
	root := filepath.Join(t.TempDir(), "opencode")
	if err := os.CopyFS(root, os.DirFS("testdata/opencode")); err != nil {
		t.Fatal(err)
	}
	msg := filepath.Join(root, "storage", "message", "ses_01", "msg_02.json")
	ses := filepath.Join(root, "storage", "session", "global", "ses_01.json")
	writeFile(t, msg, []byte("{\n \"id\": \"msg_02\",\n \"role\": 1\n}\n"))
	writeFile(t, ses, []byte("{\n \"id\": \"ses_01\",\n \"title\": [\n"))
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: OpenCode, Paths: []string{root}})
	if rep.Added != want.Added || rep.Skipped["malformed json"] != want.Skipped["malformed json"]+2 {
		t.Fatalf("report %+v, want the %d entries of %+v", rep, want.Added, want)
	}
	for _, w := range []string{ses + ":3: malformed json: JSON cut short", msg + `:3: malformed json: field "role": found a number, want a string`} {
		if !slices.ContainsFunc(warns, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("warnings %q, want one starting %q", warns, w)
		}
	}
	if tool, _ := sink.byAlias(t, "prt_04"); tool.Input != "go test ./..." {
		t.Errorf("tool part of the bad message: %+v", tool)
	}
}

func TestAutoDetect(t *testing.T) {
	cases := map[string]Format{
		"testdata/claude/-home-u-proj/s1.jsonl":                                                 ClaudeCode,
		"testdata/codex/rollout-2026-11-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl": Codex,
		"testdata/swe/acme__widget-42/acme__widget-42.traj.json":                                MiniSWEAgent,
		"testdata/swe/acme__widget-7.traj":                                                      SWEAgent,
		"testdata/jsonl/bench.jsonl":                                                            JSONL,
	}
	for p, want := range cases {
		if got := sniff(p); got != want {
			t.Errorf("sniff(%s) = %q, want %q", p, got, want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	if f, err := ParseFormat("codex"); err != nil || f != Codex {
		t.Fatal(f, err)
	}
	if _, err := ParseFormat("cursor"); err == nil {
		t.Fatal("want an error for an unknown format")
	}
}

func TestNormalizeRemote(t *testing.T) {
	for in, want := range map[string]string{
		"https://github.com/Owner/Repo.git":        "github.com/Owner/Repo",
		"git@github.com:owner/repo.git":            "github.com/owner/repo",
		"ssh://git@GitHub.com:22/owner/repo":       "github.com/owner/repo",
		"https://user:tok@gitlab.example.com/g/p/": "gitlab.example.com/g/p",
		"/srv/git/repo.git":                        "/srv/git/repo.git",
	} {
		if got := NormalizeRemote(in); got != want {
			t.Errorf("NormalizeRemote(%q) = %q, want %q", in, got, want)
		}
	}
	if got := sweProject("scikit-learn__scikit-learn-25232"); got != "github.com/scikit-learn/scikit-learn" {
		t.Errorf("sweProject = %q", got)
	}
}

func TestReportString(t *testing.T) {
	r := Report{Files: 2, Sessions: 1, Added: 3, Skipped: map[string]int{"malformed json": 1}, Redacted: 1, RedactedKinds: map[string]int{"jwt": 1}}
	want := "2 files (0 unchanged), 1 sessions, 3 entries added, 0 already present, 0 bytes read, 1 secrets redacted\nskipped: malformed json=1\nredacted: jwt=1"
	if got := r.String(); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
