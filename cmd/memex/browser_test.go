package main

// End-to-end tests of the web viewer in a real headless Chromium, driven
// from Go with chromedp: a memex serve (its Run, in process, on a loopback
// port) over a store built from a synthetic transcript the test writes,
// plus the shared corpora when they are there. The tests open each page,
// use it as a person would (type a search, expand a step, click and
// shift-click line numbers, move the budget slider with the keyboard) and
// read what the page shows from the DOM.
//
// chromedp rather than playwright-core: it is a Go module like the rest of
// the project's dependencies, so `go test ./...` runs these tests with no
// Node, no npm install and no browser download; it drives the Chromium
// that Debian's chromium package puts on PATH through the DevTools
// protocol.
//
// Without Chromium on PATH the tests skip, saying so; with
// MEMEX_REQUIRE_BROWSER=1 (set by .ci/run) they fail instead.
// MEMEX_SCREENSHOTS=DIR writes a 1280x800 PNG of each page into DIR
// (relative to the module root: MEMEX_SCREENSHOTS=docs refreshes the
// README's pictures).

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/memex-archive/memex/internal/testutil"
)

// chromiumNames are the names Chromium has on PATH, Debian's first.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// chromiumPath finds Chromium on PATH, or skips t (fails it when
// MEMEX_REQUIRE_BROWSER=1).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MEMEX_REQUIRE_BROWSER") == "1" {
		t.Fatalf("MEMEX_REQUIRE_BROWSER=1 but none of %v is on PATH", chromiumNames)
	}
	t.Skipf("no Chromium on PATH (looked for %v): apt-get install chromium to run the viewer's browser tests", chromiumNames)
	return ""
}

// newBrowser starts a headless Chromium for the test and returns the
// context of its first tab; the browser stops at the test's end.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(t.TempDir()),
		// CI and this project's machines run as root, where Chromium's
		// sandbox cannot start; the pages come from the test's own server.
		chromedp.NoSandbox,
		chromedp.DisableGPU,
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first action starts the browser; it must not carry a deadline.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// tab opens a new tab of the browser of parent for one subtest, with a
// deadline so that a page that never shows what is awaited fails the
// test instead of hanging it.
func tab(t *testing.T, parent context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelT)
	return ctx
}

func do(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// js evaluates a JavaScript expression in the page.
func js[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[T](expr))
}

// waitFor waits until the expression is truthy in the page (the browser
// checks it at each frame); it fails the test at the tab's deadline.
func waitFor(t *testing.T, ctx context.Context, expr string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingTimeout(45*time.Second))); err != nil {
		t.Fatalf("waiting for %s: %v", expr, err)
	}
}

// screenshot writes the viewport as DIR/viewer-NAME.png when
// MEMEX_SCREENSHOTS=DIR is set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("MEMEX_SCREENSHOTS")
	if dir == "" {
		return
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(testutil.ModuleRoot(), dir)
	}
	png := get(t, ctx, chromedp.CaptureScreenshot())
	p := filepath.Join(dir, "viewer-"+name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", p, len(png))
}

// viewerFixture is what the browser tests know of the store they serve.
type viewerFixture struct {
	home    string
	base    string // http://127.0.0.1:PORT
	ids     map[string]string
	entries int // in session nil-map-fix
	corpora bool
}

// stepOf is the selector of the step of a session's page that shows
// the entry id.
func stepOf(id string) string { return `li.step:has(a.id[href="/e/` + id + `"])` }

// navigate runs an action that makes the page load another (a click on a
// link or a submit button) and waits for that page.
func navigate(t *testing.T, ctx context.Context, a chromedp.Action[chromedp.Void]) {
	t.Helper()
	if _, err := chromedp.RunResponse(ctx, a); err != nil {
		t.Fatal(err)
	}
}

