package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const (
	codexRollout = "testdata/codex/rollout-2026-11-02T09-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"
	// geminiDoc is a pretty-printed JSON document shaped like a Gemini
	// CLI session but without its projectHash, under a name Gemini CLI
	// does not give its sessions: no format memex reads.
	geminiDoc = "testdata/other/gemini/session.json"
)

// TestNamedPathWithoutFiles: a path the caller names that yields no file
// of the format is a FileErrors line saying what the format looks for.
func TestNamedPathWithoutFiles(t *testing.T) {
	rollout, err := os.ReadFile(codexRollout)
	if err != nil {
		t.Fatal(err)
	}
	// A rollout under a name Codex does not give its files.
	renamed := t.TempDir()
	writeFile(t, filepath.Join(renamed, "session-01.jsonl"), rollout)
	writeFile(t, filepath.Join(renamed, "notes.txt"), []byte("not a transcript\n"))
	empty := t.TempDir()
	for _, c := range []struct {
		f          Format
		path, want string
	}{
		{Codex, renamed, "no codex rollout files (rollout-*.jsonl, rollout-*.jsonl.zst) found; 1 .jsonl file not named rollout-* (give a file's path to read it as codex anyway)"},
		{ClaudeCode, empty, "no Claude Code transcripts (*.jsonl) found"},
		{Gemini, filepath.Dir(geminiDoc), "no Gemini CLI sessions (chats/session-*.json, chats/session-*.jsonl) found; 1 .json or .jsonl file not named chats/session-* (give a file's path to read it as gemini anyway)"},
		{Gemini, empty, "no Gemini CLI sessions (chats/session-*.json, chats/session-*.jsonl) found"},
		{OpenCode, empty, "no OpenCode data (a directory holding opencode.db or storage/session) found"},
		{MiniSWEAgent, renamed, "no mini-swe-agent trajectories (*.traj.json) found"},
		{SWEAgent, renamed, "no SWE-agent trajectories (*.traj) found"},
		{JSONL, empty, "no JSONL files (*.jsonl) found"},
		{Auto, filepath.Dir(geminiDoc), "no transcripts found (auto reads *.jsonl, *.jsonl.zst, *.traj, *.traj.json, Gemini CLI chats and OpenCode data directories)"},
		// A named path is never taken for a default location that may be
		// missing.
		{Codex, filepath.Join(empty, ".codex", "sessions"), "no such file or directory"},
	} {
		rep, warns := run(t, newMemSink(), Options{Format: c.f, Paths: []string{c.path}})
		if rep.Files != 0 || len(rep.FileErrors) != 1 || !strings.HasPrefix(rep.FileErrors[0], c.path+": ") ||
			!strings.HasSuffix(rep.FileErrors[0], c.want) || len(warns) != 1 || warns[0] != rep.FileErrors[0] {
			t.Errorf("%s %s: files %d, errors %q, warnings %q; want one error ending %q", c.f, c.path, rep.Files, rep.FileErrors, warns, c.want)
		}
	}

	// Next to a path that yields files it is still said, and the rest read.
	rep, _ := run(t, newMemSink(), Options{Format: Codex, Paths: []string{renamed, "testdata/codex"}})
	if rep.Files != 1 || rep.Added == 0 || len(rep.FileErrors) != 1 || !strings.HasPrefix(rep.FileErrors[0], renamed+": ") {
		t.Errorf("empty and full paths: %+v", rep)
	}
	// The file itself, named, is read whatever its name.
	rep, _ = run(t, newMemSink(), Options{Format: Codex, Paths: []string{filepath.Join(renamed, "session-01.jsonl")}})
	if rep.Files != 1 || rep.Added == 0 || len(rep.FileErrors) != 0 {
		t.Errorf("named file: %+v", rep)
	}
}

// TestDefaultLocationsWithoutFiles: the default locations (what serve
// --ingest reads every few minutes) may exist and hold nothing yet; that
// is not a problem.
func TestDefaultLocationsWithoutFiles(t *testing.T) {
	home := t.TempDir()
	for _, d := range DefaultPaths(Auto, home) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []Format{ClaudeCode, Codex, OpenCode, Auto} {
		rep, warns := run(t, newMemSink(), Options{Format: f, Home: home})
		if rep.Files != 0 || len(rep.FileErrors) != 0 || len(rep.Unusable) != 0 || len(warns) != 0 {
			t.Errorf("%s: %+v, warnings %q", f, rep, warns)
		}
	}
}

