package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/testutil"
)

// startServe runs `memex serve` in process on a free loopback port and
// returns its address once it serves; the server stops at the test's end.
func startServe(t *testing.T, home string, args ...string) string {
	t.Helper()
	return startServeUntil(t, home, "", args...)
}

// startServeUntil is startServe that also waits for a line of the
// server's log containing until.
func startServeUntil(t *testing.T, home, until string, args ...string) string {
	t.Helper()
	addr, _ := startServeLog(t, home, until, args...)
	return addr
}

// startServeLog is startServeUntil that also returns the log lines read
// until both the address and until were seen.
func startServeLog(t *testing.T, home, until string, args ...string) (string, []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Run(ctx, append([]string{"--home", home, "serve", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, pw)
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	sc := bufio.NewScanner(pr)
	var addr string
	var log []string
	seen := until == ""
	// The line awaited may come before the one saying where the server
	// listens (a background import of nothing is quick).
	for (addr == "" || !seen) && sc.Scan() {
		line := sc.Text()
		log = append(log, line)
		if i := strings.Index(line, "on http://"); i >= 0 && addr == "" {
			addr = strings.Fields(line[i+len("on http://"):])[0]
		}
		seen = seen || strings.Contains(line, until)
	}
	if addr == "" || !seen {
		cancel()
		t.Fatalf("serve did not start or did not log %q: %v", until, <-done)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if _, err := os.Stat(filepath.Join(home, "serve.addr")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("serve.addr left behind: %v", err)
		}
	})
	return addr, log
}

func TestServeRoutesCommands(t *testing.T) {
	home := t.TempDir()
	addr := startServe(t, home)
	b, err := os.ReadFile(filepath.Join(home, "serve.addr"))
	if err != nil || strings.TrimSpace(string(b)) != addr {
		t.Fatalf("serve.addr = %q, %v; want %s", b, err, addr)
	}
	body := []byte("=== RUN TestRoute\n--- FAIL: TestRoute\n\xff binary\n")
	r := run(t, home, body, "add", "--tool", "bash", "--input", "go test", "--alias", "rt1", "--session", "s9", "--exit", "1", "-")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("add through the server: %+v", r)
	}
	id := strings.TrimSpace(r.stdout)
	if _, err := memex.ParseID(id); err != nil {
		t.Fatalf("add printed %q", r.stdout)
	}
	if r := run(t, home, nil, "show", "rt1"); r.code != 0 || r.stdout != string(body) {
		t.Fatalf("show through the server: %+v", r)
	}
	if r := run(t, home, nil, "show", id, "--lines", "2"); r.stdout != "--- FAIL: TestRoute\n" {
		t.Fatalf("show --lines: %q", r.stdout)
	}
	r = run(t, home, nil, "show", id, "--json")
	var sj api.EntryJSON
	if err := json.Unmarshal([]byte(r.stdout), &sj); err != nil || sj.Session != "s9" || sj.Exit == nil || *sj.Exit != 1 || sj.ContentBase64 == "" {
		t.Fatalf("show --json: %v %s", err, r.stdout)
	}
	// Not valid UTF-8: show --budget gives the note, as without a server.
	if r := run(t, home, nil, "show", id, "--budget", "200"); r.code != 0 || !strings.HasPrefix(r.stdout, "[memex: binary content (47 bytes) not shown") {
		t.Fatalf("show --budget: %+v", r)
	}
	// show --budget counts the content alone, through the server as here.
	tiny := strings.TrimSpace(run(t, home, []byte("tiny\n"), "add").stdout)
	if r := run(t, home, nil, "show", tiny, "--budget", "2"); r.code != 0 || r.stdout != "tiny\n" {
		t.Fatalf("show --budget 2 of a 2-token entry through the server: %+v", r)
	}
	if r := run(t, home, nil, "search", "TestRoute", "--session", "s9"); r.code != 0 || !strings.HasPrefix(r.stdout, id) {
		t.Fatalf("search through the server: %+v", r)
	}
	if r := run(t, home, nil, "search", "TestRoute", "--session", "other"); r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no matches") {
		t.Fatalf("filtered search: %+v", r)
	}
	if r := run(t, home, nil, "show", "nope"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("show unknown through the server: %+v", r)
	}
	// Maintenance goes through the server too (issue 14).
	if r := run(t, home, nil, "verify"); r.code != 0 || !strings.Contains(r.stderr, "verified 2 entries, 0 problems") {
		t.Fatalf("verify while serving: %+v", r)
	}
	if r := run(t, home, nil, "serve", "--addr", "127.0.0.1:0"); r.code != 1 || !strings.Contains(r.stderr, "already running") {
		t.Fatalf("second serve: %+v", r)
	}
}

