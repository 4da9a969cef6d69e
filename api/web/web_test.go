package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/api/web"
	"github.com/memex-archive/memex/archive"
)

// catalog adapts the archive's session listing, as cmd/memex does.
type catalog struct{ s *archive.Store }

func (c catalog) SessionKeys(ctx context.Context) ([]web.SessionKey, error) {
	list, err := c.s.Sessions(ctx)
	out := make([]web.SessionKey, len(list))
	for i, si := range list {
		out[i] = web.SessionKey{SessionRef: si.SessionRef, Entries: si.Entries, First: si.First, Last: si.Last}
	}
	return out, err
}

// scan is a test Searcher: the entries whose body holds the query's text,
// newest first. A query with an unterminated quote is malformed.
type scan struct{ s *archive.Store }

func (x scan) Search(ctx context.Context, q api.Query) (api.SearchResult, error) {
	var res api.SearchResult
	if strings.Count(q.Text, `"`)%2 == 1 {
		return res, fmt.Errorf("index: query %q: unterminated quote: %w", q.Text, memex.ErrInvalid)
	}
	err := x.s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
		if q.Session != "" && e.Session != q.Session || q.Project != "" && e.Project != q.Project {
			return nil
		}
		b, err := x.s.ReadAll(ctx, e.ID)
		if err != nil {
			return err
		}
		i := bytes.Index(b, []byte(q.Text))
		if i < 0 {
			return nil
		}
		res.Total++
		res.Hits = append([]api.Hit{{ID: e.ID, Score: 1, Summary: e.DisplaySummary(), Snippet: string(b[i:min(len(b), i+80)]),
			Tokens: e.Tokens, Session: e.Session, Project: e.Project, Agent: e.Agent, Kind: e.Kind, Exit: e.Exit, Created: e.Created}}, res.Hits...)
		return nil
	})
	if q.Limit > 0 && len(res.Hits) > q.Limit {
		res.Hits = res.Hits[:q.Limit]
	}
	return res, err
}

type evals []web.EvalRun

func (e evals) EvalRuns(context.Context) ([]web.EvalRun, error) { return e, nil }

type fixture struct {
	s   *archive.Store
	srv *httptest.Server
}

