package catchup

import (
	"os"
	"runtime/debug"
	"sync"
)

// bulkMemoryLimit is the Go runtime's soft memory limit while a feed, a
// catch-up or a rebuild indexes, when the process's limit is lower and
// GOMEMLIMIT does not set one. memex's own limit (cmd/memex) leaves an indexing process
// little room above what it keeps live: the analysis of the chunks in
// flight, bleve's segment building, and what grows with the import (the
// entries kept for distilling, one map entry per session). At 500 MB of
// transcripts that room went, and the collector ran all the time: a
// 224 MiB limit took a quarter off an import's CPU and a catch-up's, and
// a sixth off a rebuild's, for peaks of 421 to 453 MB of RSS; 256 MiB
// took a third off, but its peaks of 475 to 498 MB left too little room
// under 512 MB for data that indexes larger (docs/performance.md, The
// collector's room).
const bulkMemoryLimit = 224 << 20

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
