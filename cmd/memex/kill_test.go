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
		type proc struct {
			cmd  *exec.Cmd
			out  bytes.Buffer
			body []byte
		}
		var ps []*proc
		done := make(chan *proc, writers)
		for w := range writers {
			p := &proc{body: []byte(strings.Repeat(fmt.Sprintf("round %d writer %d line\n", round, w), 200*(w+1)))}
			p.cmd = exec.Command(memexBin, "--home", home, "add", "-")
			p.cmd.Stdin, p.cmd.Stdout = bytes.NewReader(p.body), &p.out
			if err := p.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
			go func() { p.cmd.Wait(); done <- p }()
		}
		first := <-done
		for _, p := range ps {
			if p != first && p.cmd.Process.Signal(syscall.SIGKILL) == nil {
				kills++
			}
		}
		for range writers - 1 {
			<-done
		}
		for _, p := range ps {
			// An ID printed whole is an acknowledged entry.
			if id := strings.TrimSpace(p.out.String()); len(id) == 26 && strings.HasSuffix(p.out.String(), "\n") {
				acked[id] = p.body
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
