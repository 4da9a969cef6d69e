package ingest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/internal/redact"
	"github.com/memex-archive/memex/internal/testutil"
)

// checkBody compares an archived body with the text the agent saw. With
// redaction on, the only allowed difference is the redaction itself.
func checkBody(t *testing.T, what, got, want string) bool {
	t.Helper()
	if got == want {
		return true
	}
	if r, n, _ := redact.String(want); n > 0 && r == got {
		return true
	}
	t.Errorf("%s: body differs from the result text\n got %.200q\nwant %.200q", what, got, want)
	return false
}

// TestClaudeCodeCorpora ingests every real Claude Code transcript and
// checks, for every tool_result, that the tool entry's body is exactly the
// result text the agent saw (text blocks joined with "\n").
func TestClaudeCodeCorpora(t *testing.T) {
	dir := filepath.Join(testutil.Corpora(t), "claude-code")
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: ClaudeCode, Paths: []string{dir}})
	t.Logf("report: files %d sessions %d added %d skipped %v unknown %v redacted %d bytes %d",
		rep.Files, rep.Sessions, rep.Added, rep.Skipped, rep.Unknown, rep.Redacted, rep.Bytes)
	if rep.Files != 32 || len(warns) != 0 || len(rep.Unknown) != 0 {
		t.Errorf("files %d (want 32), warnings %q, unknown %v", rep.Files, warns, rep.Unknown)
	}
	results := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var l struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil || len(l.Message.Content) == 0 || l.Message.Content[0] != '[' {
				continue
			}
			var blocks []map[string]any
			if json.Unmarshal(l.Message.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b["type"] != "tool_result" {
					continue
				}
				results++
				id, _ := b["tool_use_id"].(string)
				e, body := sink.byAlias(t, id)
				if e.Kind != memex.KindTool {
					t.Errorf("%s: kind %s", id, e.Kind)
				}
				// Every failure in the samples has is_error true; a
				// non-zero exit anywhere else is a success misread.
				if failed := e.Exit != nil && *e.Exit != 0; failed != (b["is_error"] == true) {
					t.Errorf("%s (%s): exit %s, is_error %v", id, e.Tool, fmtExit(e.Exit), b["is_error"])
				}
				switch c := b["content"].(type) {
				case string:
					checkBody(t, id, body, c)
				case []any:
					var texts []string
					allText := true
					for _, x := range c {
						m, _ := x.(map[string]any)
						if m["type"] == "text" {
							texts = append(texts, m["text"].(string))
						} else {
							allText = false
						}
					}
					if allText {
						checkBody(t, id, body, strings.Join(texts, "\n"))
					} else {
						for _, s := range texts {
							if !strings.Contains(body, s) {
								t.Errorf("%s: text block missing from body", id)
							}
						}
					}
				}
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if results != 640 {
		t.Errorf("checked %d tool results, the corpora hold 640", results)
	}
	// Every subagent is its own session, linked to its parent.
	sub := sink.session("agent-a4ca7529859c158c2")
	if len(sub) == 0 || sub[0].Attrs["parent_session"] != "ef958aa1-0e93-49f0-bb71-150f63befcd1" || sub[0].Attrs["agent_type"] == "" {
		t.Errorf("nested subagent: %d entries, attrs %v", len(sub), first(sub).Attrs)
	}
	flat := sink.session("agent-ea02459f")
	if len(flat) == 0 || flat[0].Attrs["parent_session"] != "cb2e607c-c758-415a-8b45-c49e4631906a" {
		t.Errorf("flat subagent: %d entries, attrs %v", len(flat), first(flat).Attrs)
	}
}

func first(es []memex.Entry) memex.Entry {
	if len(es) == 0 {
		return memex.Entry{}
	}
	return es[0]
}

