package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
)

// BenchmarkColdShowCLI measures what a user waits for: a fresh `memex show`
// process (open the store, read one entry, exit) against a store of 100k
// entries. It reports the median and p99 wall time per call.
func BenchmarkColdShowCLI(b *testing.B) {
	const entries = 100_000
	home := b.TempDir()
	s, err := archive.Open(filepath.Join(home, "store"), &archive.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var ids []memex.ID
	for i := 0; i < entries; i++ {
		body := fmt.Sprintf("$ go test ./pkg/%d\n--- FAIL: TestThing%d (0.01s)\n    thing_test.go:%d: got %d, want %d\nFAIL\n", i%97, i, i%500, i, i+1)
		e, err := s.Add(ctx, memex.Entry{Session: fmt.Sprintf("s%d", i/1000), Kind: memex.KindTool, Tool: "bash",
			Input: fmt.Sprintf("go test ./pkg/%d", i%97)}, bytes.NewReader([]byte(body)))
		if err != nil {
			b.Fatal(err)
		}
		if i%1000 == 0 {
			ids = append(ids, e.ID)
		}
	}
	if err := s.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(memexBin, "--home", home, "show", ids[i%len(ids)].String())
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		lat = append(lat, time.Since(t0))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
