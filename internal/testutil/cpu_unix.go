//go:build unix

package testutil

import "syscall"

// CPUSeconds returns the CPU time this process has used, user and system.
// Benchmarks report throughput per CPU second beside wall-clock figures,
// because a shared machine's wall clock includes other processes' turns.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