func TestCodexCorpora(t *testing.T) {
	dir := filepath.Join(testutil.Corpora(t), "codex")
	sink := newMemSink()
	// The sample's name has no rollout- prefix: ask for it by path.
	rep, warns := run(t, sink, Options{Format: Codex, Paths: []string{filepath.Join(dir, "session-01.jsonl")}})
	if rep.Files != 1 || len(warns) != 0 || len(rep.Unknown) != 0 || rep.Added != 2 {
		t.Fatalf("report %+v warnings %q", rep, warns)
	}
	es := sink.session("019e9625-802f-7e91-840a-cfe88d14117a")
	if got := kinds(es); got != "message message" || sink.body(es[0].ID) != "[REDACTED_PROMPT]" || es[0].Project == "" {
		t.Errorf("entries %s %+v", got, es)
	}
}

var (
	obsRE = regexp.MustCompile(`<returncode>`)
)

// TestSWECorpora checks every SWE-agent observation and every
// mini-swe-agent action output is archived exactly.
func TestSWECorpora(t *testing.T) {
	root := testutil.Corpora(t)
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: Auto, Paths: []string{filepath.Join(root, "swe-agent"), filepath.Join(root, "mini-swe-agent")}})
	t.Logf("report: files %d sessions %d added %d redacted %d %v", rep.Files, rep.Sessions, rep.Added, rep.Redacted, rep.RedactedKinds)
	if rep.Files != 63 || rep.Sessions != 63 || len(warns) != 0 {
		t.Fatalf("report %+v warnings %q", rep, warns)
	}
	swes, _ := filepath.Glob(filepath.Join(root, "swe-agent", "*.traj"))
	steps := 0
	for _, p := range swes {
		var tr sweTraj
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatal(err)
		}
		session := sessionFromPath(p)
		for i, st := range tr.Trajectory {
			want, _ := jsonString(st.Observation)
			_, got := sink.byAlias(t, toolAlias(session, i))
			checkBody(t, toolAlias(session, i), got, want)
			steps++
		}
	}
	minis, _ := filepath.Glob(filepath.Join(root, "mini-swe-agent", "*", "*.traj.json"))
	outputs := 0
	for _, p := range minis {
		var tr mswTraj
		b, _ := os.ReadFile(p)
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatal(err)
		}
		session := sessionFromPath(p)
		n := 0
		for i := 0; i+1 < len(tr.Messages); i++ {
			m := tr.Messages[i]
			c := anyText(m.Content)
			if m.Role != "assistant" || len(bashBlockRE().FindAllString(c, -1)) != 1 {
				continue
			}
			next := anyText(tr.Messages[i+1].Content)
			if tr.Messages[i+1].Role == "user" {
				e, got := sink.byAlias(t, toolAlias(session, n))
				checkBody(t, toolAlias(session, n), got, next)
				if obsRE.MatchString(next) && e.Exit == nil {
					t.Errorf("%s: no exit status", toolAlias(session, n))
				}
				outputs++
				i++
			}
			n++
		}
	}
	t.Logf("%d SWE-agent observations, %d mini-swe-agent outputs checked", steps, outputs)
	if steps == 0 || outputs == 0 {
		t.Fatal("nothing checked")
	}
}

// TestCorporaAuto ingests the whole corpora tree with auto detection.
func TestCorporaAuto(t *testing.T) {
	root := testutil.Corpora(t)
	sink := newMemSink()
	rep, warns := run(t, sink, Options{Format: Auto, Paths: []string{root}})
	t.Logf("auto: files %d sessions %d added %d ignored %d kinds, bytes %d", rep.Files, rep.Sessions, rep.Added, len(rep.Ignored), rep.Bytes)
	for _, w := range warns {
		t.Log(w)
	}
	// 32 Claude Code + 1 Codex + 60 mini-swe-agent + 3 SWE-agent; the
	// Gemini sample is not a format memex reads.
	if rep.Files != 96 {
		t.Errorf("auto read %d files, want 96", rep.Files)
	}
	again, _ := run(t, sink, Options{Format: Auto, Paths: []string{root}})
	if again.Added != 0 || again.Unchanged != rep.Files {
		t.Errorf("second run added %d, unchanged %d", again.Added, again.Unchanged)
	}
	full, _ := run(t, sink, Options{Format: Auto, Paths: []string{root}, Full: true})
	if full.Added != 0 || full.Present != rep.Added {
		t.Errorf("full re-read added %d, present %d (want 0, %d)", full.Added, full.Present, rep.Added)
	}
}
