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
)

// memoryLimit is the Go runtime's soft memory limit for a memex process,
// unless GOMEMLIMIT sets another: past it the collector runs more often
// instead of letting the heap grow to twice (reindex: five times) what is
// live. Imports, catch-ups and reindexes allocate at a high rate; with
// Pebble's cache and memtables (about 90 MiB outside the Go heap) and the
// index's mapped files, this keeps their peak RSS under 512 MB
// (docs/performance.md, Memory).
const memoryLimit = 320 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