// TestWrongFormatIsUnusable: a file of which every line or record is
// malformed or unknown to the format is an Unusable line, and stays one
// on the next run.
func TestWrongFormatIsUnusable(t *testing.T) {
	for _, c := range []struct {
		f          Format
		path, want string
	}{
		{JSONL, geminiDoc, "no valid jsonl record (20 skipped); is it a jsonl file?"},
		{ClaudeCode, geminiDoc, "no valid claude-code record (20 skipped); is it a claude-code file?"},
		// Named mini-swe-agent, it is read without the value of another
		// type, and nothing in it is a trajectory's.
		{MiniSWEAgent, geminiDoc, "no valid mini-swe-agent record (1 skipped, 2 of unknown types); is it a mini-swe-agent file?"},
		// Valid JSON, but no trajectory in it.
		{SWEAgent, geminiDoc, "no valid swe-agent record (1 skipped); is it a swe-agent file?"},
		{MiniSWEAgent, codexRollout, "no valid mini-swe-agent record (1 skipped); is it a mini-swe-agent file?"},
		{JSONL, codexRollout, "no valid jsonl record (14 skipped); is it a jsonl file?"},
		{ClaudeCode, codexRollout, "no valid claude-code record (14 of unknown types); is it a claude-code file?"},
		{Codex, "testdata/claude/-home-u-proj/s1.jsonl", "no valid codex record (1 skipped, 14 of unknown types); is it a codex file?"},
		// Auto took it for mini-swe-agent (a .json file holding one
		// object): it says the format was not recognised, and why.
		{Auto, geminiDoc, `format not recognised: auto tried mini-swe-agent, and it does not read as one: field "messages.timestamp": found a string, want a number (near byte 185)`},
	} {
		abs, _ := filepath.Abs(c.path)
		sink := newMemSink()
		for i := range 2 {
			rep, warns := run(t, sink, Options{Format: c.f, Paths: []string{c.path}})
			if rep.Files != 1 || rep.Added != 0 || len(rep.Unusable) != 1 || rep.Unusable[0] != abs+": "+c.want ||
				len(warns) == 0 || warns[len(warns)-1] != rep.Unusable[0] {
				t.Errorf("%s %s, run %d: %+v, warnings %q; want unusable %q", c.f, c.path, i+1, rep, warns, c.want)
			}
			for _, w := range warns {
				if strings.Contains(w, "Go ") || strings.Contains(w, "float64") {
					t.Errorf("%s %s: a warning names Go types: %s", c.f, c.path, w)
				}
			}
		}
	}
}

// TestUsableFilesAreNotUnusable: files of their format, read again,
// unchanged or re-read whole, files with nothing to archive yet, and a
// grown file whose new lines are all malformed are not Unusable.
func TestUsableFilesAreNotUnusable(t *testing.T) {
	for _, c := range []struct {
		f    Format
		path string
	}{
		{ClaudeCode, "testdata/claude"}, {Codex, "testdata/codex"}, {JSONL, "testdata/jsonl"},
		{SWEAgent, "testdata/swe"}, {MiniSWEAgent, "testdata/swe"}, {OpenCode, "testdata/opencode"}, {Auto, "testdata"},
	} {
		sink := newMemSink()
		for _, full := range []bool{false, false, true} {
			rep, _ := run(t, sink, Options{Format: c.f, Paths: []string{c.path}, Full: full})
			if len(rep.Unusable) != 0 || len(rep.FileErrors) != 0 || rep.Files+rep.Unchanged == 0 {
				t.Errorf("%s %s (full %v): %+v", c.f, c.path, full, rep)
			}
		}
	}

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "empty.jsonl"))
	writeFile(t, filepath.Join(dir, "meta.jsonl"), []byte(`{"type":"permission-mode","permissionMode":"default","sessionId":"s7"}`+"\n"))
	rep, warns := run(t, newMemSink(), Options{Format: ClaudeCode, Paths: []string{dir}})
	if rep.Files != 2 || len(rep.Unusable) != 0 || len(warns) != 0 {
		t.Errorf("nothing to archive yet: %+v %q", rep, warns)
	}

	grown := filepath.Join(t.TempDir(), "notes.jsonl")
	writeFile(t, grown, []byte(`{"content":"first note"}`+"\n"))
	sink := newMemSink()
	run(t, sink, Options{Format: JSONL, Paths: []string{grown}})
	f, err := os.OpenFile(grown, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n")
	f.Close()
	rep, _ = run(t, sink, Options{Format: JSONL, Paths: []string{grown}})
	if rep.Files != 1 || rep.SkippedTotal() != 1 || len(rep.Unusable) != 0 {
		t.Errorf("grown by a malformed line: %+v", rep)
	}
}

