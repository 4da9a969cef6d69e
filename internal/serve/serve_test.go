package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/eval"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
)

func TestToken(t *testing.T) {
	dir := t.TempDir()
	if tok, _, err := Token(dir, "127.0.0.1:7077", "", io.Discard); err != nil || tok != "" {
		t.Fatalf("loopback: %q %v", tok, err)
	}
	var said strings.Builder
	tok, path, err := Token(dir, "0.0.0.0:7077", "", &said)
	if err != nil || len(tok) != 64 {
		t.Fatalf("generated token: %q %v", tok, err)
	}
	if !strings.Contains(said.String(), "created a bearer token in "+path) {
		t.Fatalf("creation not said: %q", said.String())
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode: %v %v", fi.Mode(), err)
	}
	if again, _, _ := Token(dir, "0.0.0.0:7077", "", io.Discard); again != tok {
		t.Fatalf("token changed on second use")
	}
	bad := filepath.Join(t.TempDir(), "short")
	os.WriteFile(bad, []byte("x\n"), 0o600)
	if _, _, err := Token(dir, "0.0.0.0:7077", bad, io.Discard); !errors.Is(err, memex.ErrInvalid) {
		t.Fatalf("short token: %v", err)
	}
	if _, _, err := Token(dir, "10.0.0.1:7077", filepath.Join(t.TempDir(), "missing"), io.Discard); err == nil {
		t.Fatal("missing token file: no error")
	}
}

// TestRun: the server names itself in serve.addr, answers over it with the
// home's archive, and removes the file when its context ends.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	h, err := home.Open(ctx, dir, home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := service.New(h, service.Options{}).Add(ctx, api.AddRequest{
		Entry: memex.Entry{Project: "p", Session: "s1", Agent: "cli", Kind: memex.KindNote}, Body: strings.NewReader("a note\n")}); err != nil {
		t.Fatal(err)
	}
	// A run saved in the home's eval folder is on the viewer's eval page.
	if _, err := eval.SaveRun(eval.RunsDir(dir), eval.Run{Probes: "home-probes.jsonl",
		Report: eval.Report{Probes: 1, Cells: []eval.Cell{{Strategy: "memex", Budget: 1000}}}}); err != nil {
		t.Fatal(err)
	}
	var stats, named, evalPage string
	got := make(chan struct{})
	err = Run(ctx, h, Options{Addr: "127.0.0.1:0", Ready: func(addr string) {
		b, _ := os.ReadFile(filepath.Join(dir, "serve.addr"))
		named = string(b)
		go func() {
			defer close(got)
			defer cancel()
			resp, err := http.Get("http://" + addr + "/v1/stats")
			if err != nil {
				stats = err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			stats = string(b)
			if resp, err := http.Get("http://" + addr + "/eval"); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				evalPage = string(b)
			}
		}()
	}})
	<-got
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.HasPrefix(named, "127.0.0.1:") {
		t.Fatalf("serve.addr while serving: %q", named)
	}
	if !strings.Contains(stats, `"entries":1`) {
		t.Fatalf("stats through the server: %s", stats)
	}
	if _, err := os.Stat(filepath.Join(dir, "serve.addr")); !os.IsNotExist(err) {
		t.Fatalf("serve.addr left behind: %v", err)
	}
	if !strings.Contains(evalPage, "home-probes.jsonl") {
		t.Errorf("the eval page does not show the run saved in the home:\n%s", evalPage)
	}
}

func TestSessionKeys(t *testing.T) {
	ctx := context.Background()
	h, err := home.Open(ctx, t.TempDir(), home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	svc := service.New(h, service.Options{})
	for _, body := range []string{"one\n", "two\n"} {
		if _, err := svc.Add(ctx, api.AddRequest{Entry: memex.Entry{Project: "p", Session: "s1", Agent: "cli", Kind: memex.KindNote},
			Body: strings.NewReader(body)}); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := SessionKeys{h.Store}.SessionKeys(ctx)
	if err != nil || len(keys) != 1 || keys[0].Session != "s1" || keys[0].Project != "p" || keys[0].Entries != 2 || keys[0].First.IsZero() {
		t.Fatalf("session keys: %+v, %v", keys, err)
	}
}

func TestEvalRunsOfEmptyAndMissingFolders(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "notes.txt"), []byte("not a run\n"), 0o600)
	runs, err := EvalRuns{d, d, filepath.Join(d, "missing")}.EvalRuns(context.Background())
	if err != nil || len(runs) != 0 {
		t.Fatalf("eval runs: %+v, %v", runs, err)
	}
}

// A server listening on every interface says so: the address it prints is
// the loopback one to dial.
func TestListeningOnEveryInterfaceIsSaid(t *testing.T) {
	for _, c := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4zero, Port: 7077}, "listening on every interface (0.0.0.0:7077)"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 7077}, "listening on every interface ([::]:7077)"},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 7077}, ""},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 2), Port: 7077}, ""},
	} {
		got := listening(c.addr)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("listening(%v) = %q, want %q", c.addr, got, c.want)
		}
	}
}