func TestServeWithToken(t *testing.T) {
	home := t.TempDir()
	tokFile := filepath.Join(t.TempDir(), "tok")
	if err := os.WriteFile(tokFile, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startServe(t, home, "--token-file", tokFile)
	r := run(t, home, []byte("guarded\n"), "add", "-")
	if r.code != 0 {
		t.Fatalf("add with token: %+v", r)
	}
	if r := run(t, home, nil, "show", strings.TrimSpace(r.stdout)); r.stdout != "guarded\n" {
		t.Fatalf("show with token: %+v", r)
	}
}

// TestServeIngestsInBackground: serve --ingest imports the host's
// transcripts from their default location.
func TestServeIngestsInBackground(t *testing.T) {
	corpora := testutil.Corpora(t)
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	const name = "fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"
	b, err := os.ReadFile(filepath.Join(corpora, "claude-code", "projects", "-Users-dain-workspace-claude-code-log-sample", name))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(userHome, ".claude", "projects", "-sample", name), string(b))
	home := t.TempDir()
	startServeUntil(t, home, "background import", "--ingest", "claude-code", "-v")
	r := run(t, home, nil, "context", "--session", strings.TrimSuffix(name, ".jsonl"), "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"entries"`) {
		t.Fatalf("imported session through the server: %+v", r)
	}
}

// TestServeIngestQuietWithoutTranscripts: serve --ingest on a machine
// whose default locations exist but hold no transcript yet neither warns
// nor stops.
func TestServeIngestQuietWithoutTranscripts(t *testing.T) {
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	t.Setenv("CODEX_HOME", "")
	for _, d := range []string{filepath.Join(".codex", "sessions"), filepath.Join(".codex", "archived_sessions")} {
		if err := os.MkdirAll(filepath.Join(userHome, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	addr, log := startServeLog(t, home, "background import", "--ingest", "codex", "-v")
	for _, l := range log {
		if strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") ||
			strings.Contains(l, "background import") && !strings.Contains(l, "level=DEBUG") {
			t.Errorf("serve logged %q", l)
		}
	}
	if r := run(t, home, []byte("still serving\n"), "add", "-"); r.code != 0 {
		t.Fatalf("the server at %s stopped answering: %+v", addr, r)
	}
}

func TestServeRedactsAndTakesRunOutput(t *testing.T) {
	home := t.TempDir()
	startServe(t, home)
	secret := "AKIAIOSFODNN7EXAMPLE"
	if r := run(t, home, []byte("AWS_ACCESS_KEY_ID="+secret+"\n"), "add", "--alias", "viahttp", "-"); r.code != 0 {
		t.Fatalf("add through the server: %+v", r)
	}
	if r := run(t, home, nil, "show", "viahttp"); r.code != 0 || strings.Contains(r.stdout, secret) || !strings.Contains(r.stdout, "[REDACTED:") {
		t.Fatalf("the server stored a secret: %+v", r)
	}
	r := run(t, home, nil, "run", "--quiet", "--alias", "ran", "--", "sh", "-c", "echo token="+secret+"; exit 4")
	if r.code != 4 || !strings.Contains(r.stderr, "memex show ") {
		t.Fatalf("run while serving: %+v", r)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "spool")); len(entries) != 0 {
		t.Fatalf("run left its output in the spool: %v", entries)
	}
	if s := run(t, home, nil, "show", "ran", "--json"); s.code != 0 || strings.Contains(s.stdout, secret) || !strings.Contains(s.stdout, `"exit": 4`) {
		t.Fatalf("run's entry through the server: %+v", s)
	}
}

// runServeRefused runs `memex serve` in process with a context that is
// already done: a serve that rejects its flags returns their error, and
// one that wrongly starts stops at once instead of serving for good.
func runServeRefused(t *testing.T, home string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	err := Run(ctx, append([]string{"--home", home, "serve"}, args...), strings.NewReader(""), &out, &errb)
	return result{cli.ExitCode(err, &errb), out.String(), errb.String()}
}

// noTranscripts points the hosts' default transcript locations at an
// empty home, so that a serve --ingest under test reads nothing of the
// user's.
func noTranscripts(t *testing.T) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"} {
		t.Setenv(k, "")
	}
}