// TestAutoNamesWhatItTried: a file auto cannot place, or placed but could
// not read, is reported as a format not recognised, naming what auto
// tried; with a line format, the lines' own problems come first.
func TestAutoNamesWhatItTried(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.jsonl")
	writeFile(t, odd, []byte(`{"content":5}`+"\n"))
	// The first line makes it jsonl; no line of it is valid.
	lines := filepath.Join(dir, "notes.jsonl")
	writeFile(t, lines, []byte(`{"content":"x","time":"soon"}`+"\n"))
	for _, c := range []struct {
		path, want string
		warns      int
	}{
		{odd, odd + ": format not recognised (auto reads claude-code, codex, opencode, gemini, mini-swe-agent, swe-agent and jsonl)", 1},
		{lines, lines + ": format not recognised: auto tried jsonl, and no record of it read as one (1 skipped)", 2},
	} {
		rep, warns := run(t, newMemSink(), Options{Format: Auto, Paths: []string{c.path}})
		got := slices.Concat(rep.FileErrors, rep.Unusable)
		if len(got) != 1 || got[0] != c.want || len(warns) != c.warns || warns[len(warns)-1] != c.want {
			t.Errorf("%s: problems %q, warnings %q; want %q", c.path, got, warns, c.want)
		}
	}
}

// TestJSONLProblemsSayWhatIsWrong: each malformed line of the generic
// format is reported with its field, its value and what was expected;
// content "" is an empty entry, content absent or null is an error.
func TestJSONLProblemsSayWhatIsWrong(t *testing.T) {
	const path = "testdata/other/problems.jsonl"
	abs, _ := filepath.Abs(path)
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: JSONL, Paths: []string{path}})
	want := []string{
		`:3: no content: field "content" is required ("" archives an empty entry)`,
		`:4: no content: field "content" is required ("" archives an empty entry)`,
		`:5: field "time": "yesterday" is not an RFC 3339 time (like 2026-11-29T10:00:00Z)`,
		`:6: malformed json: field "content": found a number, want a string (near byte 27)`,
		`:7: malformed json: not valid JSON at byte 2: invalid character 'n' looking for beginning of object key string`,
	}
	for i := range want {
		want[i] = abs + want[i]
	}
	if !slices.Equal(warns, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warns, "\n"), strings.Join(want, "\n"))
	}
	if rep.Added != 2 || !maps.Equal(rep.Skipped, map[string]int{"no content": 2, "bad time": 1, "malformed json": 2}) {
		t.Errorf("report %+v", rep)
	}
	if e, body := sink.byAlias(t, "empty-1"); e.Bytes != 0 || body != "" {
		t.Errorf(`content "": %+v %q`, e, body)
	}
}

