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
// live. While a process indexes in bulk (an import with its index, a
// catch-up, a rebuild) internal/catchup raises it to 224 MiB: those keep
// up to about 140 MB live (the chunks being analysed and gathered, bounded
// by bytes and by count) and at 192 MiB the collector ran all the time.
// With Pebble's cache and memtables (about 60 MiB outside the Go heap),
// the executable's mapped pages (38 MB) and the index's mapped segments
// (at most the index, about 0.24 B per transcript byte), peak RSS stays
// under 512 MB at 500 MB of transcripts (docs/performance.md, The
// collector's room).
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
