// Package testutil finds the shared corpora of real agent transcripts for
// tests and benchmarks, and skips cleanly where they are absent (a user's
// clone has none).
package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Corpora returns the directory of the shared corpora ($MEMEX_CORPORA, or
// ../shared/corpora beside the module root), or skips tb when it does not
// exist.
func Corpora(tb testing.TB) string {
	tb.Helper()
	dir := CorporaDir()
	if dir == "" {
		tb.Skip("corpora not found (set MEMEX_CORPORA or place them at ../shared/corpora beside the module)")
	}
	return dir
}

// CorporaDir returns the corpora directory or "" when absent.
func CorporaDir() string {
	if d := os.Getenv("MEMEX_CORPORA"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		return ""
	}
	d := filepath.Join(ModuleRoot(), "..", "shared", "corpora")
	if fi, err := os.Stat(d); err == nil && fi.IsDir() {
		return d
	}
	return ""
}

// ModuleRoot returns the directory holding go.mod.
func ModuleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
