package index

import (
	"time"

	"github.com/memex-archive/memex/internal/testutil"
)

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration { return time.Duration(testutil.CPUSeconds() * float64(time.Second)) }
