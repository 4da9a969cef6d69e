//go:build unix

package summarize

import "syscall"

// cpuSeconds returns the CPU time this process has used, user and system.
// Benchmarks report throughput per CPU second as well as per wall second,
// because a shared machine's wall clock includes other processes' turns.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
