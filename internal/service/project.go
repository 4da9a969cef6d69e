package service

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/hosts"
)

// ProjectArg resolves a --project value. A project as memex records it
// (github.com/acme/api) is itself. A directory written as a path (".",
// "..", "~/src/api", "./api", "/abs/dir") stands for the project that add
// and run record there, named exactly as ingest names a transcript's (its
// git origin, else its repository root, else the directory); a path that
// is no directory is the path itself, absolute and cleaned.
func ProjectArg(s string) string {
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
		return ingest.DetectProject(abs)
	}
	return abs
}

// FillDefaults sets the session and project an entry made by the CLI
// belongs to when its caller did not say: LiveSession and DirProject.
func FillDefaults(e *memex.Entry) {
	if e.Session == "" {
		e.Session = LiveSession()
	}
	if e.Project == "" {
		e.Project = DirProject()
	}
}

// Scope is what a request for a session's or a project's view (memex
// context) is about when it names neither: the live session
// (LiveSession), else the current directory's project (DirProject). A
// session or project given is kept as it is.
func Scope(session, project string) (string, string) {
	if session != "" || project != "" {
		return session, project
	}
	if s := LiveSession(); s != "" {
		return s, ""
	}
	return "", DirProject()
}

// LiveSession is the session of the host this process runs in, as its
// environment names it ("" outside one).
func LiveSession() string { return hosts.LiveSession(os.Getenv) }

// DirProject is the current directory's project, named exactly as ingest
// names a transcript's (its git origin, else its repository root, else the
// directory), so that what `memex add` and `memex run` archive here and
// what an agent's transcript recorded here are one project. It is "" when
// there is no current directory.
func DirProject() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	return ingest.DetectProject(wd)
}
