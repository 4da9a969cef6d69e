package ingest

import (
	"path/filepath"
	"strings"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// RecordShown notes in e.Attrs["shows"] the file lines body shows (a
// read, a view, an edit's snippet, grep hits with line numbers; see
// summarize.Shows), so that a later reader can check them against the
// files as they are then without reading the body. Paths inside the
// repository of cwd (e.Attrs["cwd"] when cwd is empty) are written
// relative to its root, so that another checkout of the same project can
// be checked; others stay absolute. An entry that shows no file is left
// as it is.
func RecordShown(e *memex.Entry, cwd string, body []byte) {
	if e.Kind != memex.KindTool || !summarize.MayShow(e.Tool, e.Input) {
		return
	}
	spans := summarize.Shows(e.Tool, e.Input, body)
	if len(spans) == 0 {
		return
	}
	if cwd == "" {
		cwd = e.Attrs["cwd"]
	}
	root := ""
	if cwd != "" && filepath.IsAbs(cwd) {
		root, _ = findGitRoot(filepath.Clean(cwd))
	}
	for i := range spans {
		spans[i].Path = shownPath(spans[i].Path, cwd, root)
	}
	if e.Attrs == nil {
		e.Attrs = map[string]string{}
	}
	e.Attrs["shows"] = summarize.EncodeShown(spans)
}

// shownPath is p relative to root when it lies inside it, else p made
// absolute against cwd when that is known, else p.
func shownPath(p, cwd, root string) string {
	abs := p
	if !filepath.IsAbs(p) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return filepath.ToSlash(filepath.Clean(p))
		}
		abs = filepath.Join(cwd, p)
	}
	abs = filepath.Clean(abs)
	if root != "" {
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}

// RepoRoot is the root of the git repository holding dir (the worktree's
// root for a linked worktree), or "" when dir is in none.
func RepoRoot(dir string) string {
	root, _ := findGitRoot(filepath.Clean(dir))
	return root
}
