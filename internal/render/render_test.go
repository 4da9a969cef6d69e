package render

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/deref"
)

// The narrow table names a UUID by the shortest prefix (8 or more) that
// tells it from the others, cuts a long name in its middle, shows a
// project by its last element and words spans and counts short.
func TestSessionsTable(t *testing.T) {
	at := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	list := []api.SessionInfo{
		{Session: "5f0c2a91-7d3e-4b8e-9a55-0c1d2e3f4a5b", Agent: "claude-code", Project: "github.com/django/django",
			Start: at, End: at.Add(3*time.Hour + 5*time.Minute), Entries: 12, Tokens: 35210},
		{Session: "5f0c2a91-8888-4b8e-9a55-0c1d2e3f4a5b", Agent: "codex", Start: at, End: at.Add(45 * time.Second), Entries: 1, Tokens: 812},
		{Session: "django__django-11292-and-a-long-tail", Agent: "swe-agent", Project: "p", Start: at, End: at.Add(50 * time.Hour),
			Entries: 3, Tokens: 1_300_000, Compactions: 2},
	}
	var b strings.Builder
	if err := Sessions(&b, list, false); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, want := range [][]string{
		{"SESSION", "TOOK", "CMP"},
		{"5f0c2a91-7 ", "django ", "3h05m", "35.2k"},
		{"5f0c2a91-8 ", "- ", "45s", "812"},
		{"django__dj…a-long-tail", "2d02h", "1.3M", " 2"},
	} {
		for _, w := range want {
			if !strings.Contains(got[i], w) {
				t.Errorf("line %d %q lacks %q", i, got[i], w)
			}
		}
	}
	b.Reset()
	if err := Sessions(&b, list, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), list[0].Session) || !strings.Contains(b.String(), "github.com/django/django") || !strings.Contains(b.String(), "END") {
		t.Errorf("wide:\n%s", b.String())
	}
}

func TestReplaySpansDaysAndMarksCompactions(t *testing.T) {
	at := time.Date(2026, 11, 1, 23, 50, 0, 0, time.UTC)
	content := "line one\nline two\n"
	steps := []ReplayStep{
		Step(0, memex.Entry{Created: at, Kind: memex.KindMessage, Attrs: map[string]string{"role": "user"}, Summary: "fix it"}, nil),
		Step(1, memex.Entry{Created: at.Add(20 * time.Minute), Kind: memex.KindEvent, Attrs: map[string]string{"event": "compact_boundary"}}, nil),
		Step(2, memex.Entry{Created: at.Add(25 * time.Minute), Kind: memex.KindTool, Tool: "bash", Summary: "go test"}, &content),
	}
	var b strings.Builder
	if err := Replay(&b, steps); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, w := range []string{"──────── Sunday 2026-11-01 ────────\n", "  user  ", "──────── Monday 2026-11-02 ────────\n",
		"──────── context compacted here ────────\n", "tool:bash", "      │ line one\n      │ line two\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("replay lacks %q:\n%s", w, got)
		}
	}
	if !steps[1].Compaction || steps[0].Role != "user" || steps[2].Content == nil {
		t.Errorf("steps %+v", steps)
	}
}

// The first api.MaxIngestWarnings problems are printed, then one line
// saying there are more; Rest prints the file problems not printed yet.
func TestWarnerCapsAndRest(t *testing.T) {
	var b strings.Builder
	w := &Warner{Out: &b}
	for i := range api.MaxIngestWarnings + 3 {
		w.Warn(strings.Repeat("x", i+1))
	}
	w.More(2)
	w.Rest([]string{"x", "a file problem"})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != api.MaxIngestWarnings+2 || lines[api.MaxIngestWarnings] != "memex: ingest: more problems; see the report" ||
		lines[len(lines)-1] != "memex: ingest: a file problem" || w.Told() != api.MaxIngestWarnings+5 {
		t.Fatalf("told %d:\n%s", w.Told(), b.String())
	}
	b.Reset()
	w = &Warner{Out: &b, JSON: true}
	w.More(0)
	w.Warn("f:1: bad")
	if b.String() != `{"warning":"ingest: f:1: bad"}`+"\n" {
		t.Fatalf("json: %q", b.String())
	}
}

func TestOneLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a\tb\nc", 10, "a b c"},
		{"héllo wörld", 8, "héllo..."},
		{"exactly8", 8, "exactly8"},
	} {
		if got := oneLine(c.in, c.n); got != c.want {
			t.Errorf("oneLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// A verification prints each problem where it is (the store, an entry,
// a file), the notes, and the count on stderr.
func TestVerify(t *testing.T) {
	var out, errw strings.Builder
	Verify(&out, &errw, api.VerifyResult{Checked: 2, Problems: []api.Problem{{Message: "index: 1 entry missing"}},
		Files: []api.Problem{{Path: "token", Message: "mode 0644"}}, Notes: []api.Problem{{Path: "store/000001.log", Message: "cut"}}})
	want := "store: index: 1 entry missing\ntoken: mode 0644\nnote: store/000001.log: cut\n"
	if out.String() != want || errw.String() != "memex: verified 2 entries, 2 problems\n" {
		t.Errorf("stdout %q stderr %q", out.String(), errw.String())
	}
}

// SessionHits prints each session with its share of the query's words and
// at most three of its hits; none says so on stderr.
func TestSessionHits(t *testing.T) {
	var hits []api.Hit
	for i := 0; i < 5; i++ {
		hits = append(hits, api.Hit{ID: memex.NewID(time.Unix(int64(1e9+i), 0)), Score: 1, Summary: "bash: go test"})
	}
	var out, errs strings.Builder
	SessionHits(&out, &errs, api.SearchResult{Sessions: []api.SessionHit{
		{Project: "p", Session: "s1", Score: 2.5, Cover: 0.75, Hits: hits}}})
	if !strings.Contains(out.String(), "  2.50   75%  p  s1  (5 hits)\n") || strings.Count(out.String(), "bash: go test") != 3 || errs.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", out.String(), errs.String())
	}
	out.Reset()
	SessionHits(&out, &errs, api.SearchResult{})
	if out.Len() != 0 || errs.String() != "no matches\n" {
		t.Errorf("none: stdout %q, stderr %q", out.String(), errs.String())
	}
}

// TestReplayBinaryContent: --full --json carries content that is not
// valid UTF-8 as content_base64 (as show --json does), never as text with
// its bytes replaced; the text prints the binary note, never raw bytes.
func TestReplayBinaryContent(t *testing.T) {
	bin := []byte{'o', 'k', 0xff, 0xfe, '\n'}
	e := api.WithContent(memex.Entry{ID: memex.ID{1}, Kind: memex.KindNote, Bytes: int64(len(bin))}, bin)
	steps, err := Steps([]api.EntryJSON{e}, true)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(steps[0])
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(js, &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["content"]; ok || got["content_base64"] != base64.StdEncoding.EncodeToString(bin) {
		t.Errorf("step %s: want content_base64 %q and no content", js, base64.StdEncoding.EncodeToString(bin))
	}
	var b strings.Builder
	if err := Replay(&b, steps); err != nil {
		t.Fatal(err)
	}
	if note := "      │ " + deref.BinaryNote(e.ID, e.Bytes) + "\n"; !strings.HasSuffix(b.String(), note) || strings.Contains(b.String(), "\xff") {
		t.Errorf("replay:\n%q\nwant it to end with %q", b.String(), note)
	}
}
