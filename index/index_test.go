package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/analysis"

	"github.com/memex-archive/memex"
)

// corpus is a tiny archive stand-in: contents and entries by ID, for
// Options.Content and Options.Entry.
type corpus struct {
	mu sync.Mutex
	m  map[memex.ID][]byte
	e  map[memex.ID]memex.Entry
}

func (c *corpus) entry(_ context.Context, id memex.ID) (memex.Entry, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[id]; !ok {
		return memex.Entry{}, fmt.Errorf("test: %s: %w", id, memex.ErrNotFound)
	}
	return c.e[id], nil
}

func (c *corpus) content(_ context.Context, id memex.ID) (io.ReadCloser, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, ok := c.m[id]
	if !ok {
		return nil, fmt.Errorf("test: %s: %w", id, memex.ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

var t0 = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

type fixture struct {
	ix  *Index
	c   *corpus
	ids map[string]memex.ID // by name
}

// entry describes a test entry.
type entry struct {
	name, project, session, agent, tool, input, summary, content string
	kind                                                         memex.Kind
	exit                                                         *int
}

var entries = []entry{
	{name: "parse", project: "p1", session: "s1", agent: "claude-code", tool: "Read", kind: memex.KindTool,
		input: "config/loader.go", summary: "Read: config/loader.go (120 lines)",
		content: "package config\n\nfunc parseConfigFile(path string) (*Config, error) {\n\treturn nil, nil\n}\n"},
	{name: "middleware", project: "p1", session: "s1", agent: "claude-code", tool: "Edit", kind: memex.KindTool,
		input: `{"file_path":"/repo/internal/auth/middleware.go"}`, summary: "Edit: internal/auth/middleware.go +3 -1",
		content: "--- a/internal/auth/middleware.go\n+++ b/internal/auth/middleware.go\n@@ -10,3 +10,5 @@\n+\tif token == \"\" {\n"},
	{name: "nilmap", project: "p1", session: "s2", agent: "codex", tool: "shell", kind: memex.KindTool, exit: memex.IntPtr(1),
		input: "go test ./auth/...", summary: "shell: go test ./auth/... → FAIL (exit 1)",
		content: "=== RUN   TestLogin\npanic: assignment to entry in nil map\n\ngoroutine 7 [running]:\nauth.(*Store).Put(...)\n\t/repo/auth/store.go:41 +0x1c\nFAIL\tgithub.com/x/auth\t0.012s\n"},
	{name: "pytest", project: "p2", session: "s3", agent: "swe-agent", tool: "bash", kind: memex.KindTool, exit: memex.IntPtr(0),
		input: "python -m pytest tests/test_utils.py -q", summary: "bash: python -m pytest → 12 passed",
		content: "............                                  [100%]\n12 passed in 0.31s\n"},
	{name: "thinking", project: "p2", session: "s3", agent: "swe-agent", kind: memex.KindReasoning,
		summary: "The configuration parser rejects empty files",
		content: "The configuration parser rejects empty files; I should check how the loader handles an empty config before parsing."},
	{name: "snake", project: "p2", session: "s4", agent: "codex", tool: "shell", kind: memex.KindTool, exit: memex.IntPtr(2),
		input: "grep -rn load_user_settings src/", summary: "shell: grep -rn load_user_settings src/ → 2 matches",
		content: "src/settings.py:88:def load_user_settings(path):\nsrc/app.py:12:    cfg = load_user_settings(p)\n"},
}

func newFixture(t *testing.T, opts *Options) *fixture {
	t.Helper()
	c := &corpus{m: map[memex.ID][]byte{}, e: map[memex.ID]memex.Entry{}}
	o := Options{InMemory: true}
	if opts != nil {
		o = *opts
	}
	o.Content = c.content
	o.Entry = c.entry
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, &o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	f := &fixture{ix: ix, c: c, ids: map[string]memex.ID{}}
	f.add(t, entries...)
	return f
}

func (f *fixture) add(t *testing.T, es ...entry) {
	t.Helper()
	var docs []Doc
	for i, e := range es {
		created := t0.Add(time.Duration(len(f.ids)+i) * time.Minute)
		id := memex.NewID(created)
		f.ids[e.name] = id
		me := memex.Entry{
			ID: id, Project: e.project, Session: e.session, Agent: e.agent, Kind: e.kind, Tool: e.tool,
			Input: e.input, Exit: e.exit, Created: created, Summary: e.summary, Tokens: int64(len(e.content) / 4),
			Aliases: []string{e.name},
		}
		f.c.mu.Lock()
		f.c.m[id] = []byte(e.content)
		f.c.e[id] = me
		f.c.mu.Unlock()
		docs = append(docs, Doc{Entry: me, Content: []byte(e.content)})
	}
	if err := f.ix.Add(context.Background(), docs...); err != nil {
		t.Fatal(err)
	}
}

// names runs q and returns the names of the hits in order.
func (f *fixture) names(t *testing.T, q Query) []string {
	t.Helper()
	res, err := f.ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	byID := map[memex.ID]string{}
	for n, id := range f.ids {
		byID[id] = n
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, byID[h.ID])
	}
	return out
}

func TestAnalysisFinds(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name  string
		q     string
		first string
	}{
		{"camel case parts", "parse config", "parse"},
		{"camel case whole", "parseConfigFile", "parse"},
		{"slashed path", "auth/middleware.go", "middleware"},
		{"base name", "middleware.go", "middleware"},
		{"absolute path", "/repo/internal/auth/middleware.go", "middleware"},
		{"error fragment", "assignment to entry in nil map", "nilmap"},
		{"file and line", "store.go:41", "nilmap"},
		{"snake case whole", "load_user_settings", "snake"},
		{"snake case parts", "user settings", "snake"},
		{"stemmed prose", "rejecting empty file", "thinking"},
		{"short code tokens", "go test", "nilmap"},
		{"phrase", `"nil map"`, "nilmap"},
		{"flags and dots", "python -m pytest", "pytest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := f.names(t, Query{Text: tc.q})
			if len(got) == 0 || got[0] != tc.first {
				t.Fatalf("search %q = %v, want %q first", tc.q, got, tc.first)
			}
		})
	}
}

