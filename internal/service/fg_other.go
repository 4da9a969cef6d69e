//go:build !unix

package service

// terminalSignalsUs: without process groups to ask about, a signal is
// always forwarded.
func terminalSignalsUs() bool { return false }