// scriptBody is a transcript's tool output that holds markup: the viewer
// must show it as text.
const scriptBody = `<script>window.pwned = 1; document.title = "pwned";</script>
<img src="x" onerror="window.pwned = 2">
</pre></code><b id="injected">bold?</b>
`

// readBody is a file read of 300 numbered lines, for line ranges.
func readBody() string {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "line %d: func step%d() error { return nil }\n", i, i)
	}
	return b.String()
}

// syntheticTranscript is the generic JSONL of three sessions in two
// projects by three agents: a failure, a compaction, a long file read, a
// transcript holding <script>, a binary output.
func syntheticTranscript() string {
	type line struct {
		Project string            `json:"project"`
		Session string            `json:"session"`
		Agent   string            `json:"agent"`
		Kind    string            `json:"kind"`
		Tool    string            `json:"tool,omitempty"`
		Input   string            `json:"input,omitempty"`
		Content string            `json:"content"`
		Exit    *int              `json:"exit,omitempty"`
		Time    string            `json:"time"`
		Key     string            `json:"key,omitempty"`
		Attrs   map[string]string `json:"attrs,omitempty"`
	}
	one, zero := 1, 0
	lines := []line{
		{Project: "demo", Session: "codex-refactor", Agent: "codex", Kind: "message", Content: "Rename LoadConfig to Load and keep the old name as a wrapper.", Time: "2026-11-26T12:00:00Z"},
		{Project: "demo", Session: "codex-refactor", Agent: "codex", Kind: "tool", Tool: "shell", Input: "gofmt -l .", Content: "", Exit: &zero, Time: "2026-11-26T12:01:00Z"},
		{Project: "other", Session: "swe-task", Agent: "swe-agent", Kind: "tool", Tool: "bash", Input: "pytest tests/test_parse.py", Content: "1 passed in 0.02s\n", Exit: &zero, Time: "2026-11-27T12:00:00Z"},
		{Project: "demo", Session: "nil-map-fix", Agent: "claude-code", Kind: "message", Content: "Fix the panic when the config file has no [server] section.", Time: "2026-11-28T12:00:00Z"},
		{Project: "demo", Session: "nil-map-fix", Agent: "claude-code", Kind: "tool", Tool: "Bash", Input: "go test ./config", Exit: &one, Key: "t-fail", Time: "2026-11-28T12:01:00Z",
			Content: "--- FAIL: TestLoadEmptyServer (0.00s)\npanic: assignment to entry in nil map\n\ngoroutine 7 [running]:\ndemo/config.(*Config).set(...)\n\tconfig/load.go:42\nFAIL\tdemo/config\t0.011s\n"},
		{Project: "demo", Session: "nil-map-fix", Agent: "claude-code", Kind: "tool", Tool: "Read", Input: "config/load.go", Key: "t-read", Time: "2026-11-28T12:02:00Z", Content: readBody()},
		{Project: "demo", Session: "nil-map-fix", Agent: "claude-code", Kind: "event", Content: "compact_boundary trigger=auto pre_tokens=151000", Attrs: map[string]string{"event": "compact_boundary"}, Time: "2026-11-28T12:03:00Z"},
		{Project: "demo", Session: "nil-map-fix", Agent: "claude-code", Kind: "tool", Tool: "Bash", Input: "cat testdata/page.html", Key: "t-script", Exit: &zero, Time: "2026-11-28T12:04:00Z", Content: scriptBody},
		{Project: "demo", Session: "nil-map-fix", Agent: "claude-code", Kind: "tool", Tool: "Bash", Input: "head -c 16 testdata/logo.png", Key: "t-bin", Exit: &zero, Time: "2026-11-28T12:05:00Z", Content: "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"},
		{Project: "demo", Session: "nil-map-fix", Agent: "claude-code", Kind: "tool", Tool: "Bash", Input: "go test ./config", Exit: &zero, Time: "2026-11-28T12:06:00Z", Content: "ok  \tdemo/config\t0.012s\n"},
	}
	var b strings.Builder
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// newViewerFixture builds a home from the synthetic transcript and, when
// the shared corpora are there, some of their transcripts; saves an eval
// run; makes sure the index holds everything; and serves it.
func newViewerFixture(t *testing.T) *viewerFixture {
	t.Helper()
	f := &viewerFixture{home: t.TempDir(), ids: map[string]string{}}
	dir := t.TempDir()
	transcript := filepath.Join(dir, "synthetic.jsonl")
	if err := os.WriteFile(transcript, []byte(syntheticTranscript()), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, f.home, "ingest", "jsonl", transcript, "-q")
	if corpora := testutil.CorporaDir(); corpora != "" {
		f.corpora = true
		mustRun(t, f.home, "ingest", "claude-code", filepath.Join(corpora, "claude-code", "projects", "-Users-dain-workspace-claude-code-log-sample"), "-q")
		mustRun(t, f.home, "ingest", "codex", filepath.Join(corpora, "codex", "session-01.jsonl"), "-q")
		mustRun(t, f.home, "ingest", "auto", filepath.Join(corpora, "mini-swe-agent", "sympy__sympy-23534"),
			filepath.Join(corpora, "mini-swe-agent", "django__django-11848"), "-q")
	}
	for _, key := range []string{"t-fail", "t-read", "t-script", "t-bin"} {
		var e struct {
			ID string `json:"id"`
		}
		r := mustRun(t, f.home, "show", key, "--json", "--project", "demo")
		if err := json.Unmarshal([]byte(r.stdout), &e); err != nil || e.ID == "" {
			t.Fatalf("show %s --json: %v: %s", key, err, r.stdout)
		}
		f.ids[key] = e.ID
	}
	var list struct {
		Sessions []struct {
			Session string `json:"session"`
			Entries int    `json:"entries"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, f.home, "sessions", "--json", "--project", "demo").stdout), &list); err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Sessions {
		if s.Session == "nil-map-fix" {
			f.entries = s.Entries
		}
	}
	// An eval run for the eval page: the failure probe of the synthetic
	// session, at two budgets.
	probes := filepath.Join(dir, "probes.jsonl")
	probe := `{"id":"nil-map-fix#failure-1","project":"demo","session":"nil-map-fix","at":"6","query":"go test ./config error","answer":"panic: assignment to entry in nil map","kind":"failure"}` + "\n"
	budgets := "300,2000"
	if f.corpora {
		// With the corpora, the probes of two real sessions too: a plot
		// worth a picture.
		probe += mustRun(t, f.home, "eval", "probes", "sympy__sympy-23534", "django__django-11848", "--seed", "3").stdout
		budgets = "300,1000,2000,4000"
	}
	if err := os.WriteFile(probes, []byte(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, f.home, "eval", "budget", "--probes", probes, "--budgets", budgets, "--save")
	// A search indexes what is not yet indexed before it answers: after
	// it the server's index holds every entry, and a search typed into
	// the page does not race the background catch-up.
	mustRun(t, f.home, "search", "nil map")
	f.base = "http://" + startServe(t, f.home)
	return f
}

func mustRun(t *testing.T, home string, args ...string) result {
	t.Helper()
	r := run(t, home, nil, args...)
	if r.code != 0 {
		t.Fatalf("memex %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

func TestViewerInBrowser(t *testing.T) {
	browser := newBrowser(t)
	f := newViewerFixture(t)

	t.Run("sessions page lists and filters", func(t *testing.T) {
		ctx := tab(t, browser)
		do(t, ctx, chromedp.Navigate(f.base+"/"), chromedp.WaitVisible(chromedp.ID("sessions")))
		names := js[[]string](t, ctx, `[...document.querySelectorAll("tr.session")].map(r => r.dataset.session)`)
		for _, want := range []string{"nil-map-fix", "codex-refactor", "swe-task"} {
			if !contains(names, want) {
				t.Errorf("sessions page lists %v, not %s", names, want)
			}
		}
		row := js[[]string](t, ctx, `[...document.querySelectorAll('tr.session[data-session="nil-map-fix"] td')].map(td => td.textContent.trim())`)
		// agent project session start length entries tokens failures compactions day
		if want := strconv.Itoa(f.entries); len(row) < 9 || row[0] != "claude-code" || row[1] != "demo" || row[5] != want || row[7] != "1" || row[8] != "1" {
			t.Errorf("nil-map-fix row = %q, want claude-code, demo, %s entries, 1 failure, 1 compaction", row, want)
		}
		if !f.corpora {
			screenshot(t, ctx, "sessions")
		}
		// Filter by agent with the form, as a person would.
		do(t, ctx, chromedp.SetValue(chromedp.CSS(`select[name="agent"]`), "codex"))
		navigate(t, ctx, chromedp.Click(chromedp.CSS(`form.filters button`)))
		if q := js[string](t, ctx, `location.search`); !strings.Contains(q, "agent=codex") {
			t.Errorf("the filter form went to %s", q)
		}
		names = js[[]string](t, ctx, `[...document.querySelectorAll("tr.session")].map(r => r.dataset.session)`)
		agents := js[[]string](t, ctx, `[...document.querySelectorAll("tr.session td:first-child")].map(td => td.textContent.trim())`)
		if !contains(names, "codex-refactor") || contains(names, "nil-map-fix") {
			t.Errorf("agent=codex lists %v", names)
		}
		for _, a := range agents {
			if a != "codex" {
				t.Errorf("agent=codex lists a session of %s", a)
			}
		}
		// By project and date.
		do(t, ctx, chromedp.Navigate(f.base+"/?project=demo&from=2026-11-28&to=2026-11-28"), chromedp.WaitVisible(chromedp.ID("totals")))
		names = js[[]string](t, ctx, `[...document.querySelectorAll("tr.session")].map(r => r.dataset.session)`)
		if len(names) != 1 || names[0] != "nil-map-fix" {
			t.Errorf("project=demo on 2026-11-28 lists %v, want [nil-map-fix]", names)
		}
		if f.corpora {
			do(t, ctx, chromedp.Navigate(f.base+"/"), chromedp.WaitVisible(chromedp.ID("sessions")))
			screenshot(t, ctx, "sessions")
		}
	})

	t.Run("session page marks failures and compactions and expands a step", func(t *testing.T) {
		ctx := tab(t, browser)
		do(t, ctx, chromedp.Navigate(f.base+"/s/nil-map-fix?project=demo"), chromedp.WaitVisible(chromedp.ID("steps")))
		if n := js[int](t, ctx, `document.querySelectorAll("li.step").length`); n != f.entries {
			t.Errorf("%d steps, want %d", n, f.entries)
		}
		failed := js[[]string](t, ctx, `[...document.querySelectorAll("li.step.failed .id")].map(a => a.textContent)`)
		if len(failed) != 1 || failed[0] != f.ids["t-fail"] {
			t.Errorf("steps marked failed: %v, want [%s]", failed, f.ids["t-fail"])
		}
		// The compaction mark stands right before the compaction's entry.
		next := js[string](t, ctx, `(() => { const c = document.querySelectorAll("li.compaction"); return c.length + " " + c[0].textContent + ": " + c[0].nextElementSibling.querySelector(".kind").textContent })()`)
		if next != "1 context compacted here: event" {
			t.Errorf("compaction mark: %q, want one, before the compaction event", next)
		}
		// Expand the failure in place: its output, numbered.
		fail := stepOf(f.ids["t-fail"])
		do(t, ctx, chromedp.Click(chromedp.CSS(fail+` summary`)), chromedp.WaitVisible(chromedp.CSS(fail+` .peek pre.code`)))
		if peek := get(t, ctx, chromedp.Text(chromedp.CSS(fail+` .peek`))); !strings.Contains(peek, "panic: assignment to entry in nil map") {
			t.Errorf("expanded failure shows %q", peek)
		}
		screenshot(t, ctx, "session")
		// And the file read: its first lines, with a link to the rest.
		read := stepOf(f.ids["t-read"])
		do(t, ctx, chromedp.Click(chromedp.CSS(read+` summary`)), chromedp.WaitVisible(chromedp.CSS(read+` .peek pre.code`)))
		peek := get(t, ctx, chromedp.Text(chromedp.CSS(read+` .peek`)))
		if !strings.Contains(peek, "line 1: func step1() error") || !strings.Contains(peek, "all 300 lines") {
			t.Errorf("expanded step shows %q", peek)
		}
		// A line number of the expanded step opens the entry at that line.
		navigate(t, ctx, chromedp.Click(chromedp.CSS(read+` .peek a.ln[href$="#L7"]`)))
		waitFor(t, ctx, `location.pathname === "/e/`+f.ids["t-read"]+`" && location.hash === "#L7" && document.querySelector(".line.sel")`)
		if sel := js[[]string](t, ctx, `[...document.querySelectorAll(".line.sel")].map(l => l.id)`); len(sel) != 1 || sel[0] != "L7" {
			t.Errorf("lines marked after following #L7: %v", sel)
		}
	})

	t.Run("session page follows a live session", func(t *testing.T) {
		ctx := tab(t, browser)
		do(t, ctx, chromedp.Navigate(f.base+"/s/swe-task?project=other"), chromedp.WaitVisible(chromedp.ID("live")))
		if n := js[int](t, ctx, `document.querySelectorAll("li.step").length`); n != 1 {
			t.Fatalf("%d steps, want 1", n)
		}
		// A hook archiving an entry while the page is open: memex add
		// goes through the running server.
		r := run(t, f.home, []byte("FAILED tests/test_parse.py::test_empty - KeyError: 'name'\n"),
			"add", "--project", "other", "--session", "swe-task", "--agent", "swe-agent", "--tool", "bash", "--input", "pytest -x", "--exit", "1")
		if r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
		id := strings.TrimSpace(r.stdout)
		waitFor(t, ctx, `document.querySelector("#step-1 a.id") && document.querySelector("#count").textContent === "2"`)
		if got := get(t, ctx, chromedp.Text(chromedp.CSS(`#step-1 a.id`))); got != id {
			t.Errorf("the new step shows %s, want %s", got, id)
		}
		if cls := js[string](t, ctx, `document.getElementById("step-1").className`); !strings.Contains(cls, "failed") || !strings.Contains(cls, "new") {
			t.Errorf("the new step's class is %q, want it marked new and failed", cls)
		}
	})

	t.Run("entry page numbers lines and links a range", func(t *testing.T) {
		ctx := tab(t, browser)
		id := f.ids["t-read"]
		do(t, ctx, chromedp.Navigate(f.base+"/e/"+id), chromedp.WaitVisible(chromedp.ID("code")))
		header := get(t, ctx, chromedp.Text(chromedp.ID("header")))
		for _, want := range []string{"nil-map-fix", "demo", "claude-code", "Read", "config/load.go", "300 lines", "redacted\t0"} {
			if !strings.Contains(header, want) {
				t.Errorf("header %q lacks %q", header, want)
			}
		}
		if n := js[int](t, ctx, `document.querySelectorAll("#code .line").length`); n != 300 {
			t.Errorf("%d numbered lines, want 300", n)
		}
		// Click line 120, shift-click line 140.
		l120 := get(t, ctx, chromedp.Nodes(chromedp.CSS(`#L120 a.ln`)))
		l140 := get(t, ctx, chromedp.Nodes(chromedp.CSS(`#L140 a.ln`)))
		do(t, ctx, chromedp.MouseClickNode(l120[0]), chromedp.MouseClickNode(l140[0], chromedp.ButtonModifiers(chromedp.ModifierShift)))
		waitFor(t, ctx, `location.hash === "#L120-L140"`)
		link := get(t, ctx, chromedp.Text(chromedp.ID("range-link")))
		cmd := get(t, ctx, chromedp.Text(chromedp.ID("range-cmd")))
		if link != f.base+"/e/"+id+"#L120-L140" || cmd != "memex show "+id+" --lines 120:140" {
			t.Errorf("range offers %q and %q", link, cmd)
		}
		// Follow the link from another page: the same lines are marked,
		// and they are what memex show prints.
		do(t, ctx, chromedp.Navigate(f.base+"/"), chromedp.Navigate(link), chromedp.WaitVisible(chromedp.ID("range")))
		sel := js[[]string](t, ctx, `[...document.querySelectorAll(".line.sel .lc")].map(l => l.textContent)`)
		shown := mustRun(t, f.home, "show", id, "--lines", "120:140").stdout
		if strings.Join(sel, "\n")+"\n" != shown {
			t.Errorf("marked lines:\n%s\nmemex show --lines 120:140:\n%s", strings.Join(sel, "\n"), shown)
		}
		if top := js[float64](t, ctx, `document.getElementById("L120").getBoundingClientRect().top`); top < 0 || top > 800 {
			t.Errorf("line 120 is at %v px, not in the viewport", top)
		}
		if os.Getenv("MEMEX_SCREENSHOTS") != "" {
			// The picture: the header and a range near the top.
			do(t, ctx, chromedp.Navigate(f.base+"/"), chromedp.Navigate(f.base+"/e/"+id+"#L5-L8"), chromedp.WaitVisible(chromedp.ID("range")))
			js[chromedp.Void](t, ctx, `window.scrollTo(0, 0)`)
			screenshot(t, ctx, "entry")
		}
	})

	t.Run("entry page shows binary content as a note with a download", func(t *testing.T) {
		ctx := tab(t, browser)
		id := f.ids["t-bin"]
		do(t, ctx, chromedp.Navigate(f.base+"/e/"+id), chromedp.WaitVisible(chromedp.ID("binary")))
		note := get(t, ctx, chromedp.Text(chromedp.ID("binary")))
		href := js[string](t, ctx, `document.querySelector("#binary a[download]").getAttribute("href")`)
		if !strings.Contains(note, "Binary content") || href != "/e/"+id+"/raw" {
			t.Errorf("binary note %q, download %q", note, href)
		}
		if n := js[int](t, ctx, `document.querySelectorAll("#code").length`); n != 0 {
			t.Error("binary content shown as lines")
		}
	})

	t.Run("a transcript holding script renders as text", func(t *testing.T) {
		ctx := tab(t, browser)
		id := f.ids["t-script"]
		for _, page := range []string{"/e/" + id, "/s/nil-map-fix?project=demo", "/search?q=onerror"} {
			do(t, ctx, chromedp.Navigate(f.base+page), chromedp.WaitReady(chromedp.CSS(`footer`)))
			if strings.HasPrefix(page, "/s/") {
				step := stepOf(id)
				do(t, ctx, chromedp.Click(chromedp.CSS(step+` summary`)), chromedp.WaitVisible(chromedp.CSS(step+` .peek pre.code`)))
			}
			got := js[map[string]any](t, ctx, `({pwned: window.pwned === undefined ? 0 : window.pwned, title: document.title,
				scripts: [...document.scripts].map(s => s.getAttribute("src")), injected: document.querySelectorAll("#injected, main img:not(.plot)").length,
				text: document.querySelector("main").textContent})`)
			if got["pwned"] != float64(0) || strings.Contains(got["title"].(string), "pwned") || got["injected"] != float64(0) {
				t.Errorf("%s: content ran or became markup: %v", page, got)
			}
			if s := fmt.Sprint(got["scripts"]); s != "[/_/app.js]" {
				t.Errorf("%s: scripts %s, want only /_/app.js", page, s)
			}
			// The search's snippet is a window around the word searched.
			if text := got["text"].(string); !strings.Contains(text, `<script>window.pwned = 1;`) && !strings.Contains(text, `<img src="x" onerror="window.pwned = 2">`) {
				t.Errorf("%s: the markup is not shown as text", page)
			}
		}
	})

	t.Run("search as you type", func(t *testing.T) {
		ctx := tab(t, browser)
		do(t, ctx, chromedp.Navigate(f.base+"/search"), chromedp.WaitVisible(chromedp.ID("q")))
		do(t, ctx, chromedp.SendKeys(chromedp.ID("q"), "nil map"))
		// No submit: the page asks as the words are typed.
		waitFor(t, ctx, `document.querySelector("#hits a.id[href='/e/`+f.ids["t-fail"]+`']")`)
		if !strings.HasSuffix(js[string](t, ctx, `location.search`), "q=nil+map") {
			t.Errorf("the address does not keep the query: %s", js[string](t, ctx, `location.href`))
		}
		marks := js[[]string](t, ctx, `[...document.querySelectorAll("#hits mark")].map(m => m.textContent.toLowerCase())`)
		if !contains(marks, "nil") || !contains(marks, "map") {
			t.Errorf("marked words %v", marks)
		}
		screenshot(t, ctx, "search")
		// The CLI's syntax: a field filter narrows the hits.
		do(t, ctx, chromedp.SendKeys(chromedp.ID("q"), " exit:0"))
		waitFor(t, ctx, `new URLSearchParams(location.search).get("q") === "nil map exit:0" && !document.querySelector("#hits a.id[href='/e/`+f.ids["t-fail"]+`']")`)
		// A query malformed for a moment says what is wrong.
		do(t, ctx, chromedp.Clear(chromedp.ID("q")), chromedp.SendKeys(chromedp.ID("q"), `"nil map`))
		waitFor(t, ctx, `document.querySelector("#results #problem")`)
	})

	t.Run("context page moves with the budget slider", func(t *testing.T) {
		ctx := tab(t, browser)
		do(t, ctx, chromedp.Navigate(f.base+"/context?project=demo&session=nil-map-fix&budget=2000"), chromedp.WaitVisible(chromedp.ID("totals")))
		shownAt := func() (budget, shown int) {
			attrs := get(t, ctx, chromedp.Attributes(chromedp.ID("totals")))
			b, _ := strconv.Atoi(attrs["data-budget"])
			s, _ := strconv.Atoi(attrs["data-shown"])
			return b, s
		}
		b, all := shownAt()
		text := get(t, ctx, chromedp.Text(chromedp.ID("context-text")))
		if b != 2000 || all == 0 || !strings.Contains(text, f.ids["t-fail"]) {
			t.Fatalf("at budget %d, %d entries shown: %q", b, all, text)
		}
		// The keyboard moves the slider: Home to the least budget.
		do(t, ctx, chromedp.Focus(chromedp.ID("budget")), chromedp.KeyEvent(kb.Home))
		waitFor(t, ctx, `(document.querySelector("#totals[data-budget='200']") || document.querySelector("#context-result #problem")) && new URLSearchParams(location.search).get("budget") === "200"`)
		if out := get(t, ctx, chromedp.Text(chromedp.ID("budget-value"))); out != "200" {
			t.Errorf("the slider's figure says %q, want 200", out)
		}
		if js[bool](t, ctx, `!!document.getElementById("totals")`) {
			if _, few := shownAt(); few >= all {
				t.Errorf("%d entries at 200 tokens, %d at 2,000", few, all)
			}
		}
		// Right arrow steps it up by 100.
		do(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
		waitFor(t, ctx, `document.querySelector("#totals[data-budget='300']")`)
		do(t, ctx, chromedp.KeyEvent(kb.End))
		waitFor(t, ctx, `document.querySelector("#totals[data-budget='20000']")`)
		if _, most := shownAt(); most < all {
			t.Errorf("%d entries at 20,000 tokens, %d at 2,000", most, all)
		}
		// Entry IDs in the summary are links.
		if n := js[int](t, ctx, `document.querySelectorAll("#context-text a[href='/e/`+f.ids["t-fail"]+`']").length`); n == 0 {
			t.Errorf("%d links to the failure in the context", n)
		}
		do(t, ctx, chromedp.Navigate(f.base+"/context?project=demo&session=nil-map-fix&budget=600"), chromedp.WaitVisible(chromedp.ID("totals")))
		screenshot(t, ctx, "context")
	})

	t.Run("eval page shows saved runs with their plots", func(t *testing.T) {
		ctx := tab(t, browser)
		do(t, ctx, chromedp.Navigate(f.base+"/eval"), chromedp.WaitVisible(chromedp.CSS(`section.run img.plot`)))
		got := js[map[string]any](t, ctx, `(() => { const img = document.querySelector("img.plot"); return {loaded: img.complete && img.naturalWidth > 0,
			meta: document.querySelector("section.run .meta").textContent, table: document.querySelector("section.run details pre").textContent} })()`)
		if got["loaded"] != true || !strings.Contains(got["meta"].(string), " probes from ") || !strings.Contains(got["table"].(string), "hit rate") {
			t.Errorf("eval page: %v", got)
		}
		screenshot(t, ctx, "eval")
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestViewerSignInInBrowser: a server that requires a token shows a
// browser its sign-in form; the token typed there opens the viewer's
// pages (as a cookie the browser keeps), and that cookie does not open
// the API.
func TestViewerSignInInBrowser(t *testing.T) {
	browser := newBrowser(t)
	home := t.TempDir()
	const token = "0123456789abcdef0123"
	tokFile := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tokFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := "http://" + startServe(t, home, "--token-file", tokFile)
	if r := run(t, home, []byte("kept behind the token\n"), "add", "--session", "guarded", "--project", "demo", "--agent", "cli"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	ctx := tab(t, browser)

	do(t, ctx, chromedp.Navigate(base+"/s/guarded?project=demo"), chromedp.WaitVisible(chromedp.CSS(`input[name="token"]`)))
	if n := js[int](t, ctx, `document.querySelectorAll("#steps").length`); n != 0 {
		t.Fatal("the session's page was shown without the token")
	}
	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), "not the token"))
	navigate(t, ctx, chromedp.Click(chromedp.CSS(`button[type="submit"]`)))
	do(t, ctx, chromedp.WaitVisible(chromedp.ID("wrong")))

	do(t, ctx, chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), token))
	navigate(t, ctx, chromedp.Click(chromedp.CSS(`button[type="submit"]`)))
	// Back where it was asked for, signed in.
	do(t, ctx, chromedp.WaitVisible(chromedp.ID("steps")))
	if p := js[string](t, ctx, `location.pathname + location.search`); p != "/s/guarded?project=demo" {
		t.Errorf("signed in at %s, want /s/guarded?project=demo", p)
	}
	if n := js[int](t, ctx, `document.querySelectorAll("li.step").length`); n != 1 {
		t.Errorf("%d steps, want 1", n)
	}
	// The cookie is HttpOnly: the page's scripts cannot read it.
	if c := js[string](t, ctx, `document.cookie`); c != "" {
		t.Errorf("document.cookie = %q", c)
	}
	// Other pages open with it; the API does not.
	do(t, ctx, chromedp.Navigate(base+"/search"), chromedp.WaitVisible(chromedp.ID("q")))
	status := get(t, ctx, chromedp.Evaluate[int](`fetch("/v1/stats").then(r => r.status)`, chromedp.EvalAwaitPromise))
	if status != 401 {
		t.Errorf("GET /v1/stats with the viewer's cookie: %d, want 401", status)
	}
}
