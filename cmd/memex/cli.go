package main

import "github.com/memex-archive/memex/internal/cli"

// Short names of internal/cli's for hook.go and install.go, which call
// them so.
var (
	usagef      = cli.Usagef
	exactArgs   = cli.ExactArgs
	rangeArgs   = cli.RangeArgs
	lockTimeout = cli.LockTimeout
	userMessage = cli.Message
)
