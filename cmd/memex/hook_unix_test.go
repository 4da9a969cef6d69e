//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopHookRefusesANonRegularTranscript: a Stop hook whose
// transcript_path is a FIFO or a device returns at once, saying why,
// instead of blocking (or reading /dev/zero without end) with the store's
// lock held.
func TestStopHookRefusesANonRegularTranscript(t *testing.T) {
	home := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "t.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, path := range []string{fifo, "/dev/null"} {
		in, _ := json.Marshal(map[string]any{"hook_event_name": "Stop", "session_id": "s", "transcript_path": path})
		done := make(chan result, 1)
		go func() { done <- run(t, home, in, "hook", "claude-code", "Stop") }()
		var r result
		select {
		case r = <-done:
		case <-time.After(10 * time.Second):
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				w.Close()
			}
			<-done
			t.Fatalf("Stop hook on %s blocked", path)
		}
		if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("Stop hook on %s: %+v", path, r)
		}
	}
}
