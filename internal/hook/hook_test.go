package hook_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gofrs/flock"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/hook"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/internal/spool"
)

// run runs a Claude Code hook event on dir with in as the host's JSON and
// returns what it printed.
func run(t *testing.T, dir, event string, in map[string]any, server *api.Client) (stdout, stderr string) {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	hook.Run(context.Background(), hook.Options{Home: dir, Stdout: &out, Stderr: &errb,
		Server: func(context.Context) *api.Client { return server }}, "claude-code", event, bytes.NewReader(b))
	return out.String(), errb.String()
}

func post(id, command, out string) map[string]any {
	return map[string]any{"hook_event_name": "PostToolUse", "session_id": "sp", "tool_name": "Bash",
		"tool_input": map[string]string{"command": command}, "tool_use_id": id,
		"tool_response": map[string]any{"stdout": out, "stderr": "", "interrupted": false}}
}

// entry reads the entry under ref and its body from dir's store.
func entry(t *testing.T, dir, ref string) (memex.Entry, string) {
	t.Helper()
	h, err := home.Open(context.Background(), dir, home.Options{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	svc := service.New(h, service.Options{})
	e, err := svc.Entry(context.Background(), ref, "")
	if err != nil {
		t.Fatalf("entry %s: %v", ref, err)
	}
	rc, err := svc.Lines(context.Background(), api.LinesRequest{ID: e.ID})
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	var b bytes.Buffer
	b.ReadFrom(rc)
	return e, b.String()
}

func spooled(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, home.SpoolDir, "*.json"))
	return files
}

// A PostToolUse that finds the store taken spools the call at once; the
// next hook that holds the store archives it.
func TestPostToolUseSpoolsWhenBusy(t *testing.T) {
	dir := t.TempDir()
	lk := flock.New(filepath.Join(dir, home.LockFile))
	if err := lk.Lock(); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "PostToolUse", post("toolu_busy", "echo", "written while busy\n"), nil)
	if got := spooled(t, dir); len(got) != 1 {
		t.Fatalf("spool holds %v", got)
	}
	lk.Unlock()
	run(t, dir, "PostToolUse", post("toolu_free", "echo", "written when free\n"), nil)
	if left := spooled(t, dir); len(left) != 0 {
		t.Fatalf("spool not drained: %v", left)
	}
	for id, want := range map[string]string{"toolu_busy": "written while busy\n", "toolu_free": "written when free\n"} {
		if _, body := entry(t, dir, id); body != want {
			t.Fatalf("%s holds %q, want %q", id, body, want)
		}
	}
}

// What a busy store makes a hook spool went through the write policy
// first, and is archived with its count, as what it archives at once.
func TestSpoolHoldsNoSecret(t *testing.T) {
	dir := t.TempDir()
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	lk := flock.New(filepath.Join(dir, home.LockFile))
	if err := lk.Lock(); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "PostToolUse", post("toolu_busy", "gh auth token "+secret, "token "+secret+"\n"), nil)
	files := spooled(t, dir)
	if len(files) != 1 {
		t.Fatalf("spool holds %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil || strings.Contains(string(b), secret) || strings.Contains(string(b), base64.StdEncoding.EncodeToString([]byte("token "+secret))) {
		t.Fatalf("the spool holds the secret: %s %v", b, err)
	}
	lk.Unlock()
	run(t, dir, "PostToolUse", post("toolu_free", "gh auth token "+secret, "token "+secret+"\n"), nil)
	for _, id := range []string{"toolu_busy", "toolu_free"} {
		e, body := entry(t, dir, id)
		if strings.Contains(e.Input+body, secret) || e.Redacted != 2 || !strings.Contains(body, "[REDACTED:") {
			t.Fatalf("%s: input %q body %q redacted %d", id, e.Input, body, e.Redacted)
		}
	}
}

