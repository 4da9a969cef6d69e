package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDamagedLogEndToEnd: one flipped byte in the middle of store/*.log
// after a clean stop lost the entries after it without a word: verify said
// 0 problems and writes went on. Now writes refuse in one line, reads see
// the store as it was before the damage, verify names what was lost, and
// verify --repair opens the store for writing again.
func TestDamagedLogEndToEnd(t *testing.T) {
	home := t.TempDir()
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf(`{"session":"s","kind":"tool","tool":"bash","input":"step %d","content":%q}`,
			i, strings.Repeat(fmt.Sprintf("output line of step %d\n", i), 20)))
	}
	src := filepath.Join(t.TempDir(), "run.jsonl")
	os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o600)
	if r := run(t, home, nil, "ingest", "jsonl", src, "--no-index"); r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	logs, _ := filepath.Glob(filepath.Join(home, "store", "*.log"))
	slices.Sort(logs)
	var log string
	var size int64
	for _, l := range logs {
		if fi, _ := os.Stat(l); fi.Size() > size {
			log, size = l, fi.Size()
		}
	}
	b, _ := os.ReadFile(log)
	b[len(b)/2] ^= 0x01
	os.WriteFile(log, b, 0o600)

	r := run(t, home, []byte("x\n"), "add", "-")
	if r.code != 1 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "memex verify") ||
		!strings.Contains(r.stderr, "damaged") || !strings.HasPrefix(r.stderr, "memex: the store in ") ||
		!strings.Contains(r.stderr, "; memex verify lists what was lost") || strings.Contains(r.stderr, "archive:") || strings.Contains(r.stderr, "corrupt data") {
		t.Fatalf("add to a store with a damaged log: %+v, want one line that says so and what to do", r)
	}
	r = run(t, home, nil, "verify", "--json")
	var res struct {
		Files []struct{ Path, Message string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); r.code != 1 || err != nil {
		t.Fatalf("verify of a damaged log: %+v %v", r, err)
	}
	found := false
	for _, f := range res.Files {
		if filepath.Base(f.Path) == filepath.Base(log) && strings.Contains(f.Message, "acknowledged after the damage") {
			found = true
		}
	}
	if !found {
		t.Fatalf("verify does not name the damaged log and what was lost: %s", r.stdout)
	}
	if r := run(t, home, nil, "replay", "s", "--json"); r.code != 0 {
		t.Errorf("a read of the store before the repair: %+v", r)
	}
	if r := run(t, home, nil, "verify", "--repair"); r.code != 0 || !strings.Contains(r.stdout, "note: ") {
		t.Fatalf("verify --repair: %+v", r)
	}
	if r := run(t, home, []byte("after\n"), "add", "-"); r.code != 0 {
		t.Fatalf("add after the repair: %+v", r)
	}
	// The lost entries come back from their transcript.
	r = run(t, home, nil, "ingest", "jsonl", src, "--full", "--json")
	if r.code != 0 || strings.Contains(r.stdout, `"added": 0,`) {
		t.Errorf("re-import after the repair: %+v", r)
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Errorf("verify after the repair and re-import: %+v", r)
	}
}
