package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/gofrs/flock"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/internal/cli"
)

// memexBin is the real binary, built once for the tests that need separate
// processes.
var memexBin string

func TestMain(m *testing.M) {
	if os.Getenv("MEMEX_SCALE_HELPER") != "" {
		// A baseline process of BenchmarkIngestScale: no binary to build.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "memex-bin-")
	if err != nil {
		panic(err)
	}
	memexBin = filepath.Join(dir, "memex")
	build := exec.Command("go", "build", "-o", memexBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building memex:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// run calls Run in-process against home, as main would.
func run(t *testing.T, home string, stdin []byte, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	err := Run(context.Background(), append([]string{"--home", home}, args...), bytes.NewReader(stdin), &out, &errb)
	code := cli.ExitCode(err, &errb)
	return result{code, out.String(), errb.String()}
}

func TestAddThenShowIsByteIdentical(t *testing.T) {
	home := t.TempDir()
	bodies := [][]byte{
		[]byte("plain text\nsecond line\n"),
		{},
		{0, 1, 2, 0xff, '\n', 0x80, 0xfe},
		[]byte("caf\xe9 invalid utf-8"),
	}
	for _, body := range bodies {
		r := run(t, home, body, "add", "-")
		if r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
		id := strings.TrimSpace(r.stdout)
		if _, err := memex.ParseID(id); err != nil {
			t.Fatalf("add printed %q", r.stdout)
		}
		s := run(t, home, nil, "show", id)
		if s.code != 0 || s.stdout != string(body) {
			t.Fatalf("show %s = %q (code %d), want %q", id, s.stdout, s.code, body)
		}
	}
}

func TestAddJSONAndFlagsAfterArguments(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(t.TempDir(), "log.txt")
	os.WriteFile(file, []byte("one\ntwo\nthree\nfour\n"), 0o644)
	r := run(t, home, nil, "add", file, "--json", "--tool", "bash", "--input", "cat log.txt", "--alias", "k1", "--exit", "0")
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	for _, k := range []string{"id", "summary", "tokens", "bytes"} {
		if _, ok := got[k]; !ok {
			t.Errorf("--json lacks %q: %s", k, r.stdout)
		}
	}
	if got["bytes"].(float64) != 19 {
		t.Errorf("bytes = %v", got["bytes"])
	}
	s := run(t, home, nil, "show", "k1", "--lines", "2:3")
	if s.code != 0 || s.stdout != "two\nthree\n" {
		t.Fatalf("show --lines 2:3 = %+v", s)
	}
	s = run(t, home, nil, "show", "--lines", "4", "k1", "--json")
	var sj map[string]any
	if err := json.Unmarshal([]byte(s.stdout), &sj); err != nil || sj["content"] != "four\n" || sj["tool"] != "bash" || sj["input"] != "cat log.txt" {
		t.Fatalf("show --json = %s (%v)", s.stdout, err)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	home := t.TempDir()
	id := strings.TrimSpace(run(t, home, []byte("x\n"), "add").stdout)
	cases := []struct {
		args     []string
		code     int
		inStderr string
	}{
		{[]string{"show", "no-such-alias"}, 1, "not found"},
		{[]string{"show", "01JD8X3N6Q4W0G2Y7T5R9KZC1M"}, 1, "not found"},
		{[]string{"show"}, 2, "Usage"},
		{[]string{"show", id, "--lines", "3-4"}, 2, "--lines"},
		{[]string{"show", id, "--lines", "5:2"}, 2, "--lines"},
		{[]string{"show", id, "--lines", "9:9"}, 1, "past the end"},
		{[]string{"show", id, "--frobnicate"}, 2, "unknown flag"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"add", "/no/such/file"}, 1, "no such file"},
		{[]string{"run"}, 2, "needs a command"},
	}
	for _, c := range cases {
		r := run(t, home, nil, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.inStderr) || r.stdout != "" {
			t.Errorf("memex %s: code %d stdout %q stderr %q; want code %d and %q on stderr",
				strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.code, c.inStderr)
		}
	}
}

// TestFlagBeforeCommand: a command's flag given before the command's name
// is a usage error that says where it goes, not "unknown command" for the
// word after the name; the root's own flags still go anywhere.
func TestFlagBeforeCommand(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "search", "nil"}, "memex: unknown flag --json before the command: flags of a command go after its name (memex search nil --json)\n"},
		{[]string{"--json", "show", "X"}, "memex: unknown flag --json before the command: flags of a command go after its name (memex show X --json)\n"},
		{[]string{"-v", "--project", "p", "--json", "search", "nil map"}, "memex: unknown flag --project before the command: flags of a command go after its name (memex -v search 'nil map' --project p --json)\n"},
		{[]string{"--json", "eval", "retrieval", "x.json"}, "memex: unknown flag --json before the command: flags of a command go after its name (memex eval retrieval x.json --json)\n"},
		{[]string{"--frobnicate", "search", "nil"}, "memex: unknown flag --frobnicate before the command \"search\", which has no such flag either\nRun 'memex search --help' for usage.\n"},
	} {
		r := run(t, home, nil, c.args...)
		// run puts --home HOME first: it stays in front in the suggestion.
		want := strings.Replace(c.want, "(memex ", "(memex --home "+home+" ", 1)
		if r.code != cli.ExitUsage || r.stderr != want || r.stdout != "" {
			t.Errorf("memex %s: code %d stderr %q; want 2 and %q", strings.Join(c.args, " "), r.code, r.stderr, want)
		}
	}
	if r := run(t, home, []byte("x\n"), "-v", "add", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"id"`) {
		t.Errorf("a root flag before the command: %+v", r)
	}
}

func TestRunArchivesOutputAndPassesStatus(t *testing.T) {
	home := t.TempDir()
	r := run(t, home, nil, "run", "--quiet", "--alias", "last", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3: %+v", r.code, r)
	}
	if r.stdout != "" {
		t.Errorf("--quiet printed %q on stdout", r.stdout)
	}
	if !strings.Contains(r.stderr, "memex show ") || !strings.Contains(r.stderr, "exit 3") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("closing line %q", r.stderr)
	}
	s := run(t, home, nil, "show", "last", "--json")
	var e map[string]any
	if err := json.Unmarshal([]byte(s.stdout), &e); err != nil {
		t.Fatal(err, s.stdout)
	}
	if e["content"] != "out\nerr\n" || e["exit"].(float64) != 3 || e["input"] != `sh -c 'echo out; echo err >&2; exit 3'` {
		t.Fatalf("archived %v", e)
	}
	loud := run(t, home, nil, "run", "--", "echo", "hi")
	if loud.code != 0 || loud.stdout != "hi\n" {
		t.Fatalf("live output: %+v", loud)
	}
	missing := run(t, home, nil, "run", "--", "/no/such/command")
	if missing.code != 127 {
		t.Fatalf("missing command: %+v", missing)
	}
	entries, _ := os.ReadDir(filepath.Join(home, "spool"))
	if len(entries) != 0 {
		t.Errorf("spool files left behind: %v", entries)
	}
}

func TestVerifyAndStats(t *testing.T) {
	home := t.TempDir()
	// Bodies up to archive.InlineSize are each entry's own; larger ones are
	// stored once.
	same := bytes.Repeat([]byte("same\n"), archive.InlineSize/5+1)
	run(t, home, same, "add", "--session", "s1")
	run(t, home, same, "add", "--session", "s2")
	v := run(t, home, nil, "verify")
	if v.code != 0 || !strings.Contains(v.stderr, "verified 2 entries, 0 problems") {
		t.Fatalf("verify: %+v", v)
	}
	s := run(t, home, nil, "stats", "--json")
	var st map[string]float64
	if err := json.Unmarshal([]byte(s.stdout), &st); err != nil {
		t.Fatal(err)
	}
	if st["entries"] != 2 || st["sessions"] != 2 || st["bodies"] != 1 || st["dedup_saved_bytes"] != float64(len(same)) {
		t.Fatalf("stats %v", st)
	}
}

func TestTokens(t *testing.T) {
	r := run(t, t.TempDir(), []byte("hello world"), "tokens")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "2" {
		t.Fatalf("tokens: %+v", r)
	}
}

// A writer that cannot spool what it writes (an import; an add spools,
// see TestAddOnABusyStoreIsSpooled) fails on a busy store saying who
// holds it.
// holdStore takes home's writer lock, as another memex process holding
// the store would, until the returned function lets it go.
func holdStore(t *testing.T, home string) (release func()) {
	t.Helper()
	lk := flock.New(filepath.Join(home, "lock"))
	if ok, err := lk.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	return func() { lk.Unlock() }
}

func TestBusyStoreFailsWithClearMessage(t *testing.T) {
	home := t.TempDir()
	in := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(in, []byte(`{"content":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	defer holdStore(t, home)()
	cmd := exec.Command(memexBin, "--home", home, "ingest", "jsonl", in)
	cmd.Env = append(os.Environ(), "MEMEX_LOCK_TIMEOUT=50ms")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "another memex process") {
		t.Fatalf("err %v, stderr %q", err, stderr.String())
	}
}

func TestConcurrentProcessesAllSucceed(t *testing.T) {
	home := t.TempDir()
	const n = 20
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(memexBin, "--home", home, "add", "--alias", fmt.Sprintf("c%d", i))
			cmd.Stdin = strings.NewReader(fmt.Sprintf("content %d\n", i))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, stderr.String())
			}
			ids[i] = strings.TrimSpace(string(out))
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		if errs[i] != nil {
			t.Fatalf("add %d: %v", i, errs[i])
		}
		if seen[ids[i]] {
			t.Fatalf("duplicate ID %s", ids[i])
		}
		seen[ids[i]] = true
		r := run(t, home, nil, "show", ids[i])
		if r.stdout != fmt.Sprintf("content %d\n", i) {
			t.Fatalf("entry %d reads %q", i, r.stdout)
		}
	}
}

