// Package servicetest is the conformance suite of api.Service: one set of
// tests that every implementation must pass (the Local one over a home,
// the one that locks the home per call, and api.Client over a server built
// on either), so that a command answers the same whether it reads the
// store itself or goes through a running memex serve. Each test names a
// difference that once shipped between the two paths.
package servicetest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
)

// Factory returns a Service over a new, empty archive; the test's cleanup
// releases it.
type Factory func(t *testing.T) api.Service

// Run runs every test of the suite against the Services new returns.
func Run(t *testing.T, new Factory) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, api.Service)
	}{
		{"AddThenRead", testAddThenRead},
		{"AddRedactsBodyAndAttrs", testAddRedacts},
		{"AddNoRedact", testAddNoRedact},
		{"EntryUnknown", testEntryUnknown},
		{"LinesRange", testLinesRange},
		{"Show", testShow},
		{"SearchTook", testSearchTook},
		{"SearchSessions", testSearchSessions},
		{"SearchMalformedIsInvalid", testSearchMalformed},
		{"SearchBeforeAfterAlias", testSearchBounds},
		{"SearchAfterUnknownAlias", testSearchUnknownBound},
		{"SearchSessionPrefix", testSearchSessionPrefix},
		{"ReplaySessionWithSlash", testReplaySlash},
		{"ReplayUnknown", testReplayUnknown},
		{"Sessions", testSessions},
		{"SessionsSinceLimit", testSessionsSinceLimit},
		{"ReplayPrefix", testReplayPrefix},
		{"Stats", testStats},
		{"Deref", testDeref},
		{"DerefEmptyIsInvalid", testDerefEmpty},
		{"DerefBinaryBase64", testDerefBase64},
		{"Context", testContext},
		{"ContextUnknown", testContextUnknown},
		{"ContextOfOneAgentsSession", testContextAgent},
		{"ForgetCountsThenForgets", testForget},
		{"ForgetUnknownSession", testForgetUnknown},
		{"ForgetOneAgentsSession", testForgetAgent},
		{"ForgetTakesWholeSessionNames", testForgetPrefix},
		{"ForgetIDsAndASessionIsInvalid", testForgetAmbiguous},
		{"Verify", testVerify},
		{"Reindex", testReindex},
		{"IngestThenRead", testIngest},
		{"IngestAgainAddsNothing", testIngestAgain},
		{"IngestNoRedact", testIngestNoRedact},
		{"IngestOtherContentIsDiffer", testIngestDiffer},
		{"IngestWarningsCapped", testIngestWarningsCapped},
		{"IngestInvalid", testIngestInvalid},
		{"ErrorSentences", testErrorSentences},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, new(t)) })
	}
}

const failing = "--- FAIL: TestParse nil map\n"

// fill adds the suite's three entries: two in session "team/feature"
// (a name holding '/'), one in "plain", aliased first, second, third.
func fill(t *testing.T, s api.Service) []memex.Entry {
	t.Helper()
	var out []memex.Entry
	for _, e := range []memex.Entry{
		{Session: "team/feature", Aliases: []string{"first"}, Kind: memex.KindTool, Tool: "bash", Input: "go test", Exit: memex.IntPtr(1)},
		{Session: "team/feature", Aliases: []string{"second"}, Kind: memex.KindNote},
		{Session: "plain", Aliases: []string{"third"}, Kind: memex.KindNote},
	} {
		e.Project, e.Agent = "p", "cli"
		got := add(t, s, e, failing+strings.Repeat("ok line\n", 50))
		out = append(out, got)
	}
	return out
}

func add(t *testing.T, s api.Service, e memex.Entry, body string) memex.Entry {
	t.Helper()
	got, err := s.Add(context.Background(), api.AddRequest{Entry: e, Body: strings.NewReader(body)})
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	return got
}

