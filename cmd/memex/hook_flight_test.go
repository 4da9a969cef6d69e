package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestConcurrentHooksLoseNothingAcknowledged runs rounds of capture hooks
// of the real binary at once, without a server; once the first of a round
// has exited, every third of the others is killed (SIGKILL) wherever it is:
// spooling, leaving its flight, draining the spool into the store. A hook
// that exited 0 has acknowledged its call: every one must be in the store,
// once, with its output, after the next process that writes; verify must
// find nothing left in the spool.
func TestConcurrentHooksLoseNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills 120 processes")
	}
	home := t.TempDir()
	const rounds, hooks = 6, 20
	acked := map[string]string{}
	kills := 0
	for round := range rounds {
		type proc struct {
			cmd      *exec.Cmd
			id, body string
		}
		var ps []*proc
		done := make(chan *proc, hooks)
		for h := range hooks {
			p := &proc{id: fmt.Sprintf("toolu_r%d_h%02d", round, h), body: strings.Repeat(fmt.Sprintf("round %d hook %d\n", round, h), 10+h)}
			in, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": fmt.Sprintf("s%d", round), "cwd": home,
				"tool_name": "Bash", "tool_input": map[string]string{"command": "echo"}, "tool_use_id": p.id,
				"tool_response": map[string]any{"stdout": p.body, "stderr": "", "interrupted": false}})
			p.cmd = exec.Command(memexBin, "--home", home, "hook", "claude-code", "PostToolUse")
			p.cmd.Stdin = bytes.NewReader(in)
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
			go func() { p.cmd.Wait(); done <- p }()
		}
		first := <-done
		for i, p := range ps {
			if p != first && i%3 == 0 && p.cmd.Process.Signal(syscall.SIGKILL) == nil {
				kills++
			}
		}
		for range hooks - 1 {
			<-done
		}
		for _, p := range ps {
			if p.cmd.ProcessState.Success() {
				acked[p.id] = p.body
			}
		}
	}
	if r := run(t, home, []byte("the next write"), "add", "-"); r.code != 0 {
		t.Fatal(r)
	}
	for id, body := range acked {
		if r := run(t, home, nil, "show", id); r.code != 0 || r.stdout != body {
			t.Errorf("acknowledged %s: code %d, %q, %s", id, r.code, r.stdout, r.stderr)
		}
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Fatalf("verify after the hooks: %+v", r)
	}
	if len(acked) < rounds*hooks-kills {
		t.Errorf("%d hooks acknowledged, %d killed of %d: a hook that was not killed failed", len(acked), kills, rounds*hooks)
	}
	t.Logf("%d hooks, %d killed, %d acknowledged", rounds*hooks, kills, len(acked))
}
