package catchup

import (
	"os"
	"runtime/debug"
	"sync"
)

// bulkMemoryLimit is the Go runtime's soft memory limit while a feed, a
// catch-up or a rebuild indexes, when the process's limit is lower and GOMEMLIMIT does
// not set one. memex's own limit (cmd/memex) leaves an indexing process
// little room above what it keeps live: the analysis of the chunks in
// flight, bleve's segment building, and what grows with the import (the
// entries kept for distilling, one map entry per session). At 500 MB of
// transcripts that room went, and the collector ran so often that a
// 256 MiB limit took 28% off an import's CPU, 39% off a catch-up's and
// 23% off a rebuild's (docs/performance.md, The collector's room), for
// peaks of 453, 475 and 467 MB of RSS.
const bulkMemoryLimit = 256 << 20

var bulkLimit struct {
	mu     sync.Mutex
	users  int
	before int64
}

// raiseMemoryLimit raises the soft memory limit to bulkMemoryLimit until
// every caller has called the function it returns (concurrent feeds and
// catch-ups of a server share one raise); it never lowers a limit.
func raiseMemoryLimit() (restore func()) {
	l := &bulkLimit
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.users == 0 {
		l.before = debug.SetMemoryLimit(-1)
		if os.Getenv("GOMEMLIMIT") == "" && l.before < bulkMemoryLimit {
			debug.SetMemoryLimit(bulkMemoryLimit)
		}
	}
	l.users++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.users--; l.users == 0 {
				debug.SetMemoryLimit(l.before)
			}
		})
	}
}
