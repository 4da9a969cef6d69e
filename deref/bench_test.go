package deref_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/deref"
)

// bigLog is a 1 MB build-and-test log with a few failures in it.
func bigLog() string {
	var b strings.Builder
	for i := 1; b.Len() < 1<<20; i++ {
		switch {
		case i%5000 == 0:
			fmt.Fprintf(&b, "--- FAIL: TestCase%d (0.01s)\n    case_test.go:%d: got %d, want %d\n", i, i%300, i, i+1)
		case i == 12345:
			b.WriteString("    parser_test.go:88: unexpected token \"}\" in nested block, want identifier\n")
		default:
			fmt.Fprintf(&b, "=== RUN   TestCase%d\n--- PASS: TestCase%d (0.00s)\n", i, i)
		}
	}
	return b.String()
}

// BenchmarkDeref1MB derefs a 1 MB entry to a 2,000-token budget with a
// query, reading it from the real (in-memory) archive; it reports the p99
// latency of its iterations.
func BenchmarkDeref1MB(b *testing.B) {
	s := openStore(b)
	e := add(b, s, memex.Entry{Tool: "bash", Input: "go test ./..."}, bigLog())
	r := deref.New(s)
	ctx := context.Background()
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := r.Deref(ctx, []string{e.ID.String()}, deref.Options{Budget: 2000, Query: "unexpected token nested"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Used > 2000 || !strings.Contains(res.Text, "unexpected token") {
			b.Fatalf("used %d; query line missing", res.Used)
		}
		lat = append(lat, time.Since(start))
	}
	reportP99(b, lat)
}

func reportP99(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}
