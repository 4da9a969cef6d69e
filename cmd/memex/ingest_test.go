package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/render"
	"github.com/memex-archive/memex/internal/testutil"
)

// copyTree copies a testdata directory so that the test may append to it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestIngestSessionsReplaySearch(t *testing.T) {
	home := t.TempDir()
	dir := copyTree(t, filepath.Join(testutil.ModuleRoot(), "ingest", "testdata", "claude"))
	r := run(t, home, nil, "ingest", "claude-code", dir, "--json")
	if r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r.stdout)
	}
	added := rep["added"].(float64)
	if added == 0 || rep["indexed"].(float64) != added {
		t.Fatalf("report %v", rep)
	}
	again := run(t, home, nil, "ingest", "claude-code", dir, "--json")
	var rep2 map[string]any
	json.Unmarshal([]byte(again.stdout), &rep2)
	if again.code != 0 || rep2["added"].(float64) != 0 {
		t.Fatalf("second ingest added entries: %s", again.stdout)
	}

	// A tool result reads back by the host's tool_use id.
	if s := run(t, home, nil, "show", "toolu_A"); s.code != 0 || s.stdout == "" {
		t.Fatalf("show toolu_A: %+v", s)
	}

	ss := run(t, home, nil, "sessions", "--json")
	var list api.SessionList
	if err := json.Unmarshal([]byte(ss.stdout), &list); err != nil {
		t.Fatal(err, ss.stdout)
	}
	sessions := list.Sessions
	var s1 *api.SessionInfo
	for i := range sessions {
		if sessions[i].Session == "s1" {
			s1 = &sessions[i]
		}
	}
	if s1 == nil || s1.Agent != "claude-code" || s1.Compactions != 1 || s1.Entries == 0 {
		t.Fatalf("sessions %+v", sessions)
	}

	rp := run(t, home, nil, "replay", "s1")
	if rp.code != 0 || !strings.Contains(rp.stdout, "context compacted here") || strings.Count(rp.stdout, "\n") < s1.Entries {
		t.Fatalf("replay:\n%s", rp.stdout)
	}
	var steps []render.ReplayStep
	full := run(t, home, nil, "replay", "s1", "--full", "--json")
	if err := json.Unmarshal([]byte(full.stdout), &steps); err != nil || len(steps) != s1.Entries || steps[0].Content == nil {
		t.Fatalf("replay --full --json: %v %s", err, full.stdout)
	}
	if r := run(t, home, nil, "replay", "no-such-session"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("replay of unknown session: %+v", r)
	}
	if r := run(t, home, nil, "ingest", "klingon", dir); r.code != 2 || !strings.HasPrefix(r.stderr, `memex: unknown format "klingon" (want one of claude-code, `) ||
		!strings.Contains(r.stderr, ")\nUsage: memex ingest FORMAT") {
		t.Fatalf("unknown format: %+v", r)
	}
}

// ingestFixture is a file of ingest's testdata.
func ingestFixture(parts ...string) string {
	return filepath.Join(append([]string{testutil.ModuleRoot(), "ingest", "testdata"}, parts...)...)
}

const codexRolloutName = "rollout-2026-11-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"

