package ingest

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// DetectProject names the project a session working in cwd was about, so
// that the same repository seen by two agents (or from two worktrees) is
// one project:
//
//   - the repository's origin remote, normalised to host/owner/repo
//     ("github.com/o/r"), when cwd still exists inside a git repository
//     that has one;
//   - else the repository root;
//   - else (the directory is gone, or is no repository) cwd itself, cleaned.
//
// It reads .git files directly rather than running git, so it costs a few
// stats and works without git installed.
func DetectProject(cwd string) string {
	if cwd == "" {
		return ""
	}
	cwd = filepath.Clean(cwd)
	root, gitDir := findGitRoot(cwd)
	if root == "" {
		return cwd
	}
	if remote := originURL(gitDir); remote != "" {
		if n := NormalizeRemote(remote); n != "" {
			return n
		}
	}
	return root
}

// findGitRoot walks up from dir to the directory holding .git, returning it
// and the git directory (resolving a worktree's "gitdir:" file to the main
// repository's common directory).
func findGitRoot(dir string) (root, gitDir string) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		fi, err := os.Stat(p)
		if err == nil {
			if fi.IsDir() {
				return d, p
			}
			b, err := os.ReadFile(p)
			if err == nil {
				line := strings.TrimSpace(string(b))
				if rest, ok := strings.CutPrefix(line, "gitdir:"); ok {
					g := strings.TrimSpace(rest)
					if !filepath.IsAbs(g) {
						g = filepath.Join(d, g)
					}
					if c, err := os.ReadFile(filepath.Join(g, "commondir")); err == nil {
						cd := strings.TrimSpace(string(c))
						if !filepath.IsAbs(cd) {
							cd = filepath.Join(g, cd)
						}
						g = filepath.Clean(cd)
					}
					return d, g
				}
			}
			return d, ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// originURL reads remote "origin"'s url (else the first remote's) from the
// git config.
func originURL(gitDir string) string {
	if gitDir == "" {
		return ""
	}
	f, err := os.Open(filepath.Join(gitDir, "config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	var section, first, origin string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) != "url" || !strings.HasPrefix(section, "[remote ") {
			continue
		}
		v = strings.TrimSpace(v)
		if section == `[remote "origin"]` {
			origin = v
		} else if first == "" {
			first = v
		}
	}
	if origin != "" {
		return origin
	}
	return first
}

// NormalizeRemote turns the usual spellings of a remote URL
// (https://github.com/o/r.git, git@github.com:o/r, ssh://git@host:22/o/r)
// into host/o/r, lower-cased host, without credentials or ".git". A local
// path remote is returned cleaned.
func NormalizeRemote(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}
	if strings.HasPrefix(u, "/") || strings.HasPrefix(u, "file://") {
		return filepath.Clean(strings.TrimPrefix(u, "file://"))
	}
	rest := u
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	} else if at := strings.Index(rest, "@"); at >= 0 && strings.Contains(rest[at:], ":") {
		// scp-like: git@host:owner/repo
		rest = rest[at+1:]
		rest = strings.Replace(rest, ":", "/", 1)
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 && at < strings.Index(rest+"/", "/") {
		rest = rest[at+1:]
	}
	host, path, _ := strings.Cut(rest, "/")
	if h, _, ok := strings.Cut(host, ":"); ok {
		host = h
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" {
		return u
	}
	return strings.ToLower(host) + "/" + path
}

// sweProject names the repository of a SWE-bench instance id
// ("django__django-14915" -> "github.com/django/django"), "" otherwise.
func sweProject(instance string) string {
	owner, rest, ok := strings.Cut(instance, "__")
	if !ok || owner == "" {
		return ""
	}
	i := strings.LastIndex(rest, "-")
	if i <= 0 {
		return ""
	}
	return "github.com/" + owner + "/" + rest[:i]
}