func lines(t *testing.T, s api.Service, req api.LinesRequest) string {
	t.Helper()
	rc, err := s.Lines(context.Background(), req)
	if err != nil {
		t.Fatalf("lines %+v: %v", req, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// wantKind fails unless err is of the class kind and says what.
func wantKind(t *testing.T, err, kind error, what string) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("err %v, want %v", err, kind)
	}
	if !strings.Contains(err.Error(), what) {
		t.Fatalf("err %q does not say %q", err, what)
	}
}

func testAddThenRead(t *testing.T, s api.Service) {
	ctx := context.Background()
	body := "line one\nline two\n\x00binary too\n"
	got := add(t, s, memex.Entry{Project: "p", Session: "s", Agent: "cli", Tool: "bash", Aliases: []string{"a1"}}, body)
	if got.ID.IsZero() || got.Bytes != int64(len(body)) || got.Kind != memex.KindTool {
		t.Fatalf("added %+v", got)
	}
	e, err := s.Entry(ctx, "a1", "")
	if err != nil || e.ID != got.ID || e.Tool != "bash" || !slices.Contains(e.Aliases, "a1") {
		t.Fatalf("entry a1: %+v, %v", e, err)
	}
	if b := lines(t, s, api.LinesRequest{ID: got.ID}); b != body {
		t.Fatalf("body %q, want %q", b, body)
	}
}

func testAddRedacts(t *testing.T, s api.Service) {
	ctx := context.Background()
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	got := add(t, s, memex.Entry{Project: "p", Session: "s", Input: "curl -H 'Authorization: token " + secret + "'",
		Attrs: map[string]string{"env": "GITHUB_TOKEN=" + secret}}, "token "+secret+"\n")
	e, err := s.Entry(ctx, got.ID.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	for what, v := range map[string]string{"input": e.Input, "attrs": e.Attrs["env"], "body": lines(t, s, api.LinesRequest{ID: got.ID})} {
		if strings.Contains(v, secret) || !strings.Contains(v, "[REDACTED:") {
			t.Errorf("%s stored as %q", what, v)
		}
	}
	if got.Redacted < 3 || e.Redacted != got.Redacted {
		t.Errorf("redacted: add says %d, entry %d; want 3 or more", got.Redacted, e.Redacted)
	}
}

func testAddNoRedact(t *testing.T, s api.Service) {
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	got, err := s.Add(context.Background(), api.AddRequest{Entry: memex.Entry{Project: "p", Attrs: map[string]string{"k": secret}},
		Body: strings.NewReader(secret), NoRedact: true})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := s.Entry(context.Background(), got.ID.String(), "")
	if b := lines(t, s, api.LinesRequest{ID: got.ID}); b != secret || e.Attrs["k"] != secret || got.Redacted != 0 {
		t.Fatalf("no redact: body %q attrs %v redacted %d", b, e.Attrs, got.Redacted)
	}
}

func testEntryUnknown(t *testing.T, s api.Service) {
	fill(t, s)
	_, err := s.Entry(context.Background(), "nosuch", "")
	wantKind(t, err, memex.ErrNotFound, "nosuch")
}

func testLinesRange(t *testing.T, s api.Service) {
	e := fill(t, s)[0]
	if got := lines(t, s, api.LinesRequest{ID: e.ID, From: 1, To: 2}); got != failing+"ok line\n" {
		t.Fatalf("lines 1:2 %q", got)
	}
	if got := lines(t, s, api.LinesRequest{ID: e.ID, From: 51}); got != "ok line\n" {
		t.Fatalf("lines 51: %q", got)
	}
}

func testShow(t *testing.T, s api.Service) {
	fill(t, s)
	res, err := s.Show(context.Background(), api.ShowRequest{Ref: "first", Budget: 120})
	if err != nil {
		t.Fatal(err)
	}
	if res.Item.Complete || !strings.Contains(res.Item.Content, "FAIL") || res.Result.Used > 120 || res.Result.Budget != 120 {
		t.Fatalf("show: %+v", res)
	}
	_, err = s.Show(context.Background(), api.ShowRequest{Ref: "first", Budget: 1})
	if !errors.Is(err, memex.ErrBudgetTooSmall) {
		t.Fatalf("show at budget 1: %v", err)
	}
}

// Served search --json carried took_ns 0.
func testSearchTook(t *testing.T, s api.Service) {
	fill(t, s)
	res, err := s.Search(context.Background(), api.Query{Text: "nil map", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 3 || res.Total != 3 || res.Took <= 0 {
		t.Fatalf("search: %d hits, total %d, took %v", len(res.Hits), res.Total, res.Took)
	}
}

// A search for sessions answers the same on every path: sessions with
// their hits, no entry hits.
func testSearchSessions(t *testing.T, s api.Service) {
	es := fill(t, s)
	res, err := s.Search(context.Background(), api.Query{Text: "nil map", Limit: 10, Sessions: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 0 || len(res.Sessions) != 2 {
		t.Fatalf("sessions: %d hits, %d sessions, want 0 and 2: %+v", len(res.Hits), len(res.Sessions), res.Sessions)
	}
	n := map[string]int{}
	for _, ss := range res.Sessions {
		if ss.Project != "p" || ss.Cover != 1 || ss.Score <= 0 {
			t.Errorf("session %+v", ss)
		}
		for _, h := range ss.Hits {
			if h.Session != ss.Session {
				t.Errorf("session %s holds a hit of %s", ss.Session, h.Session)
			}
		}
		n[ss.Session] = len(ss.Hits)
	}
	if n["team/feature"] != 2 || n["plain"] != 1 {
		t.Errorf("hits per session %v, want team/feature 2, plain 1 (of %d entries)", n, len(es))
	}
	res, err = s.Search(context.Background(), api.Query{Text: "nil map", Limit: 1, Sessions: true})
	if err != nil || len(res.Sessions) != 1 {
		t.Fatalf("sessions, limit 1: %+v, %v", res.Sessions, err)
	}
}

// A malformed query exited 2 locally and 1 when served: it is ErrInvalid
// both ways (the CLI maps that to a usage error).
func testSearchMalformed(t *testing.T, s api.Service) {
	fill(t, s)
	for _, q := range []string{"exit:abc", `"nil map`} {
		_, err := s.Search(context.Background(), api.Query{Text: q, Limit: 10})
		if !errors.Is(err, memex.ErrInvalid) {
			t.Errorf("search %q: %v, want invalid", q, err)
		}
	}
}

// before and after are resolved once, by the same code, on every path.
func testSearchBounds(t *testing.T, s api.Service) {
	es := fill(t, s)
	res, err := s.Search(context.Background(), api.Query{Text: "nil", Limit: 10, Before: "third"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 2 || res.Hits[0].ID == es[2].ID || res.Hits[1].ID == es[2].ID {
		t.Fatalf("before third: %+v", res.Hits)
	}
	res, err = s.Search(context.Background(), api.Query{Text: "nil", Limit: 10, After: es[0].ID.String()})
	if err != nil || len(res.Hits) != 2 {
		t.Fatalf("after first: %+v, %v", res.Hits, err)
	}
}

func testSearchUnknownBound(t *testing.T, s api.Service) {
	fill(t, s)
	_, err := s.Search(context.Background(), api.Query{Text: "nil", Limit: 10, After: "nosuch"})
	wantKind(t, err, memex.ErrNotFound, "nosuch")
}

// A unique prefix of a session's name names it in a search's filter, as
// in a replay (memex sessions shows the names of UUIDs cut short); one
// that starts several names is an error that lists them.
func testSearchSessionPrefix(t *testing.T, s api.Service) {
	es := fill(t, s)
	for _, name := range []string{"team/feature", "team/f"} {
		res, err := s.Search(context.Background(), api.Query{Text: "nil map", Limit: 10, Session: name})
		if err != nil || len(res.Hits) != 2 || res.Hits[0].Session != es[0].Session || res.Hits[1].Session != es[0].Session {
			t.Fatalf("search in session %q: %+v, %v", name, res.Hits, err)
		}
	}
	add(t, s, memex.Entry{Session: "team/fix", Project: "p", Agent: "cli", Kind: memex.KindNote}, failing)
	_, err := s.Search(context.Background(), api.Query{Text: "nil map", Limit: 10, Session: "team/f"})
	wantKind(t, err, memex.ErrAmbiguous, "team/fix")
}

// A session whose name holds '/' could not be replayed while memex serve
// ran.
func testReplaySlash(t *testing.T, s api.Service) {
	es := fill(t, s)
	got, err := s.Replay(context.Background(), api.ReplayRequest{Ref: memex.SessionRef{Session: "team/feature"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != es[0].ID || got[1].ID != es[1].ID || got[0].Content != nil {
		t.Fatalf("replay: %+v", got)
	}
	got, err = s.Replay(context.Background(), api.ReplayRequest{Ref: memex.SessionRef{Session: "team/feature"}, Content: true})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok, _ := got[1].Body(); !ok || !strings.HasPrefix(string(b), failing) {
		t.Fatalf("replay with content: %q, %v", b, ok)
	}
}

func testReplayUnknown(t *testing.T, s api.Service) {
	fill(t, s)
	_, err := s.Replay(context.Background(), api.ReplayRequest{Ref: memex.SessionRef{Session: "nosuch"}})
	wantKind(t, err, memex.ErrNotFound, `"nosuch"`)
}

func testSessions(t *testing.T, s api.Service) {
	list, err := s.Sessions(context.Background(), api.SessionFilter{})
	if err != nil || list == nil || len(list) != 0 {
		t.Fatalf("sessions of an empty archive: %#v, %v", list, err)
	}
	fill(t, s)
	list, err = s.Sessions(context.Background(), api.SessionFilter{Project: "p"})
	if err != nil || len(list) != 2 || list[0].Session != "team/feature" || list[0].Entries != 2 || list[1].Session != "plain" {
		t.Fatalf("sessions: %+v, %v", list, err)
	}
}

// Since and Limit narrow the listing on every path alike (the HTTP API
// once read only project and agent).
func testSessionsSinceLimit(t *testing.T, s api.Service) {
	fill(t, s)
	ctx := context.Background()
	all, err := s.Sessions(ctx, api.SessionFilter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("sessions: %+v, %v", all, err)
	}
	names := func(list []api.SessionInfo) (out []string) {
		for _, si := range list {
			out = append(out, si.Session)
		}
		return out
	}
	for _, c := range []struct {
		f    api.SessionFilter
		want []string
	}{
		{api.SessionFilter{Since: all[0].End}, []string{"team/feature", "plain"}},
		{api.SessionFilter{Since: time.Now().Add(time.Hour)}, nil},
		{api.SessionFilter{Limit: 1}, []string{"plain"}},
		{api.SessionFilter{Limit: 5, Since: all[0].Start}, []string{"team/feature", "plain"}},
		{api.SessionFilter{Limit: 1, Agent: "no-such-agent"}, nil},
	} {
		list, err := s.Sessions(ctx, c.f)
		if err != nil || list == nil || !slices.Equal(names(list), c.want) {
			t.Errorf("sessions %+v: %v, %v; want %v", c.f, names(list), err, c.want)
		}
	}
	_, err = s.Sessions(ctx, api.SessionFilter{Limit: -1})
	wantKind(t, err, memex.ErrInvalid, "limit")
}

// A unique prefix of a session's name names it.
func testReplayPrefix(t *testing.T, s api.Service) {
	es := fill(t, s)
	got, err := s.Replay(context.Background(), api.ReplayRequest{Ref: memex.SessionRef{Session: "team/f"}})
	if err != nil || len(got) != 2 || got[0].ID != es[0].ID {
		t.Fatalf("replay of a prefix: %+v, %v", got, err)
	}
}

func testStats(t *testing.T, s api.Service) {
	fill(t, s)
	st, err := s.Stats(context.Background())
	if err != nil || st.Entries != 3 || st.Sessions != 2 || st.Bodies != 1 || st.RawBytes == 0 || st.DedupSaved == 0 {
		t.Fatalf("stats: %+v, %v", st, err)
	}
	// A search brings the index up to date: its files are counted apart
	// from the store's.
	if _, err := s.Search(context.Background(), api.Query{Text: "failing", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	st, err = s.Stats(context.Background())
	if err != nil || st.IndexBytes == 0 || st.DiskBytes == 0 {
		t.Fatalf("stats after a search: index %d bytes, store %d, %v", st.IndexBytes, st.DiskBytes, err)
	}
}

func testDeref(t *testing.T, s api.Service) {
	fill(t, s)
	res, err := s.Deref(context.Background(), api.DerefRequest{Refs: []string{"first", "nosuch", "second"}, Budget: 600, Query: "nil map"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || !slices.Equal(res.Missing, []string{"nosuch"}) || res.Used > 600 || res.Used == 0 ||
		res.Text == "" || res.Text != res.Result.Text {
		t.Fatalf("deref: %+v", res)
	}
}

// A binary entry reads as a note, or as base64 within the budget when
// asked, with the marker of what was cut: the same through every path.
func testDerefBase64(t *testing.T, s api.Service) {
	ctx := context.Background()
	body := "\xff\x00" + strings.Repeat("\x01\x02binary\x00", 400)
	e := add(t, s, memex.Entry{Project: "p", Session: "s", Tool: "cat"}, body)
	res, err := s.Deref(ctx, api.DerefRequest{Refs: []string{e.ID.String()}, Budget: 500})
	if err != nil || len(res.Items) != 1 || !res.Items[0].Binary || res.Items[0].Encoding != "" ||
		!strings.Contains(res.Text, "binary content (3,602 bytes) not shown") {
		t.Fatalf("deref of binary: %+v, %v", res, err)
	}
	res, err = s.Deref(ctx, api.DerefRequest{Refs: []string{e.ID.String()}, Budget: 500, Base64: true})
	if err != nil || len(res.Items) != 1 || res.Used > 500 {
		t.Fatalf("deref base64: %+v, %v", res, err)
	}
	it := res.Items[0]
	lines := strings.Split(strings.TrimSuffix(it.Content, "\n"), "\n")
	marker := lines[len(lines)-1]
	got, derr := base64.StdEncoding.DecodeString(strings.Join(lines[:len(lines)-1], ""))
	if !it.Binary || it.Encoding != "base64" || it.Complete || derr != nil || len(got) == 0 || !strings.HasPrefix(body, string(got)) ||
		!strings.HasPrefix(marker, "[memex: base64 cut: bytes ") || !strings.Contains(marker, "of 3,602 not shown; memex show "+e.ID.String()+" > FILE saves all]") ||
		res.Text != res.Result.Text || !strings.Contains(res.Text, it.Content) {
		t.Fatalf("deref base64: %+v (%v)", it, derr)
	}
}

func testDerefEmpty(t *testing.T, s api.Service) {
	_, err := s.Deref(context.Background(), api.DerefRequest{})
	wantKind(t, err, memex.ErrInvalid, "refs")
}

func testContext(t *testing.T, s api.Service) {
	es := fill(t, s)
	res, err := s.Context(context.Background(), api.ContextRequest{Session: "team/feature", Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 2 || len(res.Entries) != 2 || !strings.Contains(res.Text, es[0].ID.String()) || res.Text != res.ContextResult.Text {
		t.Fatalf("context: %+v", res)
	}
	res, err = s.Context(context.Background(), api.ContextRequest{Project: "p", Budget: 500, Before: "second"})
	if err != nil || res.Total != 1 {
		t.Fatalf("context before second: %+v, %v", res, err)
	}
}

// A session name two agents used names two sessions: the error says to
// narrow it with the agent, and the agent narrows it.
func testContextAgent(t *testing.T, s api.Service) {
	ctx := context.Background()
	codex := add(t, s, memex.Entry{Project: "p", Session: "shared", Agent: "codex", Kind: memex.KindNote}, "codex was here\n")
	add(t, s, memex.Entry{Project: "p", Session: "shared", Agent: "claude-code", Kind: memex.KindNote}, "claude was here\n")
	_, err := s.Context(ctx, api.ContextRequest{Session: "shared", Budget: 500})
	wantKind(t, err, memex.ErrAmbiguous, "--agent")
	res, err := s.Context(ctx, api.ContextRequest{Session: "shared", Agent: "codex", Budget: 500})
	if err != nil || res.Total != 1 || res.Entries[0].ID != codex.ID.String() {
		t.Fatalf("context of codex's session: %+v, %v", res, err)
	}
}

// Forget narrows a session name two agents used with the agent, as the
// error says to.
func testForgetAgent(t *testing.T, s api.Service) {
	ctx := context.Background()
	codex := add(t, s, memex.Entry{Project: "p", Session: "shared", Agent: "codex", Kind: memex.KindNote}, "codex was here\n")
	claude := add(t, s, memex.Entry{Project: "p", Session: "shared", Agent: "claude-code", Kind: memex.KindNote}, "claude was here\n")
	_, err := s.Forget(ctx, api.ForgetRequest{Session: "shared"})
	wantKind(t, err, memex.ErrAmbiguous, "--agent")
	// The agent without a session is refused, not dropped: that would
	// forget every agent's entries of the project.
	_, err = s.Forget(ctx, api.ForgetRequest{Project: "p", Agent: "codex"})
	wantKind(t, err, memex.ErrInvalid, "give the session too")
	res, err := s.Forget(ctx, api.ForgetRequest{Session: "shared", Agent: "codex"})
	if err != nil || res.Forgotten != 1 {
		t.Fatalf("forget codex's session: %+v, %v", res, err)
	}
	if _, err := s.Entry(ctx, codex.ID.String(), ""); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("codex's entry after forget: %v", err)
	}
	if _, err := s.Entry(ctx, claude.ID.String(), ""); err != nil {
		t.Fatalf("claude's entry after forget: %v", err)
	}
}

// Forget, which cannot be undone, takes a session's whole name: the
// first characters other commands take are refused, naming the session
// they would be, and nothing is forgotten.
func testForgetPrefix(t *testing.T, s api.Service) {
	ctx := context.Background()
	e := add(t, s, memex.Entry{Project: "p", Session: "fe869ecb-c176-478f-9734-7e4b8ef12cff", Agent: "claude-code", Kind: memex.KindNote}, "kept\n")
	_, err := s.Forget(ctx, api.ForgetRequest{Session: "fe869ecb"})
	wantKind(t, err, memex.ErrNotFound, "memex forget --session fe869ecb-c176-478f-9734-7e4b8ef12cff")
	if _, err := s.Entry(ctx, e.ID.String(), ""); err != nil {
		t.Fatalf("the entry after a refused forget: %v", err)
	}
}

func testContextUnknown(t *testing.T, s api.Service) {
	fill(t, s)
	_, err := s.Context(context.Background(), api.ContextRequest{Session: "nosuch"})
	wantKind(t, err, memex.ErrNotFound, `"nosuch"`)
}

func testForget(t *testing.T, s api.Service) {
	ctx := context.Background()
	es := fill(t, s)
	dry, err := s.Forget(ctx, api.ForgetRequest{Session: "team/feature", DryRun: true})
	if err != nil || dry.Matched != 2 || dry.Forgotten != 0 {
		t.Fatalf("forget --dry-run: %+v, %v", dry, err)
	}
	if _, err := s.Entry(ctx, "first", ""); err != nil {
		t.Fatalf("a dry run forgot: %v", err)
	}
	res, err := s.Forget(ctx, api.ForgetRequest{Session: "team/feature"})
	if err != nil || res.Forgotten != 2 {
		t.Fatalf("forget: %+v, %v", res, err)
	}
	if _, err := s.Entry(ctx, es[0].ID.String(), ""); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("a forgotten entry: %v", err)
	}
	hits, err := s.Search(ctx, api.Query{Text: "nil map", Limit: 10})
	if err != nil || len(hits.Hits) != 1 || hits.Hits[0].ID != es[2].ID {
		t.Fatalf("search after forget: %+v, %v", hits.Hits, err)
	}
	res, err = s.Forget(ctx, api.ForgetRequest{Refs: []string{"third"}})
	if err != nil || res.Forgotten != 1 {
		t.Fatalf("forget by alias: %+v, %v", res, err)
	}
}

func testForgetUnknown(t *testing.T, s api.Service) {
	fill(t, s)
	_, err := s.Forget(context.Background(), api.ForgetRequest{Session: "nosuch"})
	wantKind(t, err, memex.ErrNotFound, `"nosuch"`)
}

// testForgetAmbiguous: a forget naming entries and a session (or a
// project) is refused, not taken as the entries alone: which of the two
// was meant is not for the store to guess, and nothing is forgotten.
func testForgetAmbiguous(t *testing.T, s api.Service) {
	ctx := context.Background()
	fill(t, s)
	for _, req := range []api.ForgetRequest{
		{Refs: []string{"third"}, Session: "team/feature"},
		{Refs: []string{"third"}, Project: "p"},
	} {
		_, err := s.Forget(ctx, req)
		wantKind(t, err, memex.ErrInvalid, "not both")
	}
	if _, err := s.Entry(ctx, "third", ""); err != nil {
		t.Fatalf("a refused forget forgot: %v", err)
	}
}

func testVerify(t *testing.T, s api.Service) {
	fill(t, s)
	res, err := s.Verify(context.Background())
	if err != nil || res.Checked != 3 || len(res.Problems) != 0 || res.Problems == nil {
		t.Fatalf("verify: %+v, %v", res, err)
	}
}

func testReindex(t *testing.T, s api.Service) {
	fill(t, s)
	res, err := s.Reindex(context.Background())
	if err != nil || res.Indexed != 3 || res.NoContent != 0 {
		t.Fatalf("reindex: %+v, %v", res, err)
	}
	hits, err := s.Search(context.Background(), api.Query{Text: "nil map", Limit: 10})
	if err != nil || len(hits.Hits) != 3 {
		t.Fatalf("search after reindex: %d hits, %v", len(hits.Hits), err)
	}
}

// transcript writes lines as a memex jsonl file in a new directory and
// returns its absolute path; the file's name is the default session.
func transcript(t *testing.T, name string, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var ingestSecret = "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]

// ingested is the suite's transcript: three entries in two sessions (one
// named by the file), a credential, and a malformed line.
func ingested(t *testing.T) string {
	return transcript(t, "run1.jsonl",
		`{"project":"p","session":"team/feature","kind":"tool","tool":"bash","input":"go test","exit":1,"key":"k1","content":"--- FAIL: TestParse nil map\n"}`,
		`{"project":"p","session":"team/feature","kind":"note","key":"k2","content":"export GITHUB_TOKEN=`+ingestSecret+`\n"}`,
		`{not json`,
		`{"project":"p","kind":"note","key":"k3","content":"kept the retry loop\n"}`)
}

func ingest(t *testing.T, s api.Service, req api.IngestRequest) api.IngestResult {
	t.Helper()
	res, err := s.Ingest(context.Background(), req)
	if err != nil {
		t.Fatalf("ingest %+v: %v", req, err)
	}
	return res
}

// Local memex ingest was a path of its own, outside the Service: an
// import reports, stores, redacts and indexes alike on every path.
func testIngest(t *testing.T, s api.Service) {
	ctx := context.Background()
	p := ingested(t)
	res := ingest(t, s, api.IngestRequest{Format: "jsonl", Paths: []string{p}})
	if res.Files != 1 || res.Sessions != 2 || res.Added != 3 || res.Present != 0 || res.Indexed != 3 ||
		res.Skipped["malformed json"] != 1 || res.Redacted != 1 || res.RedactedKinds["github_token"] != 1 ||
		res.Bytes == 0 || res.BodyBytes == 0 || len(res.FileErrors) != 0 || len(res.Unusable) != 0 {
		t.Fatalf("ingest: %+v", res)
	}
	if len(res.Warnings) != 1 || !strings.HasPrefix(res.Warnings[0], p+":3: malformed json") || res.MoreWarnings != 0 {
		t.Fatalf("ingest warnings: %q (+%d)", res.Warnings, res.MoreWarnings)
	}
	e, err := s.Entry(ctx, "k2", "p")
	if err != nil {
		t.Fatal(err)
	}
	if b := lines(t, s, api.LinesRequest{ID: e.ID}); strings.Contains(b, ingestSecret) || !strings.Contains(b, "[REDACTED:github_token]") || e.Redacted != 1 {
		t.Fatalf("k2 stored as %q (redacted %d)", b, e.Redacted)
	}
	list, err := s.Sessions(ctx, api.SessionFilter{Project: "p"})
	got := map[string]int{}
	for _, si := range list {
		got[si.Session] = si.Entries
	}
	if err != nil || len(list) != 2 || got["team/feature"] != 2 || got["run1"] != 1 {
		t.Fatalf("sessions: %+v, %v", list, err)
	}
	hits, err := s.Search(ctx, api.Query{Text: "retry loop", Limit: 10})
	if err != nil || len(hits.Hits) != 1 {
		t.Fatalf("search: %+v, %v", hits.Hits, err)
	}
}

// An import is idempotent: a file unchanged is not read again, and read
// whole again it adds nothing.
func testIngestAgain(t *testing.T, s api.Service) {
	p := ingested(t)
	ingest(t, s, api.IngestRequest{Format: "jsonl", Paths: []string{p}})
	if res := ingest(t, s, api.IngestRequest{Format: "jsonl", Paths: []string{p}}); res.Files != 0 || res.Unchanged != 1 || res.Added != 0 {
		t.Fatalf("again: %+v", res)
	}
	res := ingest(t, s, api.IngestRequest{Format: "jsonl", Paths: []string{p}, Full: true})
	if res.Files != 1 || res.Added != 0 || res.Present != 3 || res.Differ != 0 {
		t.Fatalf("again, whole: %+v", res)
	}
	st, err := s.Stats(context.Background())
	if err != nil || st.Entries != 3 {
		t.Fatalf("stats after three imports: %+v, %v", st, err)
	}
}

func testIngestNoRedact(t *testing.T, s api.Service) {
	res := ingest(t, s, api.IngestRequest{Format: "jsonl", Paths: []string{ingested(t)}, NoRedact: true})
	e, err := s.Entry(context.Background(), "k2", "p")
	if err != nil {
		t.Fatal(err)
	}
	if b := lines(t, s, api.LinesRequest{ID: e.ID}); !strings.Contains(b, ingestSecret) || res.Redacted != 0 || e.Redacted != 0 {
		t.Fatalf("no redact: %q, report %d, entry %d", b, res.Redacted, e.Redacted)
	}
}

// A served import did not report the records found under a key with
// other content (another run of the same session).
func testIngestDiffer(t *testing.T, s api.Service) {
	line := `{"type":"user","message":{"role":"user","content":%q},"uuid":"u-1","timestamp":"2026-11-01T10:00:00.000Z","sessionId":"s1"}`
	ingest(t, s, api.IngestRequest{Format: "claude-code", Project: "p", Paths: []string{transcript(t, "s1.jsonl", fmt.Sprintf(line, "fix the parser"))}})
	res := ingest(t, s, api.IngestRequest{Format: "claude-code", Project: "p", Paths: []string{transcript(t, "s1.jsonl", fmt.Sprintf(line, "fix the lexer"))}})
	if res.Added != 0 || res.Present != 1 || res.Differ != 1 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "other content") {
		t.Fatalf("other content: %+v", res)
	}
}

// The answer lists the first api.MaxIngestWarnings problems and counts
// the others.
func testIngestWarningsCapped(t *testing.T, s api.Service) {
	bad := make([]string, api.MaxIngestWarnings+5)
	for i := range bad {
		bad[i] = fmt.Sprintf("{bad %d", i)
	}
	p := transcript(t, "bad.jsonl", append(bad, `{"content":"one good line"}`)...)
	res := ingest(t, s, api.IngestRequest{Format: "jsonl", Paths: []string{p}})
	if res.Added != 1 || len(res.Warnings) != api.MaxIngestWarnings || res.MoreWarnings != 5 ||
		!strings.HasPrefix(res.Warnings[0], p+":1: ") || !strings.HasPrefix(res.Warnings[api.MaxIngestWarnings-1], fmt.Sprintf("%s:%d: ", p, api.MaxIngestWarnings)) {
		t.Fatalf("warnings: %d (+%d): %q", len(res.Warnings), res.MoreWarnings, res.Warnings)
	}
	// A path that yields nothing is a problem of the answer, not an error.
	missing := filepath.Join(t.TempDir(), "nosuch")
	res = ingest(t, s, api.IngestRequest{Format: "jsonl", Paths: []string{missing}})
	if res.Files != 0 || len(res.FileErrors) != 1 || !strings.HasPrefix(res.FileErrors[0], missing+": ") ||
		len(res.Warnings) != 1 || res.Warnings[0] != res.FileErrors[0] {
		t.Fatalf("missing path: %+v", res)
	}
}

func testIngestInvalid(t *testing.T, s api.Service) {
	ctx := context.Background()
	p := ingested(t)
	for _, c := range []struct {
		req  api.IngestRequest
		what string
	}{
		{api.IngestRequest{Paths: []string{p}}, "format"},
		{api.IngestRequest{Format: "nosuch", Paths: []string{p}}, "nosuch"},
		{api.IngestRequest{Format: "jsonl", Paths: []string{p}, Max: 3}, "git"},
		{api.IngestRequest{Format: "jsonl", Paths: []string{p}, Since: time.Now()}, "git"},
		{api.IngestRequest{Format: "git", Paths: []string{p}, Max: -1}, "max"},
	} {
		_, err := s.Ingest(ctx, c.req)
		wantKind(t, err, memex.ErrInvalid, c.what)
	}
	if st, err := s.Stats(ctx); err != nil || st.Entries != 0 {
		t.Fatalf("an invalid import stored: %+v, %v", st, err)
	}
}

// An error reads the same, in the same words and of the same class,
// whether the store was local or served: the sentence (memex.Sentence)
// and the code (api.Code) each path gives are the one the store's code
// wrote, not a wrapping of it (the CLI once cut its messages out of the
// chain of ": "-joined prefixes, and a served one read otherwise).
func testErrorSentences(t *testing.T, s api.Service) {
	ctx := context.Background()
	fill(t, s)
	for _, sess := range []string{"team/a1", "team/a2"} {
		add(t, s, memex.Entry{Project: "p", Agent: "cli", Session: sess, Kind: memex.KindNote}, "x\n")
	}
	for _, p := range []string{"p", "q"} {
		add(t, s, memex.Entry{Project: p, Agent: "cli", Session: "dups", Aliases: []string{"dup"}, Kind: memex.KindNote}, "in "+p+"\n")
	}
	errOf := func(_ any, err error) error { return err }
	for _, c := range []struct {
		name     string
		err      error
		code     string
		sentence string
	}{
		{"entry not found", errOf(s.Entry(ctx, "nosuch", "")), "not_found", "nosuch: not found"},
		{"session not found", errOf(s.Replay(ctx, api.ReplayRequest{Ref: memex.SessionRef{Session: "nosuch"}})), "not_found",
			`session "nosuch": not found; memex sessions lists them`},
		{"context of nothing", errOf(s.Context(ctx, api.ContextRequest{Project: "nosuch"})), "not_found",
			"no entries for project nosuch: not found"},
		{"ambiguous prefix", errOf(s.Replay(ctx, api.ReplayRequest{Ref: memex.SessionRef{Session: "team/a"}})), "ambiguous",
			`session prefix "team/a" starts 2 sessions: team/a1 (agent cli, project p), team/a2 (agent cli, project p); give more of the name, or the project (--project)`},
		{"ambiguous alias", errOf(s.Entry(ctx, "dup", "")), "ambiguous", `alias "dup" names entries in 2 projects: *`},
		{"malformed query", errOf(s.Search(ctx, api.Query{Text: "exit:abc", Limit: 10})), "invalid", "exit:abc: not an exit status"},
		{"unterminated quote", errOf(s.Search(ctx, api.Query{Text: `"nil map`, Limit: 10})), "invalid", "unterminated quote at offset 0"},
		{"negative budget", errOf(s.Deref(ctx, api.DerefRequest{Refs: []string{"first"}, Budget: -1})), "invalid",
			"deref: budget -1: want 0 (the default) or a positive number of tokens"},
		// The least budget counts the header, whose ID's tokens vary.
		{"budget too small", errOf(s.Deref(ctx, api.DerefRequest{Refs: []string{"first"}, Budget: 5})), "budget_too_small",
			"a budget of 5 tokens is too small to show 1 entry: need at least *"},
		{"negative context budget", errOf(s.Context(ctx, api.ContextRequest{Project: "p", Budget: -2})), "invalid",
			"context: budget -2: want 0 (the default) or a positive number of tokens"},
		{"negative limit", errOf(s.Sessions(ctx, api.SessionFilter{Limit: -1})), "invalid", "sessions: limit -1: want 0 (all) or more"},
	} {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		got := memex.Sentence(c.err)
		if code := api.Code(c.err); code != c.code {
			t.Errorf("%s: code %q, want %q (%v)", c.name, code, c.code, c.err)
		}
		// The hint travels apart from the sentence (HTTP's "hint") and
		// comes back as the same field.
		if _, hint, ok := strings.Cut(c.sentence, "; "); ok && !strings.HasSuffix(c.sentence, "*") {
			var me *memex.Error
			if !errors.As(c.err, &me) || me.Hint != hint {
				t.Errorf("%s: %#v, want the hint %q", c.name, c.err, hint)
			}
		}
		want, prefix := strings.CutSuffix(c.sentence, "*")
		if got != want && !prefix || prefix && !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.sentence)
		}
	}
}
