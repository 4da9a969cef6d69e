// Package homedir is where a memex home is and the names of the files
// that say who is using it: what memex and memex-hook both need, without
// linking the store (internal/home, which opens it, builds on this).
package homedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// Names of a home's files that memex-hook reads too.
const (
	// LockFile is the home's lock: while a process holds it, the store
	// is taken.
	LockFile = "lock"
	// ServerFile names the running server (memex serve), if any: while
	// it does, hooks send their work there.
	ServerFile = "serve.addr"
)

// Resolve returns the home directory memex uses, absolute: flag (--home)
// when set, else $MEMEX_HOME, else ~/.memex.
func Resolve(flag string) (string, error) {
	dir := flag
	if dir == "" {
		dir = os.Getenv("MEMEX_HOME")
	}
	if dir == "" {
		return Default()
	}
	return filepath.Abs(dir)
}

// Default is the home memex uses when neither --home nor $MEMEX_HOME
// names one: ~/.memex of the user's home directory.
func Default() (string, error) {
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find a home directory (set MEMEX_HOME or --home): %w", err)
	}
	return filepath.Abs(filepath.Join(u, ".memex"))
}

// Flag is the --home that commands written to run elsewhere (a host's
// hooks, memex install's) carry to reach the home dir: "" when dir is
// the default home, so that they keep following it (and $MEMEX_HOME).
func Flag(dir string) string {
	if def, err := Default(); err == nil && filepath.Clean(dir) == def {
		return ""
	}
	return dir
}
