package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// TestGeminiFixture reads the fixture tree laid out as Gemini CLI's
// ~/.gemini: a current .jsonl session (messages written again as they
// change, a rewind, a $set, a malformed line, calls still running), a
// subagent's session beside it, and an older single-document session in
// a hash-named directory that projects.json maps to its path.
func TestGeminiFixture(t *testing.T) {
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: Gemini, Paths: []string{"testdata/gemini"}})
	if rep.Files != 3 || rep.Sessions != 3 || rep.Skipped["malformed json"] != 1 || len(warns) != 1 {
		t.Fatalf("report %+v, warnings %q", rep, warns)
	}
	const sid = "5c0ffee0-aaaa-4bbb-8ccc-123456789abc"
	es := sink.session(sid)
	// m3 was rewound away; the glob call is still scheduled; info is not
	// archived.
	want := "message reasoning tool:run_shell_command tool:read_file message message tool:replace tool:run_shell_command event"
	if got := kinds(es); got != want {
		t.Fatalf("kinds\n got %s\nwant %s", got, want)
	}
	for _, e := range es {
		if e.Project != "/home/u/proj" || e.Agent != "gemini" {
			t.Fatalf("entry %+v: want project /home/u/proj, agent gemini", e)
		}
	}
	sh, body := sink.byAlias(t, "run_shell_command-1764410402000-aa")
	if sh.Input != "go test ./..." || sh.Exit == nil || *sh.Exit != 1 || !strings.Contains(body, "--- FAIL: TestParse") {
		t.Errorf("shell call: input %q exit %v body %q", sh.Input, sh.Exit, body)
	}
	if rd, body := sink.byAlias(t, sid+"#1"); rd.Tool != "read_file" || *rd.Exit != 0 || body != "package parse\n\nfunc Parse() int { return 0 }\n" {
		t.Errorf("read_file: %+v %q", rd, body)
	}
	if c, _ := sink.byAlias(t, "replace-1764410406000-cc"); c.Exit != nil || c.Attrs["result"] != "cancelled" {
		t.Errorf("cancelled call: %+v", c)
	}
	if e, body := sink.byAlias(t, "run_shell_command-1764410407000-dd"); *e.Exit != 1 || body != "Command rejected by policy." {
		t.Errorf("failed call: %+v %q", e, body)
	}
	sub := sink.session("sub-77")
	if len(sub) != 1 || sub[0].Attrs["subagent"] != "true" || sub[0].Attrs["parent_session"] != sid || sub[0].Project != "/home/u/proj" {
		t.Errorf("subagent session: %+v", sub)
	}
	old := sink.session("0ld5e551-0000-4000-8000-000000000001")
	if got := kinds(old); got != "message tool:list_directory message" || old[0].Project != "/home/u/legacy" {
		t.Errorf("older session: %s, project %q", got, old[0].Project)
	}

	// The session goes on: the scheduled call finishes, the file grows.
	path := filepath.Join("testdata", "gemini", "tmp", "proj", "chats", "session-2026-11-29T10-00-5c0ffee0.jsonl")
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, filepath.Join("testdata", "gemini"), dir)
	grown := filepath.Join(dir, "tmp", "proj", "chats", filepath.Base(path))
	done := `{"id":"m5","timestamp":"2026-11-29T10:00:06.000Z","type":"gemini","content":"I changed Parse to return 1.","toolCalls":[{"id":"glob-1764410408000-ee","name":"glob","args":{"pattern":"**/*.go"},"status":"success","result":[{"functionResponse":{"response":{"output":"parse.go"}}}]}]}` + "\n"
	if err := os.WriteFile(grown, append(orig, done...), 0o644); err != nil {
		t.Fatal(err)
	}
	sink2 := newMemSink()
	run(t, sink2, Options{Format: Gemini, Paths: []string{dir}})
	before := len(sink2.session(sid))
	if _, body := sink2.byAlias(t, "glob-1764410408000-ee"); body != "parse.go" {
		t.Errorf("finished call: %q", body)
	}
	rep, _ = run(t, sink2, Options{Format: Gemini, Paths: []string{dir}, Full: true})
	if rep.Added != 0 || len(sink2.session(sid)) != before {
		t.Errorf("a second read added %d entries", rep.Added)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGeminiCorpus reads the real (sanitized) Gemini CLI 0.38.2 session,
// by name and through auto.
func TestGeminiCorpus(t *testing.T) {
	path := filepath.Join(testutil.Corpora(t), "gemini", "session-01.json")
	for _, f := range []Format{Gemini, Auto} {
		sink := newMemSink()
		rep, warns := run(t, sink, Options{Format: f, Paths: []string{path}})
		es := sink.session("dcbe78d3-ea75-4786-929e-d6cff0fc00ed")
		if rep.Added != 3 || len(warns) != 0 || kinds(es) != "message reasoning message" {
			t.Errorf("%s: report %+v warnings %q kinds %s", f, rep, warns, kinds(es))
		}
	}
}
