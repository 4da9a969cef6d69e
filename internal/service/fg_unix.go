//go:build unix

package service

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalSignalsUs reports whether memex runs in the foreground process
// group of the terminal on its stdin, whose Ctrl-C signals every process
// of that group.
func terminalSignalsUs() bool {
	fg, err := unix.IoctlGetInt(int(os.Stdin.Fd()), unix.TIOCGPGRP)
	return err == nil && fg == unix.Getpgrp()
}
