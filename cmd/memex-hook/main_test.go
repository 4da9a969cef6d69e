//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/api"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
	"github.com/memex-archive/memex/internal/spool"
)

// hookBin and memexBin are the real binaries, built side by side once, as
// go install ./cmd/... lays them out: memex-hook finds memex beside it.
var hookBin, memexBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "memex-hook-bin-")
	if err != nil {
		panic(err)
	}
	hookBin, memexBin = filepath.Join(dir, "memex-hook"), filepath.Join(dir, "memex")
	for _, b := range []struct{ out, pkg string }{{hookBin, "."}, {memexBin, "../memex"}} {
		build := exec.Command("go", "build", "-o", b.out, b.pkg)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", b.pkg, err)
			os.Exit(1)
		}
	}
	// The drains memex-hook starts and leaves are orphans: this process
	// adopts them, so that a test can wait for them (reapDrains).
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "PR_SET_CHILD_SUBREAPER:", errno)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const prSetChildSubreaper = 36

// reapDrains waits for every process this one adopted (the drains the
// hooks started and left) and returns the CPU they used. No other child
// may be running.
func reapDrains() time.Duration {
	var cpu time.Duration
	for {
		var ru syscall.Rusage
		var st syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &st, 0, &ru)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || pid <= 0 {
			return cpu
		}
		cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}

type ran struct {
	code           int
	stdout, stderr string
}

// runBin runs bin with args and in on its stdin.
func runBin(t *testing.T, bin string, in []byte, args ...string) ran {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(in)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	reapDrains()
	r := ran{stdout: out.String(), stderr: errb.String()}
	if err != nil {
		r.code = -1
		if st, ok := err.(*exec.ExitError); ok {
			r.code = st.ExitCode()
		}
	}
	return r
}

