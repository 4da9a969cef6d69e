package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestKilledAddsLoseNothingAcknowledged runs rounds of concurrent `memex
// add` processes of the real binary; once the first of a round has printed
// its ID, the others are killed (SIGKILL) wherever they are: waiting for
// the lock, reading, committing or printing. Every ID printed must read
// back byte for byte, and verify must find nothing wrong.
func TestKilledAddsLoseNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("runs and kills 100 processes")
	}
	home := t.TempDir()
	const rounds, writers = 25, 4
	acked := map[string][]byte{}
	kills := 0
	for round := range rounds {
		bodies := make([][]byte, writers)
		outs := make([]bytes.Buffer, writers)
		cmds := make([]*exec.Cmd, writers)
		for w := range writers {
			bodies[w] = []byte(strings.Repeat(fmt.Sprintf("round %d writer %d line\n", round, w), 200*(w+1)))
			cmds[w] = exec.Command(memexBin, "--home", home, "add", "-")
			cmds[w].Stdin, cmds[w].Stdout = bytes.NewReader(bodies[w]), &outs[w]
		}
		kills += killRound(t, cmds, func(int) bool { return true })
		for w := range writers {
			// An ID printed whole is an acknowledged entry.
			if id := strings.TrimSpace(outs[w].String()); len(id) == 26 && strings.HasSuffix(outs[w].String(), "\n") {
				acked[id] = bodies[w]
			}
		}
	}
	lost := 0
	for id, body := range acked {
		if r := run(t, home, nil, "show", id); r.code != 0 || r.stdout != string(body) {
			lost++
			t.Errorf("acknowledged %s: %+v", id, r.stderr)
		}
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Fatalf("verify after the kills: %+v", r)
	}
	t.Logf("%d processes, %d killed, %d entries acknowledged, %d lost", rounds*writers, kills, len(acked), lost)
}

// killRound starts cmds at once and, once the first has exited, kills
// (SIGKILL) each other one that kill picks by its index, wherever it is;
// it returns when all have exited, with how many it killed.
func killRound(t *testing.T, cmds []*exec.Cmd, kill func(i int) bool) int {
	t.Helper()
	done := make(chan int, len(cmds))
	for i, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { cmd.Wait(); done <- i }()
	}
	first := <-done
	kills := 0
	for i, cmd := range cmds {
		if i != first && kill(i) && cmd.Process.Signal(syscall.SIGKILL) == nil {
			kills++
		}
	}
	for range len(cmds) - 1 {
		<-done
	}
	return kills
}
