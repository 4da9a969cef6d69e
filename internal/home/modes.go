package home

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ModeProblem is a file or directory of a home that other users may read
// (or write): its path, its mode and what it should be.
type ModeProblem struct {
	Path string      `json:"path"`
	Mode os.FileMode `json:"mode"`
	Want os.FileMode `json:"want"`
}

// Message says what is wrong and how to fix it, without the path.
func (p ModeProblem) Message() string {
	return fmt.Sprintf("mode %04o: other users can read it; want %04o (the next memex write tightens it, or chmod %o %s)",
		p.Mode.Perm(), p.Want, p.Want, p.Path)
}

// Modes reports the store, index and spool directories and the token and
// serve.addr files of dir whose mode is wider than 0700 / 0600. Missing
// ones are no problem.
func Modes(dir string) ([]ModeProblem, error) {
	var out []ModeProblem
	for _, c := range []struct {
		name string
		want os.FileMode
	}{{StoreDir, 0o700}, {IndexDir, 0o700}, {SpoolDir, 0o700}, {TokenFile, 0o600}, {ServerFile, 0o600}, {KeyFile, 0o600}} {
		p := filepath.Join(dir, c.name)
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		if fi.Mode().Perm()&^c.want != 0 {
			out = append(out, ModeProblem{Path: p, Mode: fi.Mode().Perm(), Want: c.want})
		}
	}
	return out, nil
}
