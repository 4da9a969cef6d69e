package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memex-archive/memex/internal/testutil"
)

// copyTree copies a testdata directory so that the test may append to it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestIngestSessionsReplaySearch(t *testing.T) {
	home := t.TempDir()
	dir := copyTree(t, filepath.Join(testutil.ModuleRoot(), "ingest", "testdata", "claude"))
	r := run(t, home, nil, "ingest", "claude-code", dir, "--json")
	if r.code != 0 {
		t.Fatalf("ingest: %+v", r)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err, r.stdout)
	}
	added := rep["added"].(float64)
	if added == 0 || rep["indexed"].(float64) != added {
		t.Fatalf("report %v", rep)
	}
	again := run(t, home, nil, "ingest", "claude-code", dir, "--json")
	var rep2 map[string]any
	json.Unmarshal([]byte(again.stdout), &rep2)
	if again.code != 0 || rep2["added"].(float64) != 0 {
		t.Fatalf("second ingest added entries: %s", again.stdout)
	}

	// A tool result reads back by the host's tool_use id.
	if s := run(t, home, nil, "show", "toolu_A"); s.code != 0 || s.stdout == "" {
		t.Fatalf("show toolu_A: %+v", s)
	}

	ss := run(t, home, nil, "sessions", "--json")
	var sessions []sessionInfo
	if err := json.Unmarshal([]byte(ss.stdout), &sessions); err != nil {
		t.Fatal(err, ss.stdout)
	}
	var s1 *sessionInfo
	for i := range sessions {
		if sessions[i].Session == "s1" {
			s1 = &sessions[i]
		}
	}
	if s1 == nil || s1.Agent != "claude-code" || s1.Compactions != 1 || s1.Entries == 0 {
		t.Fatalf("sessions %+v", sessions)
	}

	rp := run(t, home, nil, "replay", "s1")
	if rp.code != 0 || !strings.Contains(rp.stdout, "context compacted here") || strings.Count(rp.stdout, "\n") < s1.Entries {
		t.Fatalf("replay:\n%s", rp.stdout)
	}
	var steps []replayStep
	full := run(t, home, nil, "replay", "s1", "--full", "--json")
	if err := json.Unmarshal([]byte(full.stdout), &steps); err != nil || len(steps) != s1.Entries || steps[0].Content == nil {
		t.Fatalf("replay --full --json: %v %s", err, full.stdout)
	}
	if r := run(t, home, nil, "replay", "no-such-session"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("replay of unknown session: %+v", r)
	}
	if r := run(t, home, nil, "ingest", "klingon", dir); r.code != 2 {
		t.Fatalf("unknown format: %+v", r)
	}
}
