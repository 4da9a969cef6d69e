package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
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
		ids, bodies := make([]string, hooks), make([]string, hooks)
		cmds := make([]*exec.Cmd, hooks)
		for h := range hooks {
			ids[h], bodies[h] = fmt.Sprintf("toolu_r%d_h%02d", round, h), strings.Repeat(fmt.Sprintf("round %d hook %d\n", round, h), 10+h)
			in, _ := json.Marshal(map[string]any{"hook_event_name": "PostToolUse", "session_id": fmt.Sprintf("s%d", round), "cwd": home,
				"tool_name": "Bash", "tool_input": map[string]string{"command": "echo"}, "tool_use_id": ids[h],
				"tool_response": map[string]any{"stdout": bodies[h], "stderr": "", "interrupted": false}})
			cmds[h] = exec.Command(memexBin, "--home", home, "hook", "claude-code", "PostToolUse")
			cmds[h].Stdin = bytes.NewReader(in)
		}
		kills += killRound(t, cmds, func(i int) bool { return i%3 == 0 })
		for h, cmd := range cmds {
			if cmd.ProcessState.Success() {
				acked[ids[h]] = bodies[h]
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