// TestInvalidUTF8IsReported: bytes of a transcript that are not UTF-8
// (which the JSON decoder turns into U+FFFD) are counted in the report and
// warned about with the line of the first, not replaced without a word.
func TestInvalidUTF8IsReported(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte("{\"content\":\"fine\"}\n{\"content\":\"caf\xe9 \xff\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: JSONL, Paths: []string{p}})
	if rep.InvalidUTF8 != 2 || rep.Added != 2 || len(warns) != 1 || !strings.Contains(warns[0], "s.jsonl:2: 2 byte sequences not valid UTF-8") ||
		!strings.Contains(rep.String(), "2 invalid UTF-8 sequences replaced") {
		t.Fatalf("report %+v, warnings %q", rep, warns)
	}
}

// TestMalformedDocumentSaysItsLine: a trajectory or Gemini session is one
// pretty-printed JSON document; when it does not decode, the warning
// names the line of the fault, as a transcript line's does, not only a
// byte offset.
func TestMalformedDocumentSaysItsLine(t *testing.T) {
	dir := t.TempDir()
	doc := "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"task\"},\n    {\"role\": 7, \"content\": \"x\"}\n  ]\n}\n"
	for _, c := range []struct {
		f          Format
		name, body string
		want       string
	}{
		{MiniSWEAgent, "typed.traj.json", doc, `typed.traj.json:4: field "messages.role": found a number, want a string (near byte 73): left out`},
		{MiniSWEAgent, "cut.traj.json", doc[:40], `cut.traj.json:3: malformed json: JSON cut short`},
		{SWEAgent, "bad.traj", "{\n  \"trajectory\": [\n    {\"action\": \"ls\"},,\n  ]\n}\n", `bad.traj:3: malformed json: not valid JSON`},
		{Gemini, "session-x.json", "{\n  \"sessionId\": 5\n}\n", `session-x.json:2: field "sessionId": found a number, want a string`},
	} {
		p := filepath.Join(dir, c.name)
		writeFile(t, p, []byte(c.body))
		_, warns := run(t, newMemSink(), Options{Format: c.f, Paths: []string{p}})
		if len(warns) == 0 || !strings.HasPrefix(warns[0], filepath.Join(dir, c.want)) {
			t.Errorf("%s: warnings %q, want the first to start %q", c.name, warns, c.want)
		}
	}
}

// TestDocumentReadWithoutAValueOfAnotherType: one value of another type
// in a trajectory (a provider's response time written as a string) is
// left out with a warning naming its line; every entry of the trajectory
// is still read, where the whole file used to be skipped.
func TestDocumentReadWithoutAValueOfAnotherType(t *testing.T) {
	orig := "testdata/swe/acme__widget-42/acme__widget-42.traj.json"
	want, _ := run(t, newMemSink(), Options{Format: MiniSWEAgent, Paths: []string{orig}})
	b, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["messages"].([]any)[1].(map[string]any)["extra"] = map[string]any{"response": map[string]any{"created": "2025-11-18T10:00:00Z"}}
	b, _ = json.MarshalIndent(doc, "", "  ")
	p := filepath.Join(t.TempDir(), "acme__widget-42", "acme__widget-42.traj.json")
	writeFile(t, p, b)
	line := bytes.Count(b[:bytes.Index(b, []byte(`"2025-11-18T10:00:00Z"`))], []byte("\n")) + 1
	rep, warns := run(t, newMemSink(), Options{Format: MiniSWEAgent, Paths: []string{p}})
	if rep.Added != want.Added || want.Added == 0 || rep.Skipped["value of another type"] != 1 || len(rep.Unusable) != 0 {
		t.Fatalf("report %+v, want the %d entries of the original", rep, want.Added)
	}
	w := fmt.Sprintf(`%s:%d: field "messages.extra.response.created": found a string, want a number`, p, line)
	if len(warns) != 1 || !strings.HasPrefix(warns[0], w) {
		t.Fatalf("warnings %q, want one starting %q", warns, w)
	}
}

// TestLineReadWithoutAValueOfAnotherType: a Claude Code or Codex line whose
// envelope holds a value of another type (a version written as a number,
// as a host's next build might) is read without that value, warned with
// its line: the tool output it carries is not lost with it.
func TestLineReadWithoutAValueOfAnotherType(t *testing.T) {
	for _, c := range []struct {
		f          Format
		orig, name string
		edit       func(map[string]any)
		want       string
	}{
		{ClaudeCode, "testdata/claude/-home-u-proj/s1.jsonl", "s1.jsonl",
			func(r map[string]any) { r["version"] = 2.1 }, `field "version": found a number, want a string`},
		{Codex, codexRollout, filepath.Base(codexRollout),
			func(r map[string]any) {
				if p, ok := r["payload"].(map[string]any); ok {
					p["status"] = 5
				}
			}, `field "status": found a number, want a string`},
	} {
		want, _ := run(t, newMemSink(), Options{Format: c.f, Paths: []string{c.orig}})
		var out bytes.Buffer
		edited := 0
		for i, l := range readLines(t, c.orig) {
			var r map[string]any
			if json.Unmarshal(l, &r) != nil {
				out.Write(l) // a line that is malformed in the fixture stays so
				continue
			}
			if i > 0 {
				c.edit(r)
				edited++
			}
			b, _ := json.Marshal(r)
			out.Write(append(b, '\n'))
		}
		p := filepath.Join(t.TempDir(), "-home-u-proj", c.name)
		writeFile(t, p, out.Bytes())
		rep, warns := run(t, newMemSink(), Options{Format: c.f, Paths: []string{p}})
		if rep.Added != want.Added || want.Added == 0 || rep.Skipped["value of another type"] != edited {
			t.Errorf("%s: report %+v, want the %d entries of the original and %d values left out", c.f, rep, want.Added, edited)
		}
		if w := p + ":2: " + c.want; !slices.ContainsFunc(warns, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("%s: warnings %q, want one starting %q", c.f, warns, w)
		}
	}
}