// stored reads the entry under ref and its body from dir's store.
func stored(t *testing.T, dir, ref string) (memex.Entry, string) {
	t.Helper()
	h, err := home.Open(context.Background(), dir, home.Options{Shared: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	svc := service.New(h, service.Options{})
	e, err := svc.Entry(context.Background(), ref, "")
	if err != nil {
		t.Fatalf("entry %s in %s: %v", ref, dir, err)
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

// gitRepo makes a repository with an origin remote and a file in it.
func gitRepo(t *testing.T) (dir, file string) {
	dir = t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:o/hooked.git\n"), 0o644)
	file = filepath.Join(dir, "main.go")
	os.WriteFile(file, []byte("package main\n\nfunc main() {}\n"), 0o644)
	return dir, file
}

// The same payload through memex hook and through memex-hook stores the
// same entry: the same fields, attributes, redactions and body, whichever
// binary captured it (only the ID and the time, taken as each ran, differ).
func TestSameEntryEitherWay(t *testing.T) {
	repo, file := gitRepo(t)
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	cases := []struct {
		name, host, ref string
		payload         map[string]any
	}{
		{"a shell call holding a secret", "claude-code", "cc:toolu_secret", map[string]any{
			"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": repo, "tool_name": "Bash",
			"tool_input": map[string]string{"command": "gh auth token " + secret}, "tool_use_id": "toolu_secret",
			"tool_response": map[string]any{"stdout": "token " + secret + "\n", "stderr": "warning: x\n", "interrupted": false}}},
		{"a file read", "claude-code", "cc:toolu_read", map[string]any{
			"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": repo, "tool_name": "Read",
			"tool_input": map[string]string{"file_path": file}, "tool_use_id": "toolu_read", "agent_id": "sub1",
			"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": file,
				"content": "package main\n\nfunc main() {}\n", "numLines": 3, "startLine": 1, "totalLines": 3}}}},
		{"a cat", "claude-code", "cc:toolu_cat", map[string]any{
			"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": repo, "tool_name": "Bash",
			"tool_input": map[string]string{"command": "cat main.go"}, "tool_use_id": "toolu_cat",
			"tool_response": map[string]any{"stdout": "package main\n\nfunc main() {}\n", "stderr": "", "interrupted": false}}},
		{"a Codex shell call", "codex", "codex:th1:call_1", map[string]any{
			"hook_event_name": "PostToolUse", "session_id": "th1", "cwd": repo, "tool_name": "shell",
			"tool_input": map[string]any{"command": []string{"bash", "-lc", "ls"}}, "tool_use_id": "call_1",
			"tool_response": "main.go\n"}},
	}
	viaMemex, viaHook := t.TempDir(), t.TempDir()
	shows := 0
	for _, c := range cases {
		in, _ := json.Marshal(c.payload)
		for _, r := range []ran{
			runBin(t, memexBin, in, "--home", viaMemex, "hook", c.host, "PostToolUse"),
			runBin(t, hookBin, in, "--home", viaHook, "hook", c.host, "PostToolUse"),
		} {
			if r.code != 0 || r.stdout != "" || r.stderr != "" {
				t.Fatalf("%s: %+v", c.name, r)
			}
		}
		a, abody := stored(t, viaMemex, c.ref)
		b, bbody := stored(t, viaHook, c.ref)
		if abody != bbody {
			t.Errorf("%s: bodies differ:\nmemex hook: %q\nmemex-hook: %q", c.name, abody, bbody)
		}
		if strings.Contains(a.Input+abody, secret) {
			t.Errorf("%s: memex hook stored the secret", c.name)
		}
		if a.Attrs["shows"] != "" {
			shows++
		}
		a.ID, b.ID, a.Created = memex.ID{}, memex.ID{}, b.Created
		aj, _ := json.Marshal(a)
		bj, _ := json.Marshal(b)
		if !bytes.Equal(aj, bj) {
			t.Errorf("%s: entries differ:\nmemex hook: %s\nmemex-hook: %s", c.name, aj, bj)
		}
	}
	if shows == 0 {
		t.Error("no case noted the lines it shows: the test does not cover RecordShown")
	}
	for _, dir := range []string{viaMemex, viaHook} {
		if left, _ := spool.Leftover(dir); len(left) != 0 {
			t.Errorf("left in the spool of %s: %v", dir, left)
		}
	}
}

// A hook that spools while others are in flight leaves the drain to the
// last; what it spooled went through the write policy first, and is in the
// store after the next write.
func TestSpoolsWhileOthersAreInFlight(t *testing.T) {
	dir := t.TempDir()
	fl, err := spool.Enter(dir)
	if err != nil {
		t.Fatal(err)
	}
	secret := "ghp_" + strings.Repeat("aB3dE5fG7h", 4)[:36]
	in, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "echo " + secret}, "tool_use_id": "toolu_inflight",
		"tool_response": map[string]any{"stdout": "spooled " + secret + "\n", "stderr": ""}})
	if r := runBin(t, hookBin, in, "--home", dir, "hook", "claude-code", "PostToolUse"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("%+v", r)
	}
	fl.Leave()
	left, _ := spool.Leftover(dir)
	if len(left) != 1 {
		t.Fatalf("spool holds %v, want the call", left)
	}
	if b, err := os.ReadFile(left[0]); err != nil || bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte(base64.StdEncoding.EncodeToString([]byte("spooled "+secret)))) {
		t.Fatalf("the spool holds the secret: %s %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, home.StoreDir)); err == nil {
		t.Error("a hook with another in flight opened the store")
	}
	if r := runBin(t, memexBin, []byte("the next write"), "--home", dir, "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	if e, body := stored(t, dir, "cc:toolu_inflight"); strings.Contains(e.Input+body, secret) || e.Redacted != 2 || !strings.HasPrefix(body, "spooled [REDACTED:") {
		t.Errorf("input %q, body %q, %d redacted", e.Input, body, e.Redacted)
	}
}

// What memex-hook does not capture itself goes to memex, whose answer the
// host reads: a failed call with its lesson, input that is not the host's
// JSON (said on stderr, exit 0), any other event.
func TestHandsTheRestToMemex(t *testing.T) {
	dir := t.TempDir()
	failed, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUseFailure", "session_id": "s", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "go test"}, "tool_use_id": "toolu_failed", "error": "Exit code 1\nFAIL"})
	if r := runBin(t, hookBin, failed, "--home", dir, "hook", "claude-code", "PostToolUseFailure"); r.code != 0 || r.stderr != "" {
		t.Fatalf("failed call: %+v", r)
	}
	if e, _ := stored(t, dir, "cc:toolu_failed"); e.Exit == nil || *e.Exit != 1 {
		t.Errorf("failed call stored as %+v", e)
	}
	for _, c := range []struct {
		args []string
		in   string
	}{
		{[]string{"hook", "claude-code", "PostToolUse"}, "not json"},
		{[]string{"hook", "nohost", "PostToolUse"}, "{}"},
	} {
		want := runBin(t, memexBin, []byte(c.in), append([]string{"--home", dir}, c.args...)...)
		got := runBin(t, hookBin, []byte(c.in), append([]string{"--home", dir}, c.args...)...)
		if got != want || got.code != 0 || got.stdout != "" || got.stderr == "" {
			t.Errorf("%v %q: memex-hook %+v, memex %+v", c.args, c.in, got, want)
		}
	}
	start, _ := json.Marshal(map[string]any{"hook_event_name": "SessionStart", "session_id": "s", "source": "compact"})
	want := runBin(t, memexBin, start, "--home", dir, "hook", "claude-code", "SessionStart")
	got := runBin(t, hookBin, start, "--home", dir, "hook", "claude-code", "SessionStart")
	if got != want || got.code != 0 || !strings.Contains(got.stdout, "additionalContext") {
		t.Errorf("SessionStart: memex-hook %+v, memex %+v", got, want)
	}
}

// memex-hook --version names itself and the memex it hands over to.
func TestVersion(t *testing.T) {
	r := runBin(t, hookBin, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "memex-hook ") || !strings.Contains(r.stdout, memexBin) {
		t.Errorf("--version: %+v", r)
	}
}

// Rounds of memex-hook processes at once, without a server; once the first
// of a round has exited, every third of the others is killed (SIGKILL)
// wherever it is: spooling, leaving its flight, waiting for the drain it
// handed to memex. A hook that exited 0 has acknowledged its call: every
// one must be in the store, once, with its output, after the next write;
// the spool must be empty.
func TestNothingAcknowledgedIsLost(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills 120 processes")
	}
	dir := t.TempDir()
	const rounds, hooks = 6, 20
	acked := map[string]string{}
	kills := 0
	for round := range rounds {
		ids, bodies := make([]string, hooks), make([]string, hooks)
		cmds := make([]*exec.Cmd, hooks)
		for h := range hooks {
			ids[h], bodies[h] = fmt.Sprintf("toolu_r%d_h%02d", round, h), strings.Repeat(fmt.Sprintf("round %d hook %d\n", round, h), 10+h)
			in, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": fmt.Sprintf("s%d", round), "cwd": dir,
				"tool_name": "Bash", "tool_input": map[string]string{"command": "echo"}, "tool_use_id": ids[h],
				"tool_response": map[string]any{"stdout": bodies[h], "stderr": "", "interrupted": false}})
			cmds[h] = exec.Command(hookBin, "--home", dir, "hook", "claude-code", "PostToolUse")
			cmds[h].Stdin = bytes.NewReader(in)
		}
		done := make(chan int, hooks)
		for i, cmd := range cmds {
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { cmd.Wait(); done <- i }()
		}
		first := <-done
		for i, cmd := range cmds {
			if i != first && i%3 == 0 && cmd.Process.Signal(syscall.SIGKILL) == nil {
				kills++
			}
		}
		for range hooks - 1 {
			<-done
		}
		for h, cmd := range cmds {
			if cmd.ProcessState.Success() {
				acked[ids[h]] = bodies[h]
			}
		}
		reapDrains() // the drains the round started, before the next
	}
	if r := runBin(t, memexBin, []byte("the next write"), "--home", dir, "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	for id, body := range acked {
		if _, got := stored(t, dir, "cc:"+id); got != body {
			t.Errorf("acknowledged %s: %q", id, got)
		}
	}
	if r := runBin(t, memexBin, nil, "--home", dir, "verify"); r.code != 0 {
		t.Fatalf("verify after the hooks: %+v", r)
	}
	if len(acked) < rounds*hooks-kills {
		t.Errorf("%d hooks acknowledged, %d killed of %d: a hook that was not killed failed", len(acked), kills, rounds*hooks)
	}
	t.Logf("%d hooks, %d killed, %d acknowledged", rounds*hooks, kills, len(acked))
}

