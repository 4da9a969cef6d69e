package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api/web"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/testutil"
)

// benchEntries is the size of the store the viewer's benchmarks read: the
// issue's "first page of a 100,000-entry store".
const benchEntries = 100_000

// benchStore is a store of benchEntries entries: 999 sessions of 80 tool
// calls, messages and reasoning blocks (a failure every 9th, a compaction
// in every session), in 40 projects by 4 agents over 100 days, and one
// long session that holds the rest, as an agent left running for days
// leaves. It returns the store, the long session and one entry of it.
func benchStore(b *testing.B) (*archive.Store, memex.SessionRef, memex.ID) {
	b.Helper()
	s, err := archive.Open(b.TempDir(), &archive.Options{NoSync: true, MinFree: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	ctx := context.Background()
	agents := []string{"claude-code", "codex", "gemini", "opencode"}
	start := time.Date(2026, 8, 1, 9, 0, 0, 0, time.UTC)
	const sessions, per = 999, 80
	add := func(ref memex.SessionRef, n int, at time.Time) memex.Entry {
		e := memex.Entry{Session: ref.Session, Project: ref.Project, Agent: ref.Agent, Created: at}
		var body string
		switch {
		case n%20 == 10:
			e.Kind, e.Attrs = memex.KindEvent, map[string]string{"event": "compact_boundary"}
			body = "compact_boundary trigger=auto pre_tokens=150000\n"
		case n%4 == 0:
			e.Kind = memex.KindMessage
			body = fmt.Sprintf("Step %d of %s: look at the failing test and the config loader.\n", n, ref.Session)
		case n%9 == 0:
			e.Kind, e.Tool, e.Input, e.Exit = memex.KindTool, "Bash", "go test ./...", memex.IntPtr(1)
			body = fmt.Sprintf("--- FAIL: TestLoad%d (0.00s)\n    load_test.go:%d: got nil map\nFAIL\tdemo/config\t0.01%ds\n", n, n, n%10)
		default:
			e.Kind, e.Tool, e.Input, e.Exit = memex.KindTool, "Read", fmt.Sprintf("internal/pkg%d/file%d.go", n%13, n), memex.IntPtr(0)
			var sb strings.Builder
			for l := range 12 + n%30 {
				fmt.Fprintf(&sb, "%d\tfunc f%d_%d(x int) int { return x * %d }\n", l+1, n, l, l)
			}
			body = sb.String()
		}
		got, err := s.Add(ctx, e, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		return got
	}
	for i := range sessions {
		ref := memex.SessionRef{Session: fmt.Sprintf("session-%04d", i), Project: fmt.Sprintf("github.com/acme/repo%02d", i%40), Agent: agents[i%len(agents)]}
		at := start.Add(time.Duration(i) * 144 * time.Minute)
		for n := range per {
			add(ref, n, at.Add(time.Duration(n)*20*time.Second))
		}
	}
	long := memex.SessionRef{Session: "long-running", Project: "github.com/acme/repo00", Agent: "claude-code"}
	var mid memex.ID
	rest := benchEntries - sessions*per
	for n := range rest {
		e := add(long, n, start.Add(time.Duration(n)*time.Minute))
		if n == rest/2 {
			mid = e.ID
		}
	}
	if err := s.Sync(); err != nil {
		b.Fatal(err)
	}
	return s, long, mid
}

// BenchmarkViewer100k times the viewer's pages on a 100,000-entry store,
// from the request to the last byte of the answer (no network: the
// handler is called directly). Each sub-benchmark reports the page's size
// and the CPU time the process spent per page.
//
//	go test ./api/web -run '^$' -bench Viewer100k -benchtime 20x
//
// docs/viewer.md has the figures.
func BenchmarkViewer100k(b *testing.B) {
	s, long, mid := benchStore(b)
	ctx := context.Background()
	if list, err := s.Sessions(ctx); err != nil || len(list) != 1000 {
		b.Fatalf("%d sessions, %v", len(list), err)
	}
	newViewer := func() *web.Viewer {
		v, err := web.New(web.Options{Store: s, Catalog: catalog{s}})
		if err != nil {
			b.Fatal(err)
		}
		return v
	}
	get := func(b *testing.B, v *web.Viewer, path string) int {
		w := httptest.NewRecorder()
		v.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusOK {
			b.Fatalf("GET %s: %d %s", path, w.Code, w.Body.String()[:min(300, w.Body.Len())])
		}
		return w.Body.Len()
	}
	// The machine is shared: CPU time per page beside the wall clock
	// says what the page costs when the cores are free.
	var cpu0 float64
	report := func(b *testing.B, size int) {
		b.ReportMetric(float64(size), "bytes/page")
		b.ReportMetric(1000*(testutil.CPUSeconds()-cpu0)/float64(b.N), "cpu-ms/op")
	}

	// A server just started: the figures of the page's 50 sessions are
	// read from their entries.
	b.Run("sessions-first-page-cold", func(b *testing.B) {
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, newViewer(), "/")
		}
		report(b, size)
	})
	// The figures kept from an earlier request: the session keys alone.
	b.Run("sessions-first-page-warm", func(b *testing.B) {
		v := newViewer()
		get(b, v, "/")
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, v, "/")
		}
		report(b, size)
	})
	b.Run("sessions-filtered-by-project", func(b *testing.B) {
		v := newViewer()
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, v, "/?project=github.com/acme/repo07")
		}
		report(b, size)
	})
	b.Run("session-of-80", func(b *testing.B) {
		v := newViewer()
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, v, "/s/session-0500")
		}
		report(b, size)
	})
	b.Run(fmt.Sprintf("session-of-%d-first-page", benchEntries-999*80), func(b *testing.B) {
		v := newViewer()
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, v, "/s/"+long.Session)
		}
		report(b, size)
	})
	b.Run(fmt.Sprintf("session-of-%d-live-poll", benchEntries-999*80), func(b *testing.B) {
		v := newViewer()
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, v, fmt.Sprintf("/s/%s?after=%d&frag=1", long.Session, benchEntries-999*80))
		}
		report(b, size)
	})
	b.Run("entry", func(b *testing.B) {
		v := newViewer()
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, v, "/e/"+mid.String())
		}
		report(b, size)
	})
	b.Run("context-of-the-long-session-4000", func(b *testing.B) {
		v := newViewer()
		var size int
		cpu0 = testutil.CPUSeconds()
		for b.Loop() {
			size = get(b, v, "/context?session="+long.Session+"&project="+long.Project+"&budget=4000&frag=1")
		}
		report(b, size)
	})
}
