//go:build !linux

package testutil

import "testing"

// Tmpfs skips: a size-limited file system made by a test needs Linux.
func Tmpfs(tb testing.TB, size int64) string {
	tb.Helper()
	tb.Skip("a tmpfs made by the test needs Linux")
	return ""
}

// ReadOnlyView skips: a read-only bind mount made by a test needs Linux.
func ReadOnlyView(tb testing.TB, dir string) string {
	tb.Helper()
	tb.Skip("a read-only bind mount made by the test needs Linux")
	return ""
}
