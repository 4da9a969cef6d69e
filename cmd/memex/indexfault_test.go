package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedIndexIsRebuiltWithOneLine: a damaged index file made search
// (and reindex, the documented fix) panic. Search now drops it, says so in
// one line, and answers from an index rebuilt from the archive; verify
// first reports the damage.
func TestDamagedIndexIsRebuiltWithOneLine(t *testing.T) {
	home := t.TempDir()
	for i := range 30 {
		body := strings.Repeat("--- FAIL: TestParse: assignment to entry in nil map\n", 5+i)
		if r := run(t, home, []byte(body), "add", "--tool", "bash", "--input", "go test ./...", "-"); r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
	}
	if r := run(t, home, nil, "reindex"); r.code != 0 {
		t.Fatalf("reindex: %+v", r)
	}
	segs, _ := filepath.Glob(filepath.Join(home, "index", "store", "*.zap"))
	if len(segs) == 0 {
		t.Fatal("no index segment")
	}
	for _, p := range segs {
		// The sections index offset in the segment's footer (zap: the
		// 8 bytes before crc, version and chunk mode).
		b, _ := os.ReadFile(p)
		for i := len(b) - 20; i < len(b)-12; i++ {
			b[i] ^= 0xff
		}
		os.WriteFile(p, b, 0o600)
	}
	if r := run(t, home, nil, "verify"); r.code != 1 || !strings.Contains(r.stdout, "damaged index") {
		t.Errorf("verify of a damaged index: %+v", r)
	}
	r := run(t, home, nil, "search", "nil map", "--json")
	if r.code != 0 || strings.Count(r.stdout, `"id"`) == 0 {
		t.Fatalf("search over a damaged index: %+v", r)
	}
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "rebuilt from the archive") {
		t.Errorf("search said %q, want one line saying the index is rebuilt", r.stderr)
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Errorf("verify after the rebuild: %+v", r)
	}
	// reindex, the documented fix, rebuilds a damaged index too.
	segs, _ = filepath.Glob(filepath.Join(home, "index", "store", "*.zap"))
	for _, p := range segs {
		os.Truncate(p, 100)
	}
	if r := run(t, home, nil, "reindex", "--json"); r.code != 0 || !strings.Contains(r.stdout, `"indexed": 30`) {
		t.Errorf("reindex of a damaged index: %+v", r)
	}
}

// TestVerifyChecksIndexCoverage: entries marked indexed that the index
// does not hold (here, an index deleted by hand) made no problem in
// verify; search never found them again.
func TestVerifyChecksIndexCoverage(t *testing.T) {
	home := t.TempDir()
	for range 5 {
		run(t, home, []byte("panic: nil map\n"), "add", "-")
	}
	if r := run(t, home, nil, "search", "nil"); r.code != 0 {
		t.Fatalf("search: %+v", r)
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Fatalf("verify: %+v", r)
	}
	os.RemoveAll(filepath.Join(home, "index"))
	os.MkdirAll(filepath.Join(home, "index"), 0o700)
	if r := run(t, home, nil, "verify"); r.code != 1 || !strings.Contains(r.stdout, "marked indexed") {
		t.Fatalf("verify without the index: %+v", r)
	}
	r := run(t, home, nil, "search", "nil", "--json")
	if r.code != 0 || strings.Count(r.stdout, `"id"`) != 5 {
		t.Fatalf("search after the index was lost: %+v", r)
	}
	if r := run(t, home, nil, "verify"); r.code != 0 {
		t.Errorf("verify after the rebuild: %+v", r)
	}
}

// TestIngestWhoseIndexFailsSaysWhatWasDone: an import whose entries were
// archived but could not be indexed says both, the index's failure in its
// own words and what to expect, in one line, and exits 1.
func TestIngestWhoseIndexFailsSaysWhatWasDone(t *testing.T) {
	home := t.TempDir()
	if r := run(t, home, []byte("x\n"), "add", "-"); r.code != 0 {
		t.Fatalf("add: %+v", r)
	}
	os.RemoveAll(filepath.Join(home, "index"))
	writeFile(t, filepath.Join(home, "index"), "not a directory\n")
	file := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, file, jsonlRun("s1", 1, "go test ./...", 1, "--- FAIL: TestX\n"))
	r := run(t, home, nil, "ingest", "jsonl", file, "-q")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "memex: entries archived, indexing failed: ") ||
		!strings.HasSuffix(r.stderr, "; the next search retries\n") || strings.Count(r.stderr, "\n") != 1 || strings.Contains(r.stderr, "ingest: ") {
		t.Fatalf("ingest with a broken index: %+v", r)
	}
	if s := run(t, home, nil, "sessions", "--json"); !strings.Contains(s.stdout, `"s1"`) {
		t.Fatalf("the entries were not archived: %+v", s)
	}
}