func TestTokenizer(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"parseConfigFile", []string{"parseconfigfile", "parse", "config", "file"}},
		{"HTTPServer", []string{"httpserver", "http", "server"}},
		{"load_user_settings", []string{"load_user_settings", "load", "user", "settings"}},
		{"src/auth/middleware.go:42", []string{"src/auth/middleware.go:42", "src", "auth", "middleware", "go", "42", "src/auth/middleware.go", "middleware.go"}},
		{"os.path.join(a)", []string{"os.path.join", "os", "path", "join", "a"}},
		{"if x == nil {", []string{"if", "x", "nil"}},
		{"--verbose", []string{"verbose"}},
		{"int64 utf8", []string{"int64", "utf8"}},
		{strings.Repeat("QUJD", 100), nil},
	} {
		var got []string
		for _, tok := range (codeTokenizer{}).Tokenize([]byte(tc.in)) {
			got = append(got, string(tok.Term))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestFilters(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name string
		q    Query
		want []string
	}{
		{"project struct", Query{Text: "config", Project: "p2"}, []string{"thinking"}},
		{"project text", Query{Text: "config project:p1"}, []string{"parse"}},
		{"agent", Query{Text: "agent:codex"}, []string{"snake", "nilmap"}},
		{"kind", Query{Kind: "reasoning"}, []string{"thinking"}},
		{"tool alternatives", Query{Text: "tool:Read tool:Edit"}, []string{"middleware", "parse"}},
		{"session", Query{Session: "s3", Text: "passed"}, []string{"pytest"}},
		{"exit", Query{Text: "exit:1"}, []string{"nilmap"}},
		{"path exact", Query{Text: "path:auth/middleware.go"}, []string{"middleware"}},
		{"path suffix from content", Query{Text: "path:settings.py"}, []string{"snake"}},
		{"input field", Query{Text: "input:pytest"}, []string{"pytest"}},
		{"quoted value", Query{Text: `session:"s1" kind:tool`}, []string{"middleware", "parse"}},
		{"struct and text disagree", Query{Text: "project:p1", Project: "p2"}, []string{}},
		{"no match", Query{Text: "kubernetes"}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := f.names(t, tc.q)
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("search %+v = %v, want %v", tc.q, got, tc.want)
			}
		})
	}
}

