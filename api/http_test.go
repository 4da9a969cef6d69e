package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
)

func do(t *testing.T, h http.Handler, method, target string, body io.Reader, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	req.Host = "127.0.0.1:7077"
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("decode %q: %v", w.Body.String(), err)
	}
	return v
}

func wantError(t *testing.T, w *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("status %d, want %d: %s", w.Code, status, w.Body.String())
	}
	eb := decode[ErrorBody](t, w)
	if eb.Error.Code != code || eb.Error.Message == "" {
		t.Fatalf("error %+v, want code %q with a message", eb.Error, code)
	}
}

func TestEndpoints(t *testing.T) {
	s, st := newTestServer(t, "", Options{Version: "test"})
	h := s.Handler()

	w := do(t, h, "GET", "/healthz", nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"ok":true`) {
		t.Fatalf("healthz: %d %s", w.Code, w.Body)
	}

	// Add, raw body with metadata in the query.
	raw := "line 1\nFAIL: TestX nil map\nline 3\n\x00binary tail"
	w = do(t, h, "POST", "/v1/entries?session=s1&project=p&tool=bash&input=go+test&exit=1&alias=k1&alias=k2", strings.NewReader(raw))
	if w.Code != 201 {
		t.Fatalf("add raw: %d %s", w.Code, w.Body)
	}
	e1 := decode[memex.Entry](t, w)
	if e1.Kind != memex.KindTool || e1.Exit == nil || *e1.Exit != 1 || e1.Bytes != int64(len(raw)) || len(e1.Aliases) != 2 {
		t.Fatalf("add raw: entry %+v", e1)
	}
	// Add, JSON with text, and with base64.
	w = do(t, h, "POST", "/v1/entries", strings.NewReader(`{"session":"s1","project":"p","kind":"note","summary":"my note","content":"decided: keep the retry loop\n"}`),
		"Content-Type", "application/json")
	if w.Code != 201 {
		t.Fatalf("add json: %d %s", w.Code, w.Body)
	}
	e2 := decode[memex.Entry](t, w)
	if e2.AgentSummary != "my note" {
		t.Fatalf("add json: %+v", e2)
	}
	w = do(t, h, "POST", "/v1/entries", strings.NewReader(`{"session":"s2","content_base64":"AAEC/w=="}`), "Content-Type", "application/json")
	if w.Code != 201 {
		t.Fatalf("add base64: %d %s", w.Code, w.Body)
	}
	e3 := decode[memex.Entry](t, w)

	// Get: exact bytes, by ID and by alias.
	for _, ref := range []string{e1.ID.String(), "k1"} {
		w = do(t, h, "GET", "/v1/entries/"+ref, nil)
		if w.Code != 200 || w.Body.String() != raw || w.Header().Get("X-Memex-Id") != e1.ID.String() {
			t.Fatalf("get %s: %d %q", ref, w.Code, w.Body)
		}
	}
	w = do(t, h, "GET", "/v1/entries/"+e1.ID.String()+"?lines=2:3", nil)
	if w.Body.String() != "FAIL: TestX nil map\nline 3\n" {
		t.Fatalf("get lines: %q", w.Body)
	}
	w = do(t, h, "GET", "/v1/entries/"+e2.ID.String()+"?format=json", nil)
	gj := decode[map[string]any](t, w)
	if _, b64 := gj["content_base64"]; gj["content"] != "decided: keep the retry loop\n" || b64 || gj["id"] != e2.ID.String() || gj["session"] != "s1" {
		t.Fatalf("get json: %+v", gj)
	}
	// Binary content comes as content_base64 alone, not beside an empty
	// "content".
	w = do(t, h, "GET", "/v1/entries/"+e3.ID.String(), nil, "Accept", "application/json")
	if gj := decode[map[string]any](t, w); gj["content_base64"] != "AAEC/w==" || gj["content"] != nil {
		t.Fatalf("get binary json: %+v", gj)
	}
	w = do(t, h, "GET", "/v1/entries/"+e1.ID.String()+"?budget=200", nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), "[memex "+e1.ID.String()) || !strings.Contains(w.Body.String(), "FAIL: TestX nil map") {
		t.Fatalf("get budget: %d %q", w.Code, w.Body)
	}

	// Deref.
	w = do(t, h, "POST", "/v1/deref", strings.NewReader(fmt.Sprintf(`{"refs":[%q,"nope"],"budget":500,"query":"nil map"}`, e1.ID)), "Content-Type", "application/json")
	dj := decode[DerefResult](t, w)
	if w.Code != 200 || len(dj.Items) != 1 || !dj.Items[0].Complete || dj.Items[0].Content != raw ||
		len(dj.Missing) != 1 || dj.Used > 500 || dj.Text == "" {
		t.Fatalf("deref: %d %+v", w.Code, dj)
	}

	// Search with filters.
	w = do(t, h, "GET", "/v1/search?q=retry&session=s1&limit=5", nil)
	sr := decode[SearchResult](t, w)
	if len(sr.Hits) != 1 || sr.Hits[0].ID != e2.ID {
		t.Fatalf("search: %+v", sr)
	}
	w = do(t, h, "GET", "/v1/search?q=retry&session=s2", nil)
	if sr := decode[SearchResult](t, w); len(sr.Hits) != 0 || sr.Hits == nil {
		t.Fatalf("search filtered: %s", w.Body)
	}

	// Context, sessions, replay, stats.
	w = do(t, h, "GET", "/v1/context?session=s1&budget=1000", nil)
	if cr := decode[ContextResult](t, w); cr.Total != 2 || cr.Used > 1000 || !strings.Contains(cr.Text, e2.ID.String()) {
		t.Fatalf("context: %s", w.Body)
	}
	w = do(t, h, "GET", "/v1/context?session=s1&format=text", nil)
	if !strings.Contains(w.Body.String(), e1.ID.String()) || strings.HasPrefix(w.Body.String(), "{") {
		t.Fatalf("context text: %q", w.Body)
	}
	w = do(t, h, "GET", "/v1/sessions", nil)
	sl := decode[struct{ Sessions []SessionInfo }](t, w)
	if len(sl.Sessions) != 2 || sl.Sessions[0].Session != "s1" || sl.Sessions[0].Entries != 2 || sl.Sessions[0].Project != "p" ||
		!sl.Sessions[0].Start.Equal(e1.Created) || !sl.Sessions[0].End.Equal(e2.Created) || sl.Sessions[1].Session != "s2" {
		t.Fatalf("sessions: %s", w.Body)
	}
	// The project and agent filters reach the catalog.
	w = do(t, h, "GET", "/v1/sessions?project=p", nil)
	if sl := decode[struct{ Sessions []SessionInfo }](t, w); len(sl.Sessions) != 1 || sl.Sessions[0].Session != "s1" {
		t.Fatalf("sessions of project p: %s", w.Body)
	}
	w = do(t, h, "GET", "/v1/sessions?agent=nobody", nil)
	if w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"sessions":[]}` {
		t.Fatalf("sessions of no agent: %s", w.Body)
	}
	w = do(t, h, "GET", "/v1/sessions/s1", nil)
	rp := decode[struct{ Entries []memex.Entry }](t, w)
	if len(rp.Entries) != 2 || rp.Entries[0].ID != e1.ID || rp.Entries[1].ID != e2.ID {
		t.Fatalf("replay: %s", w.Body)
	}
	if strings.Contains(w.Body.String(), `"content`) {
		t.Fatalf("replay without ?content=1 carries content: %s", w.Body)
	}
	// ?content=1: each entry's exact content, as GET /v1/entries/{ref}?format=json.
	w = do(t, h, "GET", "/v1/sessions/s1?content=1", nil)
	rc := decode[struct {
		Entries []struct {
			memex.Entry
			Content       *string `json:"content"`
			ContentBase64 string  `json:"content_base64"`
		}
	}](t, w)
	if len(rc.Entries) != 2 || rc.Entries[0].ID != e1.ID || rc.Entries[1].ID != e2.ID {
		t.Fatalf("replay with content: %s", w.Body)
	}
	for _, e := range rc.Entries {
		want, err := st.ReadAll(context.Background(), e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if e.Content == nil || *e.Content != string(want) || e.ContentBase64 != "" {
			t.Fatalf("replay content of %s: %+v, want %q", e.ID, e, want)
		}
	}
	w = do(t, h, "GET", "/v1/sessions/s2?content=1", nil)
	if !strings.Contains(w.Body.String(), `"content_base64":"AAEC/w=="`) || strings.Contains(w.Body.String(), `"content":`) {
		t.Fatalf("replay with binary content: %s", w.Body)
	}
	wantError(t, do(t, h, "GET", "/v1/sessions/s1?content=maybe", nil), 400, "invalid")
	w = do(t, h, "GET", "/v1/stats", nil)
	if stt := decode[archive.Stats](t, w); stt.Entries != 3 {
		t.Fatalf("stats: %s", w.Body)
	}
	_ = st
}

func TestErrors(t *testing.T) {
	s, st := newTestServer(t, "", Options{})
	h := s.Handler()
	a := mustAdd(t, st, memex.Entry{Project: "p1", Aliases: []string{"dup"}}, "one\n")
	mustAdd(t, st, memex.Entry{Project: "p2", Aliases: []string{"dup"}}, "two\n")
	long := strings.Repeat("a fairly long line of output that will not fit\n", 400)
	big := mustAdd(t, st, memex.Entry{}, long)

	wantError(t, do(t, h, "GET", "/v1/entries/01JD8X3N6Q4W0G2Y7T5R9KZC1M", nil), 404, "not_found")
	wantError(t, do(t, h, "GET", "/v1/entries/nothing-here", nil), 404, "not_found")
	wantError(t, do(t, h, "GET", "/v1/entries/dup", nil), 400, "ambiguous")
	if w := do(t, h, "GET", "/v1/entries/dup?project=p1", nil); w.Body.String() != "one\n" {
		t.Fatalf("alias narrowed by project: %q", w.Body)
	}
	wantError(t, do(t, h, "GET", "/v1/entries/"+a.ID.String()+"?lines=5:2", nil), 400, "invalid")
	wantError(t, do(t, h, "GET", "/v1/entries/"+a.ID.String()+"?lines=9", nil), 400, "invalid")
	wantError(t, do(t, h, "GET", "/v1/entries/"+big.ID.String()+"?budget=3", nil), 422, "budget_too_small")
	wantError(t, do(t, h, "POST", "/v1/deref", strings.NewReader(`{"refs":[]}`), "Content-Type", "application/json"), 400, "invalid")
	wantError(t, do(t, h, "POST", "/v1/deref", strings.NewReader(`{"refs":["x"],"bogus":1}`), "Content-Type", "application/json"), 400, "invalid")
	wantError(t, do(t, h, "POST", "/v1/deref", strings.NewReader(`not json`), "Content-Type", "application/json"), 400, "invalid")
	// One JSON value: what follows it is not dropped unread.
	wantError(t, do(t, h, "POST", "/v1/deref", strings.NewReader(`{"refs":["x"]} {"refs":["y"]}`), "Content-Type", "application/json"), 400, "invalid")
	wantError(t, do(t, h, "POST", "/v1/deref", strings.NewReader(`{"refs":["x"]}garbage`), "Content-Type", "application/json"), 400, "invalid")
	wantError(t, do(t, h, "POST", "/v1/entries?exit=x", strings.NewReader("a")), 400, "invalid")
	wantError(t, do(t, h, "POST", "/v1/entries", strings.NewReader(`{}`), "Content-Type", "application/json"), 400, "invalid")
	wantError(t, do(t, h, "GET", "/v1/context", nil), 400, "invalid")
	wantError(t, do(t, h, "GET", "/v1/sessions/none", nil), 404, "not_found")
	wantError(t, do(t, h, "GET", "/v1/nope", nil), 404, "not_found")
	if w := do(t, h, "DELETE", "/v1/stats", nil); w.Code != 405 {
		t.Fatalf("DELETE /v1/stats: %d", w.Code)
	}

	// Without an index or a catalog the routes say so.
	bare, err := New(Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, do(t, bare.Handler(), "GET", "/v1/search?q=x", nil), 501, "not_implemented")
	wantError(t, do(t, bare.Handler(), "GET", "/v1/stats", nil), 501, "not_implemented")
	wantError(t, do(t, h, "GET", "/v1/context?session=none", nil), 404, "not_found")
}

func TestErrorTable(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
	}{
		{fmt.Errorf("archive: get x: %w", memex.ErrNotFound), 404},
		{memex.ErrInvalid, 400},
		{memex.ErrAmbiguous, 400},
		{memex.ErrBudgetTooSmall, 422},
		{memex.ErrBusy, 503},
		{memex.ErrDiskFull, 507},
		{memex.ErrCorrupt, 500},
		{&http.MaxBytesError{Limit: 1}, 413},
		{errors.New("boom"), 500},
	} {
		if got, _ := classify(c.err); got != c.status {
			t.Errorf("classify(%v) = %d, want %d", c.err, got, c.status)
		}
	}
}

func TestAuth(t *testing.T) {
	s, st := newTestServer(t, "", Options{Token: "s3cret"})
	h := s.Handler()
	e := mustAdd(t, st, memex.Entry{}, "x")
	if w := do(t, h, "GET", "/healthz", nil); w.Code != 200 {
		t.Fatalf("healthz needs no token: %d", w.Code)
	}
	for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong"}, {"Authorization", "s3cret"}} {
		wantError(t, do(t, h, "GET", "/v1/entries/"+e.ID.String(), nil, hdr...), 401, "unauthorized")
	}
	wantError(t, do(t, h, "POST", "/mcp", strings.NewReader("{}")), 401, "unauthorized")
	if w := do(t, h, "GET", "/v1/entries/"+e.ID.String(), nil, "Authorization", "Bearer s3cret"); w.Code != 200 || w.Body.String() != "x" {
		t.Fatalf("with token: %d %q", w.Code, w.Body)
	}
}

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7077": true, "[::1]:7077": true, "localhost:7077": true, "127.0.0.2:80": true,
		"0.0.0.0:7077": false, ":7077": false, "[::]:7077": false, "192.168.1.4:7077": false, "example.com:80": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestBoundedBodies(t *testing.T) {
	s, st := newTestServer(t, "", Options{MaxBody: 1000, MaxJSON: 200})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	post := func(path, ctype string, body []byte) *http.Response {
		t.Helper()
		resp, err := http.Post(srv.URL+path, ctype, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if r := post("/v1/entries", "application/octet-stream", make([]byte, 1000)); r.StatusCode != 201 {
		t.Fatalf("add at the limit: %d", r.StatusCode)
	}
	for _, c := range []struct {
		path, ctype string
		n           int
	}{
		{"/v1/entries", "application/octet-stream", 1001},
		{"/v1/entries", "application/octet-stream", 10 << 20},
		{"/v1/entries", "application/json", 201},
		{"/v1/deref", "application/json", 10 << 20},
	} {
		body := bytes.Repeat([]byte("x"), c.n)
		if c.ctype == "application/json" {
			body = []byte(`{"content":"` + strings.Repeat("x", c.n) + `"}`)
		}
		r := post(c.path, c.ctype, body)
		if r.StatusCode != 413 {
			t.Errorf("%s %d bytes: status %d, want 413", c.path, c.n, r.StatusCode)
		}
	}
	stt, err := st.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stt.Entries != 1 {
		t.Fatalf("entries after refused adds: %d, want 1", stt.Entries)
	}
}

// TestConcurrentClients: 100 clients add and read back at once; every
// acknowledged entry reads back exactly.
func TestConcurrentClients(t *testing.T) {
	s, st := newTestServer(t, t.TempDir(), Options{})
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	const n = 100
	ids := make([]memex.ID, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf("output of client %d\n%s", i, strings.Repeat("x", i*37))
			resp, err := http.Post(srv.URL+"/v1/entries?session=c"+fmt.Sprint(i%7), "text/plain", strings.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			var e memex.Entry
			err = json.NewDecoder(resp.Body).Decode(&e)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 201 {
				errs <- fmt.Errorf("add %d: %d %v", i, resp.StatusCode, err)
				return
			}
			ids[i] = e.ID
			resp, err = http.Get(srv.URL + "/v1/entries/" + e.ID.String())
			if err != nil {
				errs <- err
				return
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != body {
				errs <- fmt.Errorf("read %d: got %d bytes, want %d", i, len(got), len(body))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	stt, err := st.Stats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if stt.Entries != n {
		t.Fatalf("entries %d, want %d", stt.Entries, n)
	}
}

// TestShutdownMidLoad cancels Serve while clients are adding: every add
// that was acknowledged is in the store after it is closed and reopened.
func TestShutdownMidLoad(t *testing.T) {
	dir := t.TempDir()
	st, err := archive.Open(dir, &archive.Options{MinFree: -1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	base := "http://" + ln.Addr().String()

	type ack struct {
		id   memex.ID
		body string
	}
	var mu sync.Mutex
	var acked []ack
	var wg sync.WaitGroup
	started := make(chan struct{}, 1000)
	client := &http.Client{}
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				body := fmt.Sprintf("worker %d add %d\n%s", w, i, strings.Repeat("y", 5000))
				resp, err := client.Post(base+"/v1/entries", "text/plain", strings.NewReader(body))
				if err != nil {
					return // the server is gone: stop
				}
				var e memex.Entry
				derr := json.NewDecoder(resp.Body).Decode(&e)
				resp.Body.Close()
				if resp.StatusCode == 201 && derr == nil {
					mu.Lock()
					acked = append(acked, ack{e.ID, body})
					mu.Unlock()
					select {
					case started <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	for range 50 { // let the load run for 50 acknowledged adds
		<-started
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	wg.Wait()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st2, err := archive.Open(dir, &archive.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	for _, a := range acked {
		got, err := st2.ReadAll(context.Background(), a.id)
		if err != nil || string(got) != a.body {
			t.Fatalf("acknowledged %s: %v (%d bytes)", a.id, err, len(got))
		}
	}
	t.Logf("%d acknowledged adds survived", len(acked))
}

func TestGetBudgetUsesDeref(t *testing.T) {
	s, st := newTestServer(t, "", Options{})
	e := mustAdd(t, st, memex.Entry{}, strings.Repeat("noise\n", 2000)+"panic: nil map\n"+strings.Repeat("noise\n", 2000))
	w := do(t, s.Handler(), "GET", "/v1/entries/"+e.ID.String()+"?budget=300&format=json", nil)
	dj := decode[DerefResult](t, w)
	if dj.Used > 300 || len(dj.Items) != 1 || dj.Items[0].Complete || !strings.Contains(dj.Text, "panic: nil map") {
		t.Fatalf("budgeted get: %+v", dj)
	}
	// header=0: the content alone, within the budget, as show --budget.
	small := mustAdd(t, st, memex.Entry{}, "tiny\n")
	w = do(t, s.Handler(), "GET", "/v1/entries/"+small.ID.String()+"?budget=2&header=0", nil)
	if w.Code != 200 || w.Body.String() != "tiny\n" {
		t.Fatalf("header=0: %d %q", w.Code, w.Body)
	}
	wantError(t, do(t, s.Handler(), "GET", "/v1/entries/"+small.ID.String()+"?budget=2", nil), 422, "budget_too_small")
}

type fakeIngester struct{ got *IngestRequest }

func (f fakeIngester) Ingest(_ context.Context, req IngestRequest) (IngestResult, error) {
	*f.got = req
	return IngestResult{Added: len(req.Paths)}, nil
}

func TestIngest(t *testing.T) {
	var got IngestRequest
	s, _ := newTestServer(t, "", Options{Ingester: fakeIngester{&got}})
	w := do(t, s.Handler(), "POST", "/v1/ingest", strings.NewReader(`{"format":"claude-code","paths":["/t/a.jsonl"]}`), "Content-Type", "application/json")
	if w.Code != 200 || got.Format != "claude-code" || len(got.Paths) != 1 || !strings.Contains(w.Body.String(), `"added":1`) {
		t.Fatalf("ingest: %d %s %+v", w.Code, w.Body, got)
	}
	// The options of memex ingest reach the Ingester.
	w = do(t, s.Handler(), "POST", "/v1/ingest", strings.NewReader(`{"format":"codex","paths":["/t"],"project":"p","no_redact":true,"full":true,"no_index":true}`), "Content-Type", "application/json")
	if w.Code != 200 || got.Format != "codex" || got.Project != "p" || !got.NoRedact || !got.Full || !got.NoIndex {
		t.Fatalf("ingest with options: %d %s %+v", w.Code, w.Body, got)
	}
	// No paths: the format's default locations, as memex ingest FORMAT.
	w = do(t, s.Handler(), "POST", "/v1/ingest", strings.NewReader(`{"format":"claude-code"}`), "Content-Type", "application/json")
	if w.Code != 200 || got.Format != "claude-code" || len(got.Paths) != 0 {
		t.Fatalf("ingest of the default locations: %d %s %+v", w.Code, w.Body, got)
	}
	wantError(t, do(t, s.Handler(), "POST", "/v1/ingest", strings.NewReader(`{"paths":["/t"]}`), "Content-Type", "application/json"), 400, "invalid")
	bare, _ := newTestServer(t, "", Options{})
	wantError(t, do(t, bare.Handler(), "POST", "/v1/ingest", strings.NewReader(`{"format":"x"}`), "Content-Type", "application/json"), 501, "not_implemented")
}

// TestInFlightLimit: with every slot taken a request queues and is served
// once one frees.
func TestInFlightLimit(t *testing.T) {
	s, _ := newTestServer(t, "", Options{MaxInFlight: 1})
	s.slots <- struct{}{} // the one slot is busy
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- do(t, s.Handler(), "GET", "/v1/sessions", nil) }()
	<-s.slots // free it: the queued request takes it
	if w := <-done; w.Code != 200 {
		t.Fatalf("queued request: %d %s", w.Code, w.Body)
	}
	if w := do(t, s.Handler(), "GET", "/healthz", nil); w.Code != 200 {
		t.Fatal("healthz is not limited")
	}
}

// TestEmptyContent: content may be empty but must be given, as for memex
// add and a JSONL line: "" (or an empty raw body) is an empty entry,
// an object without content (or with null) is 400 saying so.
func TestEmptyContent(t *testing.T) {
	s, _ := newTestServer(t, "", Options{})
	h := s.Handler()
	for _, c := range []struct {
		name string
		body string
		json bool
	}{
		{"raw, no body", "", false},
		{`json "content": ""`, `{"content":""}`, true},
		{`json "content_base64": ""`, `{"content_base64":""}`, true},
	} {
		var hdr []string
		if c.json {
			hdr = []string{"Content-Type", "application/json"}
		}
		w := do(t, h, "POST", "/v1/entries", strings.NewReader(c.body), hdr...)
		if w.Code != 201 {
			t.Fatalf("%s: %d %s", c.name, w.Code, w.Body)
		}
		e := decode[memex.Entry](t, w)
		w = do(t, h, "GET", "/v1/entries/"+e.ID.String()+"?format=json", nil)
		if got := decode[map[string]any](t, w); e.Bytes != 0 || got["content"] != "" {
			t.Errorf("%s: entry %+v, read back %v", c.name, e, got)
		}
	}
	for _, body := range []string{`{}`, `{"content":null}`, `{"session":"s1"}`} {
		w := do(t, h, "POST", "/v1/entries", strings.NewReader(body), "Content-Type", "application/json")
		wantError(t, w, 400, "invalid")
		want := `add: field "content" or "content_base64" is required ("" archives an empty entry): invalid input`
		if eb := decode[ErrorBody](t, w); eb.Error.Message != want {
			t.Errorf("%s: %q, want %q", body, eb.Error.Message, want)
		}
	}
}

func TestDecodeErrorWithoutJSON(t *testing.T) {
	// A bare status keeps its class only when one class has that status.
	if err := DecodeError(404, []byte("404 page not found"), "x"); !errors.Is(err, memex.ErrNotFound) {
		t.Errorf("bare 404: %v, want not found", err)
	}
	if err := DecodeError(503, nil, "x"); !errors.Is(err, memex.ErrBusy) {
		t.Errorf("bare 503: %v, want busy", err)
	}
	err := DecodeError(500, []byte("<html>Internal Server Error</html>"), "x")
	for _, kind := range []error{memex.ErrCorrupt, memex.ErrSchema} {
		if errors.Is(err, kind) {
			t.Errorf("a bare 500 from a proxy is %v: %v", kind, err)
		}
	}
}
