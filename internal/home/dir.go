package home

import (
	"fmt"
	"os"
	"path/filepath"
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