// emptyDir fails the test if dir holds anything.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s left behind in %s", e.Name(), dir)
	}
}

// TestServeRejectsMalformedAddr: a malformed --addr is a usage error
// caught before serve creates anything (no token, no store).
func TestServeRejectsMalformedAddr(t *testing.T) {
	for _, addr := range []string{"bogus", "0.0.0.0", "127.0.0.1:99999", "127.0.0.1:-1", "0.0.0.0:7077:1"} {
		home := t.TempDir()
		r := runServeRefused(t, home, "--addr", addr)
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--addr") {
			t.Errorf("serve --addr %s: %+v", addr, r)
		}
		emptyDir(t, home)
	}
}

// TestServeLeavesNoTokenWhenItCannotListen: off loopback serve creates
// $MEMEX_HOME/token, but only once it listens. 192.0.2.1 (TEST-NET-1) is
// on no interface here, so binding it fails without sending a packet.
func TestServeLeavesNoTokenWhenItCannotListen(t *testing.T) {
	home := t.TempDir()
	r := runServeRefused(t, home, "--addr", "192.0.2.1:0")
	if r.code != cli.ExitFailure || !strings.Contains(r.stderr, "192.0.2.1") {
		t.Fatalf("serve on an address of no interface: %+v", r)
	}
	if strings.Contains(r.stderr, "token") {
		t.Errorf("serve spoke of a token: %q", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "token")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token created by a serve that never listened: %v", err)
	}
}

// TestServeIngestNeedsDefaultLocations: --ingest takes only formats with
// default locations; the others (and unknown names) are usage errors at
// start-up that name the formats it takes, before anything is created.
func TestServeIngestNeedsDefaultLocations(t *testing.T) {
	noTranscripts(t)
	for _, arg := range []string{"jsonl", "claude-code,swe-agent", "mini-swe-agent", "bogus"} {
		home := t.TempDir()
		r := runServeRefused(t, home, "--addr", "127.0.0.1:0", "--ingest", arg)
		if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--ingest") ||
			!strings.Contains(r.stderr, "claude-code, codex, opencode, gemini, auto") {
			t.Errorf("serve --ingest %s: %+v", arg, r)
		}
		emptyDir(t, home)
	}
}

// TestServeRejectsNonPositiveIngestEvery: --ingest-every 0s, a negative
// duration or one under a second (a spinning loop) is a usage error, not a
// silent default.
func TestServeRejectsNonPositiveIngestEvery(t *testing.T) {
	noTranscripts(t)
	for _, every := range []string{"0s", "0", "-5s", "1ns", "500ms"} {
		for _, args := range [][]string{{"--ingest", "codex"}, nil} {
			home := t.TempDir()
			r := runServeRefused(t, home, append([]string{"--addr", "127.0.0.1:0", "--ingest-every", every}, args...)...)
			if r.code != cli.ExitUsage || !strings.Contains(r.stderr, "--ingest-every") {
				t.Errorf("serve --ingest-every %s %v: %+v", every, args, r)
			}
			emptyDir(t, home)
		}
	}
}

// TestServeAddrFileFormat pins the documented format of serve.addr: the
// address alone on the first line (what scripts read with head -n1) and,
// only when the server requires a token, the token file's absolute path
// on the second; serve --help says so.
func TestServeAddrFileFormat(t *testing.T) {
	home := t.TempDir()
	addr := startServe(t, home)
	if b, err := os.ReadFile(filepath.Join(home, "serve.addr")); err != nil || string(b) != addr+"\n" {
		t.Fatalf("serve.addr without a token = %q, %v; want %q", b, err, addr+"\n")
	}

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "tok"), "0123456789abcdef0123\n")
	t.Chdir(dir)
	home = t.TempDir()
	addr = startServe(t, home, "--token-file", "tok") // relative to the working directory
	b, err := os.ReadFile(filepath.Join(home, "serve.addr"))
	if err != nil || string(b) != addr+"\n"+filepath.Join(dir, "tok")+"\n" {
		t.Fatalf("serve.addr with a token = %q, %v; want the address, then the token file's absolute path", b, err)
	}

	help := run(t, home, nil, "serve", "--help").stdout
	for _, want := range []string{"first line is the address", "second line", "token file", "head -n1"} {
		if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
			t.Errorf("serve --help does not say %q about serve.addr:\n%s", want, help)
		}
	}
}