// memex install points the tool-call hook at the memex-hook beside memex,
// memex doctor checks both binaries, memex uninstall removes both.
func TestInstallDoctorUninstall(t *testing.T) {
	user, dir := t.TempDir(), t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	in := func(args ...string) ran {
		cmd := exec.Command(memexBin, append([]string{"--home", dir}, args...)...)
		cmd.Dir = user
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		r := ran{stdout: out.String(), stderr: errb.String()}
		if err != nil {
			r.code = cmd.ProcessState.ExitCode()
		}
		return r
	}
	if r := in("install", "claude-code"); r.code != 0 {
		t.Fatalf("install: %+v", r)
	}
	settings, err := os.ReadFile(filepath.Join(user, ".claude", "settings.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(settings, &cfg); err != nil {
		t.Fatal(err)
	}
	for ev, groups := range cfg.Hooks {
		cmd := groups[0].Hooks[0].Command
		wantBin := memexBin
		if ev == "PostToolUse" {
			wantBin = hookBin
		}
		if !strings.HasPrefix(cmd, wantBin+" ") {
			t.Errorf("%s runs %q, want %s", ev, cmd, wantBin)
		}
	}
	r := in("doctor")
	if !strings.Contains(r.stdout, "runs "+hookBin+" (memex-hook ") || !strings.Contains(r.stdout, "runs "+memexBin+" (memex ") {
		t.Errorf("doctor does not check both binaries: %+v", r)
	}
	if r := in("uninstall", "claude-code"); r.code != 0 {
		t.Fatalf("uninstall: %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(user, ".claude", "settings.json")); err == nil && strings.Contains(string(b), "memex") {
		t.Errorf("uninstall left %s", b)
	}
}
