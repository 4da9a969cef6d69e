// Command memex is the indexed experience archive for coding agents: it
// archives tool outputs and reasoning at full fidelity under stable IDs and
// returns the exact evidence on demand, within a token budget.
//
// main only wires the process to Run; every subcommand lives in its own
// file with its usage line and an example.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/memex-archive/memex/internal/cli"
)

// memoryLimit is the Go runtime's soft memory limit for a memex process,
// unless GOMEMLIMIT sets another: past it the collector runs more often
// instead of letting the heap grow to twice (reindex: five times) what is
// live. Imports, catch-ups and reindexes allocate at a high rate and keep
// about 120 MB live at most (one chunk per CPU being analysed and the one
// being gathered, bounded by bytes: internal/catchup); with Pebble's cache
// and memtables (about 60 MiB outside the Go heap), the executable's
// mapped pages (38 MB) and the index's mapped segments (at most the index,
// about 0.2 B per transcript byte), this keeps their peak RSS under 512 MB
// at 500 MB of transcripts (docs/performance.md, Ingest at scale).
const memoryLimit = 192 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(cli.ExitCode(err, os.Stderr))
}
