package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex/ingest"
)

// projectOf names the project of a working directory exactly as ingest
// names a transcript's (its git origin, else its repository root, else the
// directory), so that what `memex add` and `memex run` archive here and
// what an agent's transcript recorded here are one project.
func projectOf(dir string) string { return ingest.DetectProject(dir) }

// projectValue is a --project flag. It takes a project as memex records it
// (github.com/acme/api), or a directory written as a path (".", "..",
// "~/src/api", "./api", "/abs/dir"), which stands for the project that add
// and run record there.
type projectValue struct{ p *string }

func (v projectValue) Set(s string) error { *v.p = projectArg(s); return nil }
func (v projectValue) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}
func (v projectValue) Type() string { return "string" }

// projectArg resolves a --project value: a path-like value names the
// project of that directory when it is one, else the path itself, cleaned
// (projects outside git are named by their absolute directory); any other
// value is a project name as it is.
func projectArg(s string) string {
	pathLike := s == "." || s == ".." || s == "~" || strings.HasPrefix(s, "/") ||
		strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || strings.HasPrefix(s, "~/")
	if !pathLike {
		return s
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return s
		}
		s = filepath.Join(home, s[1:])
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return s
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return projectOf(abs)
	}
	return abs
}
