package hosts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memex-archive/memex"
)

// ManifestFile is the file of a memex home in which install keeps its
// record (Options.Manifest): what it created, and the user's originals.
const ManifestFile = "installs.json"

// Install writes memex's configuration into host's files as o says, or
// with uninstall removes it, and says on w what became of each file
// (Write; with dryRun the changes are printed, not written). An install
// first settles the binaries the host runs (InstallBins). A refusal that
// says what to fix (memex.ErrInvalid) is returned as it is; other errors
// are prefixed with the verb and the host.
func Install(ctx context.Context, w io.Writer, host string, o Options, uninstall, dryRun bool) error {
	verb := "install"
	if uninstall {
		verb = "uninstall"
	} else if err := o.InstallBins(ctx); err != nil {
		return err
	}
	changes, err := Plan(host, o, uninstall)
	if err != nil {
		if errors.Is(err, memex.ErrInvalid) {
			return err
		}
		return fmt.Errorf("%s %s: %w", verb, host, err)
	}
	return Write(w, changes, verb, dryRun)
}

// Apply writes c (a changed file). A file that existed is first copied to
// PATH.memex-backup-STAMP (STAMP the UTC time to the nanosecond; a number
// is added rather than overwrite an existing backup), whose path is
// returned. A symlink stays a symlink: the file it points to is written.
// The new content replaces the old atomically (a crash leaves one or the
// other). With a manifest, what was created and the user's original are
// recorded for uninstall.
func Apply(c Change) (backup string, err error) {
	target, err := resolveLink(c.Path)
	if err != nil {
		return "", err
	}
	mode := os.FileMode(0o644)
	if c.Existed {
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
		if !c.Remove {
			if backup, err = writeBackup(c.Path, c.Old, mode); err != nil {
				return "", err
			}
		}
	}
	var made []string
	if c.Remove {
		if err := os.Remove(target); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	} else {
		made = missingDirs(filepath.Dir(target))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		if err := writeFileAtomic(target, c.New, mode); err != nil {
			return "", err
		}
	}
	return backup, c.record(backup, made)
}

// missingDirs lists dir and those of its parents that do not exist, the
// deepest first: what MkdirAll(dir) creates.
func missingDirs(dir string) []string {
	var out []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			return out
		}
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// pruneDirs removes the directories of dirs that are empty, the deepest
// first, and returns those left (holding something: a file of the user's,
// or one memex still has installed there).
func pruneDirs(dirs []string) []string {
	sorted := slices.Clone(dirs)
	slices.SortFunc(sorted, func(a, b string) int { return len(b) - len(a) })
	var left []string
	for _, d := range sorted {
		fi, err := os.Lstat(d)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// gone already
		case err != nil || !fi.IsDir():
			// Not the directory install made any more (a link the user
			// put in its place): not memex's to remove, nor to forget.
			left = append(left, d)
		case os.Remove(d) != nil:
			left = append(left, d) // it holds something
		}
	}
	slices.Sort(left)
	return left
}

// Write applies changes, or with dryRun prints their diffs (Diff), and
// says on w what became of each file: the report of memex install and
// uninstall (verb). It stops at the first change it cannot apply.
func Write(w io.Writer, changes []Change, verb string, dryRun bool) error {
	for _, c := range changes {
		switch {
		case !c.Changed():
			fmt.Fprintf(w, "%s: nothing to change\n", c.Path)
		case dryRun:
			Diff(w, c, verb)
		default:
			backup, err := Apply(c)
			if err != nil {
				return err
			}
			switch {
			case c.Remove:
				fmt.Fprintf(w, "%s: removed (memex created it)\n", c.Path)
			case c.Restored != "":
				fmt.Fprintf(w, "%s: restored as it was before memex install (from %s; backup in %s)\n", c.Path, c.Restored, backup)
			case backup != "":
				fmt.Fprintf(w, "%s: updated (backup in %s)\n", c.Path, backup)
			default:
				fmt.Fprintf(w, "%s: created\n", c.Path)
			}
		}
	}
	return nil
}

// record updates the manifest after c was applied.
func (c Change) record(backup string, made []string) error {
	if c.manifest == "" {
		return nil
	}
	m, err := readManifest(c.manifest)
	if err != nil {
		return err
	}
	if c.uninstall {
		_, ok := m.Files[c.Path]
		if !ok && !c.Remove {
			return nil
		}
		delete(m.Files, c.Path)
		if c.Remove {
			// The directories install created go with the last file of
			// theirs: uninstall leaves the tree as install found it.
			m.Dirs = pruneDirs(m.Dirs)
		}
	} else {
		for _, d := range made {
			if !slices.Contains(m.Dirs, d) {
				m.Dirs = append(m.Dirs, d)
			}
		}
		rec, ok := m.Files[c.Path]
		if !ok {
			rec = fileRecord{Host: c.Host, Created: !c.Existed, Original: backup}
		}
		rec.Written = digest(c.New)
		m.Files[c.Path] = rec
	}
	return m.write(c.manifest)
}

// resolveLink is the file a path names, following symlinks, so that a
// configuration file a dotfile manager links stays linked. A dangling
// link names the file it would point to.
func resolveLink(p string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", p)
}

// writeBackup writes b to a new PATH.memex-backup-STAMP file, never over
// an existing one.
func writeBackup(path string, b []byte, mode os.FileMode) (string, error) {
	base := path + ".memex-backup-" + time.Now().UTC().Format("20060102T150405.000000000Z")
	name := base
	for i := 1; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) {
			name = base + "-" + strconv.Itoa(i)
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = syncDir(filepath.Dir(name))
		}
		return name, err
	}
}

func writeFileAtomic(path string, b []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".memex-tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	d.Sync() // not every file system syncs a directory; the rename is done
	return nil
}

// Diff prints a minimal line diff of c ("-", "+", " " prefixes) under a
// header naming the file.
func Diff(w io.Writer, c Change, verb string) {
	if c.Remove {
		fmt.Fprintf(w, "--- %s\n+++ /dev/null (memex %s removes the file it created)\n", c.Path, verb)
		lineDiff(w, string(c.Old), "")
		return
	}
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