func TestBeforeAfter(t *testing.T) {
	f := newFixture(t, nil)
	// Several entries in one millisecond: the bound must be exact by ID.
	same := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	var docs []Doc
	var ids []memex.ID
	for i := 0; i < 5; i++ {
		id := memex.NewID(same)
		ids = append(ids, id)
		me := memex.Entry{ID: id, Kind: memex.KindNote, Session: "ms", Created: same, Summary: fmt.Sprintf("note %d", i)}
		f.c.m[id] = []byte("tick")
		f.c.e[id] = me
		docs = append(docs, Doc{Entry: me, Content: []byte("tick")})
	}
	if err := f.ix.Add(context.Background(), docs...); err != nil {
		t.Fatal(err)
	}
	count := func(q Query) []memex.ID {
		res, err := f.ix.Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []memex.ID
		for _, h := range res.Hits {
			out = append(out, h.ID)
		}
		return out
	}
	if got := count(Query{Text: "tick", Before: ids[2]}); !reflect.DeepEqual(got, []memex.ID{ids[1], ids[0]}) {
		t.Errorf("before ids[2] = %v, want ids 1, 0", got)
	}
	if got := count(Query{Text: "tick", After: ids[2]}); !reflect.DeepEqual(got, []memex.ID{ids[4], ids[3]}) {
		t.Errorf("after ids[2] = %v, want ids 4, 3", got)
	}
	if got := count(Query{Text: "tick after:" + ids[0].String() + " before:" + ids[4].String()}); len(got) != 3 {
		t.Errorf("between = %v, want 3", got)
	}
	got := f.names(t, Query{Text: "config", Before: f.ids["thinking"]})
	if !reflect.DeepEqual(got, []string{"parse"}) {
		t.Errorf("config before thinking = %v, want [parse]", got)
	}
	got = f.names(t, Query{Text: "config", After: f.ids["parse"]})
	if !reflect.DeepEqual(got, []string{"thinking"}) {
		t.Errorf("config after parse = %v, want [thinking]", got)
	}
}

// after: and before: take times as the CLI's --since does: an entry
// created at the time is after it, not before it (issue 14).
func TestTimeBounds(t *testing.T) {
	f := newFixture(t, nil)
	// The fixture's entries are a minute apart from t0, in order.
	third := t0.Add(2 * time.Minute).UTC().Format(time.RFC3339)
	if got := f.names(t, Query{Text: "config after:" + third}); !reflect.DeepEqual(got, []string{"thinking"}) {
		t.Errorf("config after:%s = %v, want [thinking]", third, got)
	}
	// Since writes that bound in the query's syntax.
	if got := f.names(t, Query{Text: Since("config", t0.Add(2*time.Minute))}); !reflect.DeepEqual(got, []string{"thinking"}) {
		t.Errorf("Since(config, third) = %v, want [thinking]", got)
	}
	if Since("config", time.Time{}) != "config" {
		t.Errorf("Since with no time changed the text")
	}
	if got := f.names(t, Query{Text: "config before:" + third}); !reflect.DeepEqual(got, []string{"parse"}) {
		t.Errorf("config before:%s = %v, want [parse]", third, got)
	}
	day := t0.In(time.Local).Format("2006-01-02")
	next := t0.In(time.Local).AddDate(0, 0, 1).Format("2006-01-02")
	if got := f.names(t, Query{Text: "config after:" + next}); len(got) != 0 {
		t.Errorf("config after:%s = %v, want none", next, got)
	}
	if got := f.names(t, Query{Text: "config before:" + next + " after:" + day}); len(got) != 2 {
		t.Errorf("config within %s = %v, want both", day, got)
	}
	if got := f.names(t, Query{Text: "config after:1d"}); len(got) != 0 {
		t.Errorf("config after:1d = %v: the fixture is older", got)
	}
	_, err := f.ix.Search(context.Background(), Query{Text: "config after:lastweek"})
	if !errors.Is(err, memex.ErrInvalid) || !strings.Contains(err.Error(), "after:lastweek") || !strings.Contains(err.Error(), "2026-11-01") {
		t.Errorf("after:lastweek: %v; want ErrInvalid naming the value and the forms", err)
	}
}

