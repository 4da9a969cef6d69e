//go:build unix

package index

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system CPU time: on a shared machine
// it measures work where wall time measures contention.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
