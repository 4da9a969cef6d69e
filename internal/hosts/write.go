package hosts

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Apply writes c (a changed file) atomically. A file that existed is first
// copied to PATH.memex-backup-STAMP, whose path is returned.
func Apply(c Change, stamp string) (backup string, err error) {
	mode := os.FileMode(0o644)
	if c.Existed {
		if fi, err := os.Stat(c.Path); err == nil {
			mode = fi.Mode().Perm()
		}
		backup = c.Path + ".memex-backup-" + stamp
		if err := os.WriteFile(backup, c.Old, mode); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Dir(c.Path), 0o755); err != nil {
		return "", err
	}
	if err := writeFileAtomic(c.Path, c.New, mode); err != nil {
		return "", err
	}
	return backup, nil
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	tmp := path + ".memex-tmp"
	if err := os.WriteFile(tmp, b, mode); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Diff prints a minimal line diff of c ("-", "+", " " prefixes) under a
// header naming the file.
func Diff(w io.Writer, c Change, verb string) {
	fmt.Fprintf(w, "--- %s\n+++ %s (after memex %s)\n", c.Path, c.Path, verb)
	lineDiff(w, string(c.Old), string(c.New))
}

// lineDiff prints a minimal line diff of a and b ("-", "+", " " prefixes).
func lineDiff(w io.Writer, a, b string) {
	x, y := splitLines(a), splitLines(b)
	n, m := len(x), len(y)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && x[i] == y[j]:
			fmt.Fprintf(w, " %s\n", x[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(w, "+%s\n", y[j])
			j++
		default:
			fmt.Fprintf(w, "-%s\n", x[i])
			i++
		}
	}
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