// A server that went away before it answered: a failed call (which asks
// the server for its lesson line) is spooled, as a busy store's is, and
// archived by the next hook that holds the store.
func TestServerGoneSpools(t *testing.T) {
	dir := t.TempDir()
	ts := httptest.NewServer(nil)
	gone := &api.Client{Base: ts.URL}
	ts.Close()
	failed := map[string]any{"hook_event_name": "PostToolUseFailure", "session_id": "sp", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "false"}, "tool_use_id": "toolu_gone", "error": "while the server went away\n"}
	_, stderr := run(t, dir, "PostToolUseFailure", failed, gone)
	if got := spooled(t, dir); len(got) != 1 || stderr != "" {
		t.Fatalf("spool holds %v; stderr %q", got, stderr)
	}
	run(t, dir, "PostToolUse", post("toolu_next", "echo", "next\n"), nil)
	if _, body := entry(t, dir, "toolu_gone"); body != "while the server went away\n" {
		t.Fatalf("toolu_gone holds %q", body)
	}
}

// A hook says what is wrong on stderr and prints nothing on stdout.
func TestProblemsGoToStderr(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ host, event, stdin, says string }{
		{"claude-code", "PostToolUse", "not json", "memex hook:"},
		{"claude-code", "PreCompact", `{"transcript_path":"/nonexistent.jsonl"}`, "memex hook PreCompact:"},
		{"nohost", "PostToolUse", `{}`, "unknown host"},
		{"claude-code", "Whatever", `{}`, ""},
	} {
		var out, errb bytes.Buffer
		hook.Run(context.Background(), hook.Options{Home: dir, Stdout: &out, Stderr: &errb}, c.host, c.event, strings.NewReader(c.stdin))
		if out.Len() != 0 || !strings.Contains(errb.String(), c.says) || c.says == "" && errb.Len() != 0 {
			t.Errorf("%s %s <%q: stdout %q, stderr %q", c.host, c.event, c.stdin, out.String(), errb.String())
		}
	}
}

// The drain event archives what hooks spooled, reading no input: what
// memex-hook hands to memex when it was the last hook in flight.
func TestDrainArchivesTheSpool(t *testing.T) {
	dir := t.TempDir()
	fl, err := spool.Enter(dir) // another hook in flight: the capture does not drain
	if err != nil {
		t.Fatal(err)
	}
	run(t, dir, "PostToolUse", post("toolu_drained", "echo", "spooled, then drained\n"), nil)
	fl.Leave()
	if got := spooled(t, dir); len(got) != 1 {
		t.Fatalf("spooled %v, want the call", got)
	}
	var out, errb bytes.Buffer
	hook.Run(context.Background(), hook.Options{Home: dir, Stdout: &out, Stderr: &errb}, "claude-code", spool.DrainEvent, strings.NewReader(""))
	if out.Len() != 0 || errb.Len() != 0 {
		t.Fatalf("drain printed %q, %q", out.String(), errb.String())
	}
	if got := spooled(t, dir); len(got) != 0 {
		t.Fatalf("left in the spool: %v", got)
	}
	if _, body := entry(t, dir, "cc:toolu_drained"); body != "spooled, then drained\n" {
		t.Errorf("archived body %q", body)
	}
}

// With no Options.Server, a hook talks to the server its home names
// (serve.addr): the call is archived in the served store, and the home
// gets none of its own.
func TestHookFindsTheServerItsHomeNames(t *testing.T) {
	ctx := context.Background()
	served, dir := t.TempDir(), t.TempDir()
	h, err := home.Open(ctx, served, home.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv, err := api.New(api.Options{Service: service.New(h, service.Options{}), Memory: service.NewMemory(h, service.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	if err := home.WriteServer(dir, strings.TrimPrefix(ts.URL, "http://"), "", ""); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(post("toolu_served", "echo served", "served\n"))
	var out, errb bytes.Buffer
	hook.Run(ctx, hook.Options{Home: dir, Stdout: &out, Stderr: &errb}, "claude-code", "PostToolUse", bytes.NewReader(b))
	if errb.Len() > 0 {
		t.Fatalf("stderr: %s", errb.String())
	}
	if _, err := service.New(h, service.Options{}).Entry(ctx, "toolu_served", ""); err != nil {
		t.Fatalf("the call is not in the served store: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, home.StoreDir)); !os.IsNotExist(err) {
		t.Errorf("the hook made a store of its own in its home: %v", err)
	}
}
