package service_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hosts"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/internal/spool"
)

func TestCheckStore(t *testing.T) {
	ctx := context.Background()
	msg := func(err error) string { return err.Error() }
	dir := t.TempDir()
	st, problems := service.CheckStore(ctx, dir, nil, msg)
	if st.Exists || !strings.HasPrefix(st.Note, "no store yet") || len(problems) != 0 {
		t.Fatalf("no store: %+v %v", st, problems)
	}
	h := open(t, dir, true)
	svc := service.New(h, service.Options{})
	for _, text := range []string{"one", "two"} {
		if _, err := svc.Add(ctx, api.AddRequest{Entry: memex.Entry{Project: "p", Kind: memex.KindNote}, Body: strings.NewReader(text)}); err != nil {
			t.Fatal(err)
		}
	}
	// The server's answer: the store's figures through its Client.
	srv, err := api.New(api.Options{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	st, problems = service.CheckStore(ctx, dir, &api.Client{Base: ts.URL}, msg)
	if !st.Exists || st.Schema == 0 || !strings.Contains(st.Note, "through the running server") || len(problems) != 0 {
		t.Fatalf("through the server: %+v %v", st, problems)
	}
	served := st.PendingIndex
	// Held by another process: busy, said, no problem.
	st, problems = service.CheckStore(ctx, dir, nil, msg)
	if !st.Exists || !strings.HasPrefix(st.Note, "busy: ") || len(problems) != 0 {
		t.Fatalf("busy: %+v %v", st, problems)
	}
	h.Close()
	st, problems = service.CheckStore(ctx, dir, nil, msg)
	if !st.Exists || st.PendingIndex != served || st.PendingIndex == 0 || len(problems) != 0 {
		t.Fatalf("local: %+v %v (served pending %d)", st, problems, served)
	}
	// What the spool holds is a problem, with its fix.
	if _, err := spool.Write(dir, spool.Item{Ingest: "/t/x.jsonl", Format: "codex"}); err != nil {
		t.Fatal(err)
	}
	_, problems = service.CheckStore(ctx, dir, nil, msg)
	if len(problems) != 1 || !strings.Contains(problems[0].Fix, "archives the spool first") {
		t.Fatalf("spool left: %v", problems)
	}
}

func TestCheckServerThatDoesNotAnswer(t *testing.T) {
	dir := t.TempDir()
	if sh, problems := service.CheckServer(dir, nil, ""); sh.Running || len(problems) != 0 {
		t.Fatalf("no server: %+v %v", sh, problems)
	}
	if err := home.WriteServer(dir, "127.0.0.1:1", "", ""); err != nil {
		t.Fatal(err)
	}
	sh, problems := service.CheckServer(dir, nil, "")
	if !sh.Running || sh.Answering || len(problems) != 1 || !strings.Contains(problems[0].Fix, "memex serve") {
		t.Fatalf("stale serve.addr: %+v %v", sh, problems)
	}
}

// Doctor gathers hosts, server and store into one report, OK only
// without a problem.
func TestDoctor(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	o := service.DoctorOptions{Version: "v1", Hosts: hosts.CheckOptions{Home: dir}, Message: func(err error) string { return err.Error() }}
	rep := service.Doctor(ctx, o)
	if !rep.OK || rep.Version != "v1" || rep.Home != dir || rep.Hosts == nil || len(rep.Problems) != 0 || rep.Server.Running || rep.Store.Exists {
		t.Fatalf("empty home: %+v", rep)
	}
	if err := home.WriteServer(dir, "127.0.0.1:9", "", ""); err != nil {
		t.Fatal(err)
	}
	rep = service.Doctor(ctx, o) // the server does not answer
	if rep.OK || !rep.Server.Running || rep.Server.Answering || len(rep.Problems) != 1 || rep.Problems[0].Where != "server" {
		t.Fatalf("a server that does not answer: %+v", rep)
	}
}

// Doctor asks a running server's /healthz once: the answer that finds it
// running also gives the version it reports.
func TestDoctorAsksHealthzOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	h := open(t, t.TempDir(), true)
	t.Cleanup(func() { h.Close() })
	srv, err := api.New(api.Options{Service: service.New(h, service.Options{}), Version: "v9"})
	if err != nil {
		t.Fatal(err)
	}
	var healthz atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			healthz.Add(1)
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	if err := home.WriteServer(dir, strings.TrimPrefix(ts.URL, "http://"), "", ""); err != nil {
		t.Fatal(err)
	}
	o := service.DoctorOptions{Version: "v1", Hosts: hosts.CheckOptions{Home: dir}, Message: func(err error) string { return err.Error() }}
	rep := service.Doctor(ctx, o)
	if !rep.Server.Running || !rep.Server.Answering || rep.Server.Version != "v9" || !rep.Store.Exists {
		t.Fatalf("a server that answers: %+v", rep)
	}
	if n := healthz.Load(); n != 1 {
		t.Fatalf("doctor asked /healthz %d times, want 1", n)
	}
}

// WriteDoctor counts the entries waiting for the index in words, and
// through a server does not say that the next search indexes them: the
// server does.
func TestWriteDoctorPendingIndex(t *testing.T) {
	rep := service.DoctorReport{Version: "v1", Home: "/h", OK: true,
		Server: service.ServerHealth{Running: true, Addr: "127.0.0.1:7077", Answering: true, Version: "v1"},
		Store:  service.StoreHealth{Exists: true, Schema: 3, PendingIndex: 1, Note: "read through the running server, which keeps the index caught up"}}
	var b strings.Builder
	service.WriteDoctor(&b, rep)
	if want := "store: schema v3, 1 entry waiting for the index (read through the running server, which keeps the index caught up)\n"; !strings.Contains(b.String(), want) {
		t.Fatalf("served:\n%s\nwant %q", b.String(), want)
	}
	rep.Server, rep.Store.Note, rep.Store.PendingIndex = service.ServerHealth{}, "", 2
	b.Reset()
	service.WriteDoctor(&b, rep)
	if want := "store: schema v3, 2 entries waiting for the index (the next memex search indexes them first)\n"; !strings.Contains(b.String(), want) {
		t.Fatalf("local:\n%s\nwant %q", b.String(), want)
	}
}