func TestAddAndRunRedactSecrets(t *testing.T) {
	home := t.TempDir()
	secret := "AKIAIOSFODNN7EXAMPLE"
	r := run(t, home, []byte("export AWS_ACCESS_KEY_ID="+secret+"\nok\n"), "add", "--alias", "env")
	if r.code != 0 || !strings.Contains(r.stderr, "replaced") {
		t.Fatalf("add: %+v", r)
	}
	if s := run(t, home, nil, "show", "env"); strings.Contains(s.stdout, secret) || !strings.Contains(s.stdout, "[REDACTED:") {
		t.Fatalf("secret stored: %q", s.stdout)
	}
	run(t, home, nil, "run", "--quiet", "--alias", "r", "--", "echo", "token="+secret)
	if s := run(t, home, nil, "show", "r", "--json"); strings.Contains(s.stdout, secret) {
		t.Fatalf("run stored the secret (output or input): %s", s.stdout)
	}
	run(t, home, []byte(secret+"\n"), "add", "--no-redact", "--alias", "raw")
	if s := run(t, home, nil, "show", "raw"); s.stdout != secret+"\n" {
		t.Fatalf("--no-redact changed the content: %q", s.stdout)
	}
}

// TestRunForwardsTermination: a SIGTERM sent to memex run's own process
// (as a supervisor stopping a tool by PID does) stops the command, and its
// output and status 128+15 are still archived.
func TestRunForwardsTermination(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(memexBin, "--home", home, "run", "--alias", "stopped", "--",
		"sh", "-c", "echo started; exec sleep 60")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "started\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+15 {
		t.Fatalf("memex run ended with %v, want exit 143; stderr %s", err, stderr.String())
	}
	r := run(t, home, nil, "show", "stopped", "--json")
	var e map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &e); err != nil {
		t.Fatal(err, r.stdout, r.stderr)
	}
	if e["content"] != "started\n" || e["exit"].(float64) != 143 {
		t.Fatalf("archived %v", e)
	}
}

// TestProjectFlagTakesADirectory: --project accepts the directory an entry
// was archived in (., a path, a trailing slash), standing for the project
// add and run recorded there.
func TestProjectFlagTakesADirectory(t *testing.T) {
	home := t.TempDir()
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := "[remote \"origin\"]\n\turl = https://github.com/acme/api.git\n"
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(repo)
	if r := run(t, home, nil, "run", "--quiet", "--", "echo", "zanzibar"); r.code != 0 {
		t.Fatalf("run: %+v", r)
	}
	for _, p := range []string{repo, repo + "/", ".", "github.com/acme/api"} {
		r := run(t, home, nil, "context", "--project", p)
		if r.code != 0 || !strings.Contains(r.stdout, "zanzibar") {
			t.Errorf("context --project %s: %+v", p, r)
		}
		r = run(t, home, nil, "search", "zanzibar", "--project", p, "--json")
		if r.code != 0 || !strings.Contains(r.stdout, "github.com/acme/api") {
			t.Errorf("search --project %s: %+v", p, r)
		}
	}
}