// TestServeSessionsAndStatsMatchLocal: memex sessions and stats go through
// a running server and print what they print from the store: the same
// bytes for sessions (text and --json, filters included), the same JSON
// keys and value types for stats, and the same figures but those that
// opening the store to serve changes (its size on disk, and the entries
// not yet indexed).
func TestServeSessionsAndStatsMatchLocal(t *testing.T) {
	home := t.TempDir()
	dir := copyTree(t, filepath.Join(testutil.ModuleRoot(), "ingest", "testdata", "claude"))
	if r := run(t, home, nil, "ingest", "claude-code", dir); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	for i, s := range []string{"s-a", "s-a", "s-b"} {
		if r := run(t, home, []byte(fmt.Sprintf("output %d\n", i)), "add", "--session", s, "--agent", "codex",
			"--project", "github.com/acme/api", "--tool", "bash", "-"); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	commands := [][]string{
		{"sessions"}, {"sessions", "--json"},
		{"sessions", "--agent", "codex", "--json"}, {"sessions", "--project", "github.com/acme/api"},
		{"sessions", "--agent", "nobody", "--json"}, {"sessions", "--agent", "nobody"},
		{"stats"}, {"stats", "--json"},
	}
	local := make([]result, len(commands))
	for i, args := range commands {
		if local[i] = run(t, home, nil, args...); local[i].code != 0 || local[i].stderr != "" {
			t.Fatalf("%v: %+v", args, local[i])
		}
	}
	var listed api.SessionList
	if err := json.Unmarshal([]byte(local[1].stdout), &listed); err != nil || len(listed.Sessions) < 3 {
		t.Fatalf("sessions --json: %v %s", err, local[1].stdout)
	}

	startServe(t, home)
	for i, args := range commands {
		got := run(t, home, nil, args...)
		if got.code != 0 || got.stderr != "" {
			t.Fatalf("%v through the server: %+v", args, got)
		}
		switch args[0] {
		case "sessions":
			if got.stdout != local[i].stdout {
				t.Errorf("%v through the server printed\n%s\nfrom the store\n%s", args, got.stdout, local[i].stdout)
			}
		case "stats":
			if len(args) == 1 {
				// The sizes on disk move with the server's own writes.
				g := dropLine(dropLine(got.stdout, "on disk"), "index on disk")
				if l := dropLine(dropLine(local[i].stdout, "on disk"), "index on disk"); g != l {
					t.Errorf("stats through the server printed\n%s\nfrom the store\n%s", got.stdout, local[i].stdout)
				}
				continue
			}
			var g, l map[string]any
			if err := json.Unmarshal([]byte(got.stdout), &g); err != nil {
				t.Fatal(err, got.stdout)
			}
			if err := json.Unmarshal([]byte(local[i].stdout), &l); err != nil {
				t.Fatal(err, local[i].stdout)
			}
			if len(g) != len(l) {
				t.Errorf("stats --json keys: through the server %v, from the store %v", g, l)
			}
			for k, lv := range l {
				gv, ok := g[k]
				if !ok || fmt.Sprintf("%T", gv) != fmt.Sprintf("%T", lv) {
					t.Errorf("stats --json %q: through the server %v (%T), from the store %v (%T)", k, gv, gv, lv, lv)
				} else if k != "disk_bytes" && k != "index_bytes" && k != "pending_index" && gv != lv {
					t.Errorf("stats --json %q: through the server %v, from the store %v", k, gv, lv)
				}
			}
		}
	}
}

// dropLine returns s without its lines that start with prefix.
func dropLine(s, prefix string) string {
	var keep []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, prefix) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "")
}