// TestIngestNamedPathWithoutFiles: a named directory holding no file of
// the format says what the format looks for and fails, --json included;
// next to a path that yields files it is said and the status stays 0.
func TestIngestNamedPathWithoutFiles(t *testing.T) {
	rollout, err := os.ReadFile(ingestFixture("codex", codexRolloutName))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	renamed := filepath.Join(dir, "session-01.jsonl") // a rollout Codex did not name
	writeFile(t, renamed, string(rollout))
	problem := dir + ": no codex rollout files (rollout-*.jsonl, rollout-*.jsonl.zst) found"
	want := "memex: ingest: " + problem
	wantJSON := `{"warning":"ingest: ` + problem // --json: a JSON line
	for _, flags := range [][]string{nil, {"-q"}, {"--json"}} {
		r := run(t, t.TempDir(), nil, append([]string{"ingest", "codex", dir}, flags...)...)
		w := want
		if len(flags) == 1 && flags[0] == "--json" {
			w = wantJSON
		}
		if r.code != 1 || strings.Count(r.stderr, w) != 1 {
			t.Errorf("ingest codex %s %v: %+v; want exit 1 and, once, %q", dir, flags, r, want)
		}
	}
	gemini := ingestFixture("other", "gemini")
	if r := run(t, t.TempDir(), nil, "ingest", "auto", gemini); r.code != 1 ||
		!strings.Contains(r.stderr, "memex: ingest: "+gemini+": no transcripts found (auto reads *.jsonl") {
		t.Errorf("ingest auto %s: %+v", gemini, r)
	}

	r := run(t, t.TempDir(), nil, "ingest", "codex", dir, renamed, "--json")
	var rep struct{ Added int }
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 || rep.Added == 0 || strings.Count(r.stderr, wantJSON) != 1 {
		t.Errorf("an empty directory and a file: %+v", r)
	}

	// With no PATH, default locations that hold nothing yet are fine.
	user := t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("CODEX_HOME", "")
	if err := os.MkdirAll(filepath.Join(user, ".codex", "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := run(t, t.TempDir(), nil, "ingest", "codex"); r.code != 0 || r.stderr != "" {
		t.Errorf("ingest codex with empty default locations: %+v", r)
	}
}

// TestIngestWrongFormat: files of which nothing could be imported fail
// with one line saying so, after the file:line reports; among files that
// import they are reported and the status stays 0; a re-run over files
// already imported is not a failure.
func TestIngestWrongFormat(t *testing.T) {
	gemini := ingestFixture("other", "gemini", "session.json")
	home := t.TempDir()
	for range 2 { // nothing is remembered of a file that could not be used
		r := run(t, home, nil, "ingest", "jsonl", gemini)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != 1 || !strings.HasPrefix(r.stderr, "memex: ingest: "+gemini+":1: malformed json") ||
			!strings.Contains(r.stderr, "memex: ingest: "+gemini+": no valid jsonl record (20 skipped); is it a jsonl file?\n") ||
			lines[len(lines)-1] != "memex: ingest: nothing imported: no valid jsonl record in the 1 file read" {
			t.Fatalf("ingest jsonl %s: %+v", gemini, r)
		}
	}
	// auto took it for mini-swe-agent: it says the format was not
	// recognised, naming what it tried, and why in JSON's terms.
	r := run(t, t.TempDir(), nil, "ingest", "auto", gemini)
	if want := "memex: ingest: " + gemini + `: format not recognised: auto tried mini-swe-agent, and it does not read as one: field "messages.timestamp": found a string, want a number (near byte 185)` + "\n" +
		"memex: ingest: nothing imported: no valid record of a format memex reads in the 1 file read\n"; r.code != 1 || r.stderr != want {
		t.Errorf("ingest auto %s: %+v\nwant stderr %q", gemini, r, want)
	}
	rollout := ingestFixture("codex", codexRolloutName)
	r = run(t, t.TempDir(), nil, "ingest", "mini-swe-agent", rollout, "-q", "--json")
	var rep struct{ Unusable []string }
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 1 || len(rep.Unusable) != 1 ||
		!strings.HasSuffix(r.stderr, `{"error":"ingest: nothing imported: no valid mini-swe-agent record in the 1 file read","code":"internal"}`+"\n") {
		t.Errorf("ingest mini-swe-agent %s: %+v", rollout, r)
	}

	// A file of another format among files that import.
	r = run(t, t.TempDir(), nil, "ingest", "jsonl", ingestFixture("jsonl"), gemini, "-q")
	if r.code != 0 || r.stderr != "memex: ingest: "+gemini+": no valid jsonl record (20 skipped); is it a jsonl file?\n" {
		t.Errorf("a good and a bad file: %+v", r)
	}

	// Already imported is not a failure, read again or not.
	home = t.TempDir()
	for _, flags := range [][]string{nil, nil, {"--full"}} {
		if r := run(t, home, nil, append([]string{"ingest", "codex", rollout, "-q"}, flags...)...); r.code != 0 || r.stderr != "" {
			t.Errorf("ingest codex %v: %+v", flags, r)
		}
	}
}

// With --json, ingest's problems come as JSON lines on stderr too, so a
// reader of --json output never meets a line of text.
func TestIngestJSONWarningsAreJSON(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"content\":\"ok\"}\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, home, nil, "ingest", "jsonl", bad, filepath.Join(dir, "missing.jsonl"), "--json")
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.code != 0 || len(lines) != 2 {
		t.Fatalf("want 2 problems on stderr: %+v", r)
	}
	for _, l := range lines {
		var w struct{ Warning string }
		if err := json.Unmarshal([]byte(l), &w); err != nil || !strings.HasPrefix(w.Warning, "ingest: ") {
			t.Errorf("stderr line %q is not a JSON warning", l)
		}
	}
}
