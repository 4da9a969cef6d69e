package main

import (
	"os"
	"path/filepath"
)

// projectOf names the project of a working directory: the root of the git
// repository holding it, else the directory itself.
func projectOf(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