// TestServeReplayMatchesLocal: memex replay goes through a running server
// and prints the same bytes as from the store, in text, --full (binary
// content included) and --json, and fails the same way for an unknown
// session.
func TestServeReplayMatchesLocal(t *testing.T) {
	home := t.TempDir()
	dir := copyTree(t, filepath.Join(testutil.ModuleRoot(), "ingest", "testdata", "claude"))
	if r := run(t, home, nil, "ingest", "claude-code", dir); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	for _, body := range []string{"plain output\nsecond line\n", "\x00\x01 caf\xe9 not utf-8\n", ""} {
		if r := run(t, home, []byte(body), "add", "--session", "s-r", "--tool", "bash", "--summary", "a step", "-"); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	var list api.SessionList
	if r := run(t, home, nil, "sessions", "--json"); json.Unmarshal([]byte(r.stdout), &list) != nil || len(list.Sessions) < 2 {
		t.Fatalf("sessions --json: %+v", r)
	}
	var commands [][]string
	for _, si := range list.Sessions {
		for _, flags := range [][]string{nil, {"--full"}, {"--json"}, {"--full", "--json"}} {
			commands = append(commands, append([]string{"replay", si.Session}, flags...))
		}
	}
	commands = append(commands, []string{"replay", "no-such-session"}, []string{"replay", "no-such-session", "--full", "--json"})
	local := make([]result, len(commands))
	for i, args := range commands {
		local[i] = run(t, home, nil, args...)
	}
	if local[0].code != 0 || local[0].stdout == "" || local[len(local)-1].code == 0 {
		t.Fatalf("replay from the store: %+v ... %+v", local[0], local[len(local)-1])
	}

	startServe(t, home)
	for i, args := range commands {
		if got := run(t, home, nil, args...); got != local[i] {
			t.Errorf("%v through the server: %+v\nfrom the store: %+v", args, got, local[i])
		}
	}
}

// TestServeIngestMatchesLocal: memex ingest goes through a running server
// and prints what it prints without one: the same report (text and
// --json), problems on stderr (relative paths named as given, the
// "more problems" cut) and exit status. The same imports run in a home
// without a server and in one with a server.
func TestServeIngestMatchesLocal(t *testing.T) {
	user := t.TempDir()
	t.Setenv("HOME", user)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"} {
		t.Setenv(k, "")
	}
	if err := os.MkdirAll(filepath.Join(user, ".codex", "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	claude := copyTree(t, filepath.Join(testutil.ModuleRoot(), "ingest", "testdata", "claude"))
	if err := os.Rename(claude, filepath.Join(work, "claude")); err != nil {
		t.Fatal(err)
	}
	gemini, err := os.ReadFile(ingestFixture("other", "gemini", "session.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "gemini.json"), string(gemini))
	if err := os.Mkdir(filepath.Join(work, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	rollout := ingestFixture("codex", codexRolloutName)
	commands := [][]string{
		{"ingest", "claude-code", "claude"},
		{"ingest", "claude-code", "./claude", "--json"}, // unchanged
		{"ingest", "claude-code", "./claude", "--full"}, // read again, nothing new
		{"ingest", "codex", "empty"},                    // no file: exit 1
		{"ingest", "codex", "./missing", "empty", "--json"},
		{"ingest", "jsonl", "gemini.json"}, // more than 20 problems, nothing imported
		{"ingest", "jsonl", ingestFixture("jsonl"), "gemini.json", "-q"},
		{"ingest", "auto", "gemini.json", "--json"},
		{"ingest", "jsonl"}, // no default location
		{"ingest", "codex"}, // default locations, empty
		{"ingest", "codex", rollout, "--no-index", "--no-redact"},
	}
	runAll := func(home string) []result {
		out := make([]result, len(commands))
		for i, args := range commands {
			out[i] = run(t, home, nil, args...)
		}
		return out
	}
	local := runAll(t.TempDir())
	if local[0].code != 0 || !strings.Contains(local[0].stdout, "entries added") || local[3].code != 1 ||
		!strings.Contains(local[5].stderr, "more problems") || local[8].code == 0 {
		t.Fatalf("ingest without a server: %+v", local)
	}
	home := t.TempDir()
	startServe(t, home)
	for i, got := range runAll(home) {
		if got != local[i] {
			t.Errorf("%v through the server: %+v\nwithout one: %+v", commands[i], got, local[i])
		}
	}
	// The server imported them: the session replays through it.
	if r := run(t, home, nil, "replay", "s1"); r.code != 0 || !strings.Contains(r.stdout, "context compacted here") {
		t.Fatalf("replay of the imported session: %+v", r)
	}
}
