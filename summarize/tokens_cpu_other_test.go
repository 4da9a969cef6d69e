//go:build !unix

package summarize

// cpuSeconds is unknown here; benchmarks then report wall time only.
func cpuSeconds() float64 { return 0 }
