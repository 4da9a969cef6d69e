//go:build !unix

package testutil

// CPUSeconds is unknown here; benchmarks then report 0.
func CPUSeconds() float64 { return 0 }