func newFixture(t *testing.T, opts web.Options) *fixture {
	t.Helper()
	s, err := archive.Open(t.TempDir(), &archive.Options{NoSync: true, MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	opts.Store, opts.Catalog = s, catalog{s}
	if opts.Index == nil {
		opts.Index = scan{s}
	}
	v, err := web.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(v)
	t.Cleanup(srv.Close)
	return &fixture{s: s, srv: srv}
}

func (f *fixture) add(t *testing.T, e memex.Entry, body string) memex.Entry {
	t.Helper()
	got, err := f.s.Add(context.Background(), e, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func (f *fixture) get(t *testing.T, path string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(f.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func mustContain(t *testing.T, what, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
	if t.Failed() {
		t.Logf("%s:\n%s", what, body)
	}
}

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.Local)

// A transcript holding markup shows it as text on every page: content,
// input, summary and the session's and project's names.
func TestEveryPageEscapesTheArchive(t *testing.T) {
	f := newFixture(t, web.Options{})
	evil := `<script>alert("x")</script><img src=x onerror=alert(1)>`
	e := f.add(t, memex.Entry{Session: "s<blink>1", Project: "p<marquee>", Agent: "claude-code", Kind: memex.KindTool, Tool: "Bash",
		Input: "echo " + evil, Created: t0, AgentSummary: "ran " + evil}, "line one\n"+evil+"\nline three\n")
	ctx := url.Values{"session": {"s<blink>1"}, "project": {"p<marquee>"}, "budget": {"2000"}}.Encode()
	for _, path := range []string{"/", "/s/" + url.PathEscape("s<blink>1"), "/e/" + e.ID.String(), "/e/" + e.ID.String() + "/peek",
		"/search?q=" + url.QueryEscape("alert"), "/context?" + ctx} {
		status, body, hdr := f.get(t, path)
		if status != 200 {
			t.Errorf("GET %s: %d\n%s", path, status, body)
			continue
		}
		for _, bad := range []string{"<script>alert", "<img src=x", "<blink>", "<marquee>"} {
			if strings.Contains(body, bad) {
				t.Errorf("GET %s holds %q unescaped: %s", path, bad, body[max(0, strings.Index(body, bad)-200):strings.Index(body, bad)+50])
			}
		}
		if !strings.Contains(body, "&lt;") {
			t.Errorf("GET %s shows none of the markup as text:\n%s", path, body)
		}
		if csp := hdr.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("GET %s: CSP %q", path, csp)
		}
	}
	_, body, _ := f.get(t, "/e/"+e.ID.String())
	mustContain(t, "entry page", body, `<span class="lc">&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</span>`)
}

func TestSessionsNewestFirstPagedWithTheirFigures(t *testing.T) {
	f := newFixture(t, web.Options{PageSize: 2})
	for i, name := range []string{"old", "mid", "new"} {
		at := t0.Add(time.Duration(i) * time.Hour)
		f.add(t, memex.Entry{Session: name, Project: "p", Agent: "codex", Kind: memex.KindTool, Tool: "bash", Input: "go test", Exit: memex.IntPtr(1), Created: at}, "--- FAIL: TestX\n")
		f.add(t, memex.Entry{Session: name, Project: "p", Agent: "codex", Kind: memex.KindEvent, Attrs: map[string]string{"event": "compact_boundary"}, Created: at.Add(time.Minute)}, "compacted\n")
		f.add(t, memex.Entry{Session: name, Project: "p", Agent: "codex", Kind: memex.KindMessage, Created: at.Add(20 * time.Minute)}, "done, all green\n")
	}
	f.add(t, memex.Entry{Session: "other", Project: "q", Agent: "claude-code", Kind: memex.KindMessage, Created: t0.Add(-time.Hour)}, "hello\n")

	status, body, _ := f.get(t, "/")
	if status != 200 {
		t.Fatal(status, body)
	}
	mustContain(t, "first page", body, "4 sessions, 10 entries", "page 1 of 2", `data-session="new"`, `data-session="mid"`, `rel="next"`)
	if strings.Contains(body, `data-session="old"`) || strings.Index(body, `data-session="new"`) > strings.Index(body, `data-session="mid"`) {
		t.Errorf("first page is not the two newest, newest first:\n%s", body)
	}
	// One failure and one compaction in each session of project p.
	row := body[strings.Index(body, `data-session="new"`):]
	row = row[:strings.Index(row, "</tr>")]
	mustContain(t, "row of new", row, `<td class="n">3</td>`, `<td class="n fail">1</td>`, `<td class="n compact">1</td>`, "20m")

	_, body, _ = f.get(t, "/?page=2")
	mustContain(t, "second page", body, `data-session="old"`, `data-session="other"`, `rel="prev"`)
	_, body, _ = f.get(t, "/?agent=claude-code")
	mustContain(t, "filtered by agent", body, "1 sessions, 1 entries", `data-session="other"`)
	_, body, _ = f.get(t, "/?project=p&from="+t0.Format("2006-01-02")+"&to="+t0.Format("2006-01-02"))
	mustContain(t, "filtered by project and day", body, "3 sessions, 9 entries")
	_, body, _ = f.get(t, "/?from="+t0.AddDate(0, 0, 1).Format("2006-01-02"))
	mustContain(t, "filtered by a later day", body, "0 sessions")
	_, body, _ = f.get(t, "/?from=yesterday")
	mustContain(t, "a bad date", body, `from &#34;yesterday&#34;: want a date`)

	// A session that grows shows its new figures (the cache is keyed by
	// the session's count and last ID).
	f.add(t, memex.Entry{Session: "new", Project: "p", Agent: "codex", Kind: memex.KindTool, Tool: "bash", Exit: memex.IntPtr(2), Created: t0.Add(3 * time.Hour)}, "boom\n")
	_, body, _ = f.get(t, "/")
	row = body[strings.Index(body, `data-session="new"`):]
	row = row[:strings.Index(row, "</tr>")]
	mustContain(t, "row of new after an add", row, `<td class="n">4</td>`, `<td class="n fail">2</td>`)
}

func TestSessionReplayPagesMarksAndFollows(t *testing.T) {
	f := newFixture(t, web.Options{PageSize: 3})
	ref := memex.SessionRef{Session: "team/s1", Project: "p", Agent: "claude-code"}
	var ids []memex.ID
	for i := 0; i < 5; i++ {
		e := memex.Entry{Session: ref.Session, Project: ref.Project, Agent: ref.Agent, Kind: memex.KindTool, Tool: "Bash",
			Input: fmt.Sprintf("step %d", i), Exit: memex.IntPtr(0), Created: t0.Add(time.Duration(i) * time.Minute)}
		if i == 1 {
			e.Exit = memex.IntPtr(1)
		}
		if i == 3 {
			e.Kind, e.Tool, e.Exit, e.Attrs = memex.KindEvent, "", nil, map[string]string{"event": "compact_boundary"}
		}
		ids = append(ids, f.add(t, e, fmt.Sprintf("output of step %d\n", i)).ID)
	}
	self := "/s/" + url.PathEscape(ref.Session) + "?project=p"
	_, body, _ := f.get(t, self)
	mustContain(t, "first page", body, "page 1 of 2", ids[0].String(), ids[2].String(), `class="step failed" id="step-1"`, "exit 1", `rel="next"`)
	if strings.Contains(body, ids[3].String()) || strings.Contains(body, "data-live") {
		t.Errorf("first page shows step 3 or follows the session:\n%s", body)
	}
	_, body, _ = f.get(t, self+"&page=last")
	mustContain(t, "last page", body, "page 2 of 2", "context compacted here", ids[3].String(), ids[4].String(), `data-after="5"`, `data-live="/s/team%2Fs1?project=p"`)
	if i := strings.Index(body, "context compacted here"); i < 0 || i > strings.Index(body, ids[3].String()) {
		t.Errorf("the compaction mark is not before its entry")
	}
	_, body2, _ := f.get(t, self+"&page=9")
	if !strings.Contains(body2, "page 2 of 2") {
		t.Errorf("a page past the end is not the last one")
	}

	// What the live page polls for: the steps after the 5th, none yet.
	status, frag, hdr := f.get(t, self+"&after=5&frag=1")
	if status != 200 || hdr.Get("X-Memex-Entries") != "5" || strings.Contains(frag, "<li") {
		t.Fatalf("poll with nothing new: %d %q %q", status, hdr.Get("X-Memex-Entries"), frag)
	}
	late := f.add(t, memex.Entry{Session: ref.Session, Project: ref.Project, Agent: ref.Agent, Kind: memex.KindMessage, Created: t0.Add(time.Hour)}, "a late message\n")
	_, frag, hdr = f.get(t, self+"&after=5&frag=1")
	if hdr.Get("X-Memex-Entries") != "6" || !strings.Contains(frag, late.ID.String()) || strings.Contains(frag, ids[4].String()) || strings.Contains(frag, "<html") {
		t.Fatalf("poll after an add: %q\n%s", hdr.Get("X-Memex-Entries"), frag)
	}

	// Expanding a step in place: its first lines, numbered, linked.
	_, peek, _ := f.get(t, "/e/"+ids[2].String()+"/peek")
	mustContain(t, "peek", peek, "output of step 2", `href="/e/`+ids[2].String()+`#L1"`)
	if strings.Contains(peek, "<html") {
		t.Errorf("peek is a whole page")
	}
	if status, body, _ := f.get(t, "/s/nope"); status != 404 || !strings.Contains(body, "not found") {
		t.Errorf("unknown session: %d %s", status, body)
	}
}

func TestEntryLinesAndRawMatchShow(t *testing.T) {
	f := newFixture(t, web.Options{PageLines: 100})
	var sb strings.Builder
	for i := 1; i <= 250; i++ {
		fmt.Fprintf(&sb, "line %d of the log\n", i)
	}
	e := f.add(t, memex.Entry{Session: "s", Kind: memex.KindTool, Tool: "bash", Input: "make", Exit: memex.IntPtr(2), Created: t0,
		Aliases: []string{"build-log"}}, sb.String())
	status, body, _ := f.get(t, "/e/build-log")
	if status != 200 {
		t.Fatal(status, body)
	}
	mustContain(t, "entry page", body, e.ID.String(), `id="L1"`, `id="L100"`, "lines 1-100 of 250", `href="/e/`+e.ID.String()+`?from=101"`,
		`<td class="fail" id="exit">2</td>`, `data-page="100"`, "build-log")
	if strings.Contains(body, `id="L101"`) {
		t.Errorf("the first page shows line 101")
	}
	_, body, _ = f.get(t, "/e/"+e.ID.String()+"?from=120")
	mustContain(t, "page from 120", body, `id="L120"`, `id="L219"`, "lines 120-219 of 250")

	// The raw range is what memex show ID --lines 120:140 prints:
	// Store.Lines, byte for byte.
	rc, err := f.s.Lines(context.Background(), e.ID, 120, 140)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(rc)
	rc.Close()
	_, raw, hdr := f.get(t, "/e/"+e.ID.String()+"/raw?lines=120:140")
	if raw != string(want) || !strings.HasPrefix(raw, "line 120 of") || hdr.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("raw lines = %q (%s), want %q", raw, hdr.Get("Content-Type"), want)
	}
	_, raw, hdr = f.get(t, "/e/"+e.ID.String()+"/raw")
	if raw != sb.String() || hdr.Get("Content-Disposition") == "" {
		t.Fatalf("raw download differs or is not an attachment")
	}
	if status, body, _ := f.get(t, "/e/"+e.ID.String()+"/raw?lines=9:3"); status != 400 || !strings.Contains(body, "line range") {
		t.Fatalf("a bad range: %d %s", status, body)
	}
	if status, _, _ := f.get(t, "/e/01JD8X3N6Q4W0G2Y7T5R9KZC1M"); status != 404 {
		t.Fatalf("unknown entry: %d", status)
	}
}

func TestBinaryEntryIsANoteWithADownload(t *testing.T) {
	f := newFixture(t, web.Options{})
	bin := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe"
	e := f.add(t, memex.Entry{Kind: memex.KindTool, Tool: "Read", Input: "logo.png", Created: t0}, bin)
	_, body, _ := f.get(t, "/e/"+e.ID.String())
	mustContain(t, "binary entry", body, `id="binary"`, `href="/e/`+e.ID.String()+`/raw" download`)
	if strings.Contains(body, `id="code"`) {
		t.Errorf("binary content shown as lines")
	}
	_, raw, _ := f.get(t, "/e/"+e.ID.String()+"/raw")
	if raw != bin {
		t.Errorf("download %q, want %q", raw, bin)
	}
}

func TestSearchPage(t *testing.T) {
	f := newFixture(t, web.Options{})
	e := f.add(t, memex.Entry{Session: "s", Project: "p", Agent: "codex", Kind: memex.KindTool, Tool: "bash", Input: "go test", Exit: memex.IntPtr(1), Created: t0},
		"panic: assignment to entry in nil map\n")
	f.add(t, memex.Entry{Session: "s2", Project: "q", Kind: memex.KindNote, Created: t0}, "nil map again\n")
	_, body, _ := f.get(t, "/search?q=nil+map&project=p")
	mustContain(t, "search", body, "1 entries match", `href="/e/`+e.ID.String()+`"`, "<mark>nil</mark> <mark>map</mark>", `class="hit failed"`, `value="p"`)
	status, frag, _ := f.get(t, "/search?q=nil+map&frag=1")
	if status != 200 || strings.Contains(frag, "<form") || !strings.Contains(frag, "2 entries match") {
		t.Fatalf("fragment: %d\n%s", status, frag)
	}
	status, frag, _ = f.get(t, `/search?q=%22nil&frag=1`)
	if status != 400 || !strings.Contains(frag, "unterminated quote") {
		t.Fatalf("malformed query: %d %s", status, frag)
	}
	_, body, _ = f.get(t, "/search")
	mustContain(t, "empty search", body, "query syntax")
}

func TestContextAtABudget(t *testing.T) {
	f := newFixture(t, web.Options{})
	for i := 0; i < 60; i++ {
		f.add(t, memex.Entry{Session: "long", Project: "p", Agent: "claude-code", Kind: memex.KindTool, Tool: "Bash",
			Input: fmt.Sprintf("go test ./pkg%d", i), Exit: memex.IntPtr(i % 2), Created: t0.Add(time.Duration(i) * time.Second)},
			fmt.Sprintf("ok pkg%d 0.%02ds\n", i, i))
	}
	shown := func(budget int) string {
		t.Helper()
		status, frag, _ := f.get(t, fmt.Sprintf("/context?session=long&project=p&budget=%d&frag=1", budget))
		if status != 200 {
			t.Fatalf("budget %d: %d %s", budget, status, frag)
		}
		i := strings.Index(frag, `data-shown="`)
		return frag[i+len(`data-shown="`) : i+strings.Index(frag[i:], `">`)]
	}
	small, large := shown(400), shown(8000)
	if small == large || large != "60" {
		t.Fatalf("entries shown at 400 and 8000 tokens: %s, %s", small, large)
	}
	_, body, _ := f.get(t, "/context?session=long&project=p&budget=400")
	mustContain(t, "context page", body, `type="range"`, `value="400"`, "left out for the budget", `<a href="/e/`)
	status, frag, _ := f.get(t, "/context?session=long&budget=5&frag=1")
	if status != 422 || !strings.Contains(frag, "budget") {
		t.Fatalf("a budget too small: %d %s", status, frag)
	}
	_, body, _ = f.get(t, "/context")
	mustContain(t, "context without a choice", body, "Choose a project or a session", "<option>p</option>")
}

func TestEvalPage(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`)
	f := newFixture(t, web.Options{Evals: evals{{Name: "budget-1", Source: "/tmp/runs", Created: t0, Probes: 12, File: "p.jsonl", Plot: svg, Table: "strategy <b>"}}})
	_, body, _ := f.get(t, "/eval")
	mustContain(t, "eval", body, "budget-1", "12 probes", `src="data:image/svg&#43;xml;base64,`, "strategy &lt;b&gt;")
	if strings.Contains(body, "<svg") {
		t.Errorf("the plot is inlined as markup")
	}
	g := newFixture(t, web.Options{})
	_, body, _ = g.get(t, "/eval")
	mustContain(t, "no evals", body, "not available")
}

func TestAssetsAndUnknownPaths(t *testing.T) {
	f := newFixture(t, web.Options{})
	for _, a := range []struct{ path, ctype string }{{"/_/app.js", "text/javascript"}, {"/_/style.css", "text/css"}} {
		status, body, hdr := f.get(t, a.path)
		if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), a.ctype) || len(body) < 100 || hdr.Get("ETag") == "" {
			t.Errorf("GET %s: %d %s", a.path, status, hdr.Get("Content-Type"))
		}
	}
	if status, body, _ := f.get(t, "/nothing/here"); status != 404 || !strings.Contains(body, "<html") {
		t.Errorf("unknown path: %d", status)
	}
	if status, _, _ := f.get(t, "/_/nothing.js"); status != 404 {
		t.Errorf("unknown asset: %d", status)
	}
	_, body, _ := f.get(t, "/")
	mustContain(t, "empty archive", body, "Nothing archived yet")
}
