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
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