func TestHitFields(t *testing.T) {
	f := newFixture(t, nil)
	res, err := f.ix.Search(context.Background(), Query{Text: "nil map"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits)-res.Partly != 1 {
		t.Fatalf("hits = %+v, %d of them partial", res.Hits, res.Partly)
	}
	h := res.Hits[0]
	if h.ID != f.ids["nilmap"] || h.Session != "s2" || h.Project != "p1" || h.Agent != "codex" ||
		h.Summary != "shell: go test ./auth/... → FAIL (exit 1)" || h.Tokens == 0 || h.Created.IsZero() ||
		!reflect.DeepEqual(h.Aliases, []string{"nilmap"}) || h.Exit == nil || *h.Exit != 1 || h.Score <= 0 {
		t.Errorf("hit = %+v", h)
	}
	if h.Snippet != "panic: assignment to entry in nil map" {
		t.Errorf("snippet = %q", h.Snippet)
	}
}

func TestPhraseChecked(t *testing.T) {
	f := newFixture(t, nil)
	f.add(t, entry{name: "scattered", kind: memex.KindNote, summary: "note",
		content: "the map was built; later a nil pointer showed up"})
	if got := f.names(t, Query{Text: "nil map"}); len(got) < 2 || !reflect.DeepEqual(sorted(got[:2]), []string{"nilmap", "scattered"}) {
		t.Errorf("plain words nil map = %v, want both entries first", got)
	}
	if got := f.names(t, Query{Text: `"nil map"`}); !reflect.DeepEqual(got, []string{"nilmap"}) {
		t.Errorf("phrase nil map = %v, want [nilmap]", got)
	}
	if got := f.names(t, Query{Text: `"map nil"`}); len(got) != 0 {
		t.Errorf("phrase map nil = %v, want none", got)
	}
	// The one entry with the phrase ranks below many with its words
	// repeated: the check must look past the first page of candidates.
	var decoys []entry
	for i := 0; i < 300; i++ {
		decoys = append(decoys, entry{name: fmt.Sprintf("decoy%d", i), kind: memex.KindNote, summary: "map nil",
			content: "map map map, nil nil nil"})
	}
	f.add(t, decoys...)
	if got := f.names(t, Query{Text: `"nil map"`}); !reflect.DeepEqual(got, []string{"nilmap"}) {
		t.Errorf("phrase nil map among decoys = %v, want [nilmap]", got)
	}
}

func TestRelaxed(t *testing.T) {
	f := newFixture(t, nil)
	res, err := f.ix.Search(context.Background(), Query{Text: "pytest kubernetes"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Relaxed || len(res.Hits) == 0 || res.Hits[0].ID != f.ids["pytest"] || res.Partly != len(res.Hits) {
		t.Errorf("relaxed = %v hits = %+v", res.Relaxed, res.Hits)
	}
}

func TestFillUpWithPartialMatches(t *testing.T) {
	f := newFixture(t, nil)
	f.add(t,
		entry{name: "both", project: "p3", session: "s5", kind: memex.KindNote, summary: "note", content: "zephyr quokka"},
		entry{name: "one", project: "p3", session: "s5", kind: memex.KindNote, summary: "note", content: "zephyr only"},
		entry{name: "none", project: "p3", session: "s5", kind: memex.KindNote, summary: "note", content: "nothing here"},
	)
	res, err := f.ix.Search(context.Background(), Query{Text: "zephyr quokka"})
	if err != nil {
		t.Fatal(err)
	}
	var got []memex.ID
	for _, h := range res.Hits {
		got = append(got, h.ID)
	}
	if want := []memex.ID{f.ids["both"], f.ids["one"]}; !reflect.DeepEqual(got, want) || res.Partly != 1 || res.Relaxed {
		t.Errorf("hits %v partly %d relaxed %v, want %v partly 1, not relaxed", got, res.Partly, res.Relaxed, want)
	}
	// A full page of full matches takes no partial ones.
	res, err = f.ix.Search(context.Background(), Query{Text: "zephyr quokka", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Hits[0].ID != f.ids["both"] || res.Partly != 0 {
		t.Errorf("limit 1: hits %+v partly %d", res.Hits, res.Partly)
	}
}

// TestFailedRunIsAnError: a tool run that exited non-zero matches "error"
// and "failed" in full, whatever its output says.
func TestFailedRunIsAnError(t *testing.T) {
	f := newFixture(t, nil)
	for _, q := range []string{"grep load_user_settings error", "grep load_user_settings failed"} {
		res, err := f.ix.Search(context.Background(), Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].ID != f.ids["snake"] || res.Partly == len(res.Hits) {
			t.Errorf("%q: hits %+v, %d partial", q, res.Hits, res.Partly)
		}
	}
	// A run that succeeded is no error.
	res, err := f.ix.Search(context.Background(), Query{Text: "pytest error"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) > 0 && res.Hits[0].ID == f.ids["pytest"] && res.Partly == 0 {
		t.Errorf("pytest error: the passing run matched in full: %+v", res.Hits)
	}
}

// TestNewestRunFirst: runs of one command come newest first, in the
// places the ranking gave them; other hits keep their places.
func TestNewestRunFirst(t *testing.T) {
	f := newFixture(t, nil)
	run := func(name, content string) entry {
		return entry{name: name, project: "p3", session: "s6", tool: "bash", kind: memex.KindTool,
			input: "make zorblat", summary: "bash: make zorblat", content: content}
	}
	// BM25 ranks the oldest run first: its output says zorblat most.
	f.add(t,
		run("first", "zorblat zorblat zorblat zorblat built"),
		run("second", "zorblat built again"),
		entry{name: "other", project: "p3", session: "s6", tool: "bash", kind: memex.KindTool,
			input: "make zorblat-docs", summary: "bash: make zorblat-docs", content: "docs"},
		run("third", "nothing new"),
	)
	res, err := f.ix.Search(context.Background(), Query{Text: "zorblat", Project: "p3"})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[memex.ID]string{}
	for n, id := range f.ids {
		byID[id] = n
	}
	var got []string
	score := map[string]float64{}
	for _, h := range res.Hits {
		got = append(got, byID[h.ID])
		score[byID[h.ID]] = h.Score
	}
	if !(score["first"] > score["second"] && score["second"] > score["third"]) {
		t.Fatalf("fixture: scores %v should rank the oldest run first", score)
	}
	var runs []string
	for _, n := range got {
		if n != "other" {
			runs = append(runs, n)
		}
	}
	if want := []string{"third", "second", "first"}; !reflect.DeepEqual(runs, want) {
		t.Errorf("hits %v, want runs %v (newest first)", got, want)
	}
	for i, h := range res.Hits {
		if byID[h.ID] != "other" {
			continue
		}
		// other keeps its rank: as many hits above it score higher.
		above := 0
		for _, s := range score {
			if s > h.Score {
				above++
			}
		}
		if i != above {
			t.Errorf("other at %d in %v, its score ranks it %d", i, got, above)
		}
	}
}

func TestNewestRunsFirstPlaces(t *testing.T) {
	ids := map[int]memex.ID{}
	id := func(n int) memex.ID {
		if _, ok := ids[n]; !ok {
			ids[n] = memex.NewID(t0.Add(time.Duration(n) * time.Minute))
		}
		return ids[n]
	}
	hits := []Hit{{ID: id(1)}, {ID: id(9)}, {ID: id(3)}, {ID: id(5)}, {ID: id(7)}}
	runs := []string{"a", "", "a", "b", "a"}
	newestRunsFirst(hits, runs)
	want := []memex.ID{id(7), id(9), id(3), id(5), id(1)}
	for i := range hits {
		if hits[i].ID != want[i] {
			t.Fatalf("got %v, want %v", hits, want)
		}
	}
}

func TestMalformed(t *testing.T) {
	f := newFixture(t, nil)
	for _, q := range []Query{
		{Text: `"unterminated`},
		{Text: "project:"},
		{Text: "project: p1"},
		{Text: "exit:abc"},
		{Text: "before:notanid"},
		{Text: ""},
		{Text: "   && || "},
	} {
		_, err := f.ix.Search(context.Background(), q)
		if !errors.Is(err, memex.ErrInvalid) {
			t.Errorf("search %q: err = %v, want ErrInvalid", q.Text, err)
		}
	}
	// Things that look odd but are plain words.
	for _, q := range []string{"http://x.y/z", "file.go:12:3", "a:b:c", `x"y"`, "((", "ünïcödé", "*"} {
		if _, err := f.ix.Search(context.Background(), Query{Text: q}); err != nil && !errors.Is(err, memex.ErrInvalid) {
			t.Errorf("search %q: %v", q, err)
		}
	}
}

func TestDelete(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.ix.Delete(context.Background(), f.ids["nilmap"], memex.NewID(t0)); err != nil {
		t.Fatal(err)
	}
	if got := f.names(t, Query{Text: `"nil map"`}); len(got) != 0 {
		t.Errorf("after delete: %v", got)
	}
	if has, _ := f.ix.Has(f.ids["nilmap"]); has {
		t.Error("Has after delete")
	}
	n, _ := f.ix.Count()
	if n != uint64(len(entries)-1) {
		t.Errorf("count = %d", n)
	}
}

func TestGoneFromArchiveDropped(t *testing.T) {
	f := newFixture(t, nil)
	f.c.mu.Lock()
	delete(f.c.m, f.ids["pytest"])
	f.c.mu.Unlock()
	if got := f.names(t, Query{Text: "pytest"}); len(got) != 0 {
		t.Errorf("forgotten entry found: %v", got)
	}
	if has, _ := f.ix.Has(f.ids["pytest"]); has {
		t.Error("forgotten entry still indexed")
	}
}

func TestReopenAndSchema(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	ix, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := memex.NewID(t0)
	if err := ix.Add(context.Background(), Doc{Entry: memex.Entry{ID: id, Kind: memex.KindNote, Summary: "durable"}}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	ix, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(context.Background(), Query{Text: "durable"})
	if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != id {
		t.Fatalf("after reopen: %+v %v", res, err)
	}
	// Without Options.Entry, a hit has its ID and the time in it: the
	// index stores nothing else.
	if h := res.Hits[0]; h.Summary != "" || !h.Created.Equal(id.Time()) {
		t.Fatalf("hit without Entry: %+v", h)
	}
	// An index of another schema version is refused with a hint.
	if err := ix.bi.SetInternal(schemaKey, []byte("0")); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	_, err = Open(dir, nil)
	if !errors.Is(err, memex.ErrSchema) || !strings.Contains(err.Error(), "memex reindex") {
		t.Fatalf("open old schema: %v", err)
	}
	if err := Drop(dir); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if n, _ := ix.Count(); n != 0 {
		t.Fatalf("count after drop = %d", n)
	}
}

func TestReset(t *testing.T) {
	for _, mem := range []bool{true, false} {
		f := newFixture(t, &Options{InMemory: mem})
		if err := f.ix.Reset(); err != nil {
			t.Fatal(err)
		}
		if n, _ := f.ix.Count(); n != 0 {
			t.Fatalf("count after reset = %d", n)
		}
		f.add(t, entries[0])
		if got := f.names(t, Query{Text: "parse config"}); len(got) != 1 {
			t.Fatalf("after reset and add: %v", got)
		}
	}
}

// segments is the number of segments the index is in.
func segments(t *testing.T, ix *Index) int {
	t.Helper()
	n, err := ix.Segments()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestResetLoadThenCompact(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	c := &corpus{m: map[memex.ID][]byte{}, e: map[memex.ID]memex.Entry{}}
	ix, err := Open(dir, &Options{Content: c.content, Entry: c.entry})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Reset(); err != nil {
		t.Fatal(err)
	}
	// One Add per entry: a segment each, merged as bleve merges any.
	var ids []memex.ID
	for i := 0; i < 6; i++ {
		id := memex.NewID(t0.Add(time.Duration(i) * time.Hour))
		ids = append(ids, id)
		me := memex.Entry{ID: id, Kind: memex.KindNote, Summary: fmt.Sprintf("bulk note %d", i), Tool: "note"}
		c.m[id], c.e[id] = []byte("loaded in bulk"), me
		if err := ix.Add(context.Background(), Doc{Entry: me, Content: c.m[id]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := segments(t, ix); n != 1 {
		t.Fatalf("segments after compact = %d, want 1", n)
	}
	// Durable, and searchable with filters and bounds after reopening.
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(dir, &Options{Content: c.content, Entry: c.entry})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, err := ix.Search(context.Background(), Query{Text: "bulk tool:note", After: ids[1], Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 4 {
		t.Fatalf("hits after reopen = %d, want 4: %+v", len(res.Hits), res.Hits)
	}
	if n := segments(t, ix); n != 1 {
		t.Fatalf("segments after reopen = %d, want 1", n)
	}
}

func TestTimeoutPartial(t *testing.T) {
	f := newFixture(t, &Options{InMemory: true, Timeout: time.Nanosecond})
	res, err := f.ix.Search(context.Background(), Query{Text: "config"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Partial {
		t.Errorf("result not partial: %+v", res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.ix.Search(ctx, Query{Text: "config"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
}

func FuzzSearch(f *testing.F) {
	for _, s := range []string{"parse config", `"nil map"`, "path:a/b.go exit:1", `project:"x y" "`, "before:01JD", "a:b", "\x00\xff"} {
		f.Add(s)
	}
	c := &corpus{m: map[memex.ID][]byte{}, e: map[memex.ID]memex.Entry{}}
	ix, err := Open("", &Options{InMemory: true, Content: c.content, Entry: c.entry})
	if err != nil {
		f.Fatal(err)
	}
	defer ix.Close()
	id := memex.NewID(t0)
	c.m[id] = []byte(entries[2].content)
	if err := ix.Add(context.Background(), Doc{Entry: memex.Entry{ID: id, Kind: memex.KindTool, Input: entries[2].input},
		Content: c.m[id]}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		_, err := ix.Search(context.Background(), Query{Text: q})
		if err != nil && !errors.Is(err, memex.ErrInvalid) {
			t.Fatalf("search %q: %v", q, err)
		}
		_, err = ix.Search(context.Background(), Query{Text: q, Literal: true})
		if err != nil && !errors.Is(err, memex.ErrInvalid) {
			t.Fatalf("literal search %q: %v", q, err)
		}
	})
}

// FuzzTokenizerAgreesWithQueries: the tokenizer's fast paths emit exactly
// what the query side (wordOf) expects of every word.
func FuzzTokenizerAgreesWithQueries(f *testing.F) {
	for _, s := range []string{"parseConfigFile", "src/auth/middleware.go:42:7", "HTTPServer_v2", "a..b//c", "x:1", "--flag=value", "naïveCafé/x.go", "ABC", "aB1Cd"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got []string
		for _, tok := range (codeTokenizer{}).Tokenize([]byte(s)) {
			got = append(got, string(tok.Term))
		}
		var want []string
		var runs func(s string)
		runs = func(s string) {
			for _, run := range strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) }) {
				if len(run) > maxRunBytes {
					for _, seg := range pathSegments([]byte(run)) {
						runs(string(seg))
					}
					continue
				}
				if w := wordOf(run); w.whole != "" {
					for _, term := range w.terms() {
						if len(term) <= maxTermBytes {
							want = append(want, term)
						}
					}
				}
			}
		}
		runs(s)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Tokenize(%q) = %q, wordOf gives %q", s, got, want)
		}
	})
}

// sorted returns a sorted copy of names.
func sorted(names []string) []string {
	out := append([]string(nil), names...)
	sort.Strings(out)
	return out
}

// FuzzTermFreqs: counting terms as they are found and stemming each
// distinct one once gives what stemming every token of the stream and
// then counting gives (Porter is not idempotent: a stem may be another
// word of the text that stems further).
func FuzzTermFreqs(f *testing.F) {
	for _, s := range []string{"parseConfigFile parse parsing parsed", "generalizations generalization general gener",
		"agreed agree agre agr", "src/auth/middleware.go:42 middleware.go", "Running runs ran runner's", "naïve Cafés ÉTÉ été"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, stem := range []bool{false, true} {
			want := map[string]int{}
			n := 0
			for _, tok := range (codeTokenizer{}).Tokenize([]byte(s)) {
				term := string(tok.Term)
				if stem && !tok.KeyWord {
					term = string(stemFilter.Filter(analysis.TokenStream{{Term: []byte(term)}})[0].Term)
				}
				want[term]++
				n++
			}
			freqs, length := termFreqs([]byte(s), stem, nil)
			got := map[string]int{}
			for term, tf := range freqs {
				got[term] = tf.Frequency()
			}
			if length != n || !reflect.DeepEqual(got, want) {
				t.Fatalf("termFreqs(%q, stem %v) = %v (%d terms), token stream gives %v (%d)", s, stem, got, length, want, n)
			}
		}
	})
}

// TestBeforeAfterAcrossSpans: before/after by ID prefixes give exactly
// the entries older (newer) than the bound, whether they lie in the same
// millisecond, second, minute, hour, day or year.
func TestBeforeAfterAcrossSpans(t *testing.T) {
	c := &corpus{m: map[memex.ID][]byte{}, e: map[memex.ID]memex.Entry{}}
	ix, err := Open("", &Options{InMemory: true, Content: c.content, Entry: c.entry})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	base := time.Date(2026, 3, 14, 15, 9, 26, 535e6, time.UTC)
	var offsets []time.Duration
	for _, d := range []time.Duration{0, time.Millisecond, 900 * time.Millisecond, time.Second, 20 * time.Second,
		40 * time.Second, 10 * time.Minute, 30 * time.Minute, 5 * time.Hour, 20 * time.Hour, 6 * 24 * time.Hour,
		40 * 24 * time.Hour, 400 * 24 * time.Hour} {
		offsets = append(offsets, d, -d)
	}
	var ids []memex.ID
	var docs []Doc
	for i, d := range offsets {
		for k := 0; k < 2; k++ { // two entries in each millisecond
			created := base.Add(d)
			id := memex.NewID(created)
			ids = append(ids, id)
			me := memex.Entry{ID: id, Kind: memex.KindNote, Created: created, Summary: fmt.Sprintf("span %d", i)}
			c.m[id], c.e[id] = []byte("span"), me
			docs = append(docs, Doc{Entry: me, Content: c.m[id]})
		}
	}
	if err := ix.Add(context.Background(), docs...); err != nil {
		t.Fatal(err)
	}
	for _, bound := range ids {
		for _, before := range []bool{true, false} {
			q := Query{Text: "span", Limit: MaxLimit}
			want := map[memex.ID]bool{}
			for _, id := range ids {
				if c := id.Compare(bound); before && c < 0 || !before && c > 0 {
					want[id] = true
				}
			}
			if before {
				q.Before = bound
			} else {
				q.After = bound
			}
			res, err := ix.Search(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			got := map[memex.ID]bool{}
			for _, h := range res.Hits {
				got[h.ID] = true
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("before=%v %s (%s): %d hits, want %d", before, bound, bound.Time(), len(got), len(want))
			}
		}
	}
}

// TestEqualScoresNewestFirst: entries that score alike come newest first,
// whether they fill the page and more (the search asks bleve again with
// its sort by ID) or lie within it among entries that score otherwise.
func TestEqualScoresNewestFirst(t *testing.T) {
	f := newFixture(t, &Options{InMemory: true})
	var twins, mixed []string
	for i := 0; i < 30; i++ {
		name := fmt.Sprintf("twin%02d", i)
		twins = append(twins, name)
		f.add(t, entry{name: name, project: "tw", session: "tw1", kind: memex.KindNote, summary: "zebra notes",
			content: "the zebra crossed the road\n"})
	}
	for i := 0; i < 12; i++ {
		name := fmt.Sprintf("mixed%02d", i)
		content := "a yak was here\n"
		if i%4 != 0 {
			content = strings.Repeat("yak ", i) + "and more words to tell them apart " + strings.Repeat("filler ", i) + "\n"
		}
		mixed = append(mixed, name)
		f.add(t, entry{name: name, project: "tw", session: "tw1", kind: memex.KindNote, summary: "notes", content: content})
	}
	for _, limit := range []int{1, 5, 29, 30} {
		got := f.names(t, Query{Text: "zebra", Limit: limit})
		var want []string
		for i := 29; i >= 30-limit; i-- {
			want = append(want, twins[i])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("limit %d: %v, want %v", limit, got, want)
		}
	}
	// The three entries that hold "a yak was here" score alike: newest first
	// among themselves, wherever the ranking puts them.
	res, err := f.ix.Search(t.Context(), Query{Text: "yak", Limit: 12})
	if err != nil {
		t.Fatal(err)
	}
	var alike []string
	for k, h := range res.Hits {
		if k > 0 && h.Score > res.Hits[k-1].Score {
			t.Errorf("hit %d scores %v after %v", k, h.Score, res.Hits[k-1].Score)
		}
		if n := h.Aliases[0]; n == mixed[0] || n == mixed[4] || n == mixed[8] {
			alike = append(alike, n)
		}
	}
	if want := []string{mixed[8], mixed[4], mixed[0]}; !reflect.DeepEqual(alike, want) {
		t.Errorf("equal scores %v, want %v", alike, want)
	}
}
