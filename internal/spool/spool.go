package spool

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/memex-archive/memex"
)

// Item is one spooled piece of work.
type Item struct {
	Entry   *memex.Entry `json:"entry,omitempty"`
	Content []byte       `json:"content,omitempty"`
	Ingest  string       `json:"ingest,omitempty"` // transcript path
	Format  string       `json:"format,omitempty"`
	// PID is the process writing a run's output: its item is not drained
	// while that process lives.
	PID int `json:"pid,omitempty"`
}

// Dir is the spool's directory in a memex home.
const Dir = "spool"

// Path returns dir's spool directory, created (0700) if needed.
func Path(dir string) (string, error) {
	p := filepath.Join(dir, Dir)
	if err := os.MkdirAll(p, 0o700); err != nil {
		return "", err
	}
	return p, Tighten(p, 0o700)
}

// Limit bounds the spool: an item that would take it past this many
// bytes is refused (memex.ErrDiskFull), so that hooks spooling while the
// store's disk is full cannot fill what little is left.
const Limit = 64 << 20

// Write writes item to dir's spool under a new time-ordered name and
// returns its path. A spool at Limit, or a disk too full to hold the
// item, is an error matching memex.ErrDiskFull, and nothing is left behind.
func Write(dir string, item Item) (string, error) {
	sp, err := Path(dir)
	if err != nil {
		return "", err
	}
	return write(dir, sp, item)
}

// write is Write into sp, dir's spool directory, which exists.
func write(dir, sp string, item Item) (string, error) {
	held := spoolBytes(sp)
	if size := int64(len(item.Content)); held+size > Limit {
		return "", fmt.Errorf("the spool holds %d bytes, and %d more would take it past its %d MiB: %w",
			held, size, Limit>>20, memex.ErrDiskFull)
	}
	p, err := spoolAs(sp, memex.NewID(time.Now()).String()+".json", item)
	if memex.IsDiskFull(err) && !errors.Is(err, memex.ErrDiskFull) {
		err = fmt.Errorf("spool: the disk of %s is full: %w", dir, memex.ErrDiskFull)
	}
	return p, err
}

// spoolBytes is the size of the files in the spool directory sp.
func spoolBytes(sp string) int64 {
	ents, err := os.ReadDir(sp)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}

// SpoolRun writes (or rewrites) the item of the run whose output is out
// (a spool/run-*.out file).
func WriteRun(out string, item Item) error {
	_, err := spoolAs(filepath.Dir(out), runItem(filepath.Base(out)), item)
	return err
}

// runItem is the item (run-ID.json) beside a run's output (run-ID.out),
// by name or by path.
func runItem(out string) string { return strings.TrimSuffix(out, ".out") + ".json" }

// spoolAs writes item as name in the spool directory sp, which exists.
func spoolAs(sp, name string, item Item) (string, error) {
	b, err := json.Marshal(item)
	if err != nil {
		return "", err
	}
	tmp := filepath.Join(sp, "."+name)
	if err := writeSynced(tmp, b); err != nil {
		os.Remove(tmp)
		return "", err
	}
	p := filepath.Join(sp, name)
	if err := os.Rename(tmp, p); err != nil {
		return "", err
	}
	// A spooled item is acknowledged work, as durable as an add: its name
	// too must survive a crash.
	return p, syncDir(sp)
}

// writeSynced writes b to a new file at p, 0600, and syncs it.
func writeSynced(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir syncs a directory, so that the names created in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// NewRunOutput creates the file a memex run spools its output to, 0600;
// until ReleaseRun, this process's drains leave it alone.
func NewRunOutput(dir string) (*os.File, error) {
	sp, err := Path(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(sp, "run-"+memex.NewID(time.Now()).String()+".out"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		activeRuns.Store(f.Name(), true)
	}
	return f, err
}

// Spooled is one item found in the spool: its file, and for a run the
// file holding its output.
type Spooled struct {
	Path   string
	Output string // a run's output ("" for other items)
	Item   Item
	Err    error // the item could not be read
}

// activeRuns holds the outputs this process is writing (NewRunOutput
// until ReleaseRun): its own drains must leave them alone.
var activeRuns sync.Map

// ReleaseRun says this process is done with the run output at path,
// archived or not: a drain may take it from now on.
func ReleaseRun(path string) { activeRuns.Delete(path) }

// Running reports whether the item belongs to a run still in progress:
// one of this process's, or of a process that lives.
func (s Spooled) Running() bool {
	if s.Output == "" {
		return false
	}
	if _, mine := activeRuns.Load(s.Output); mine {
		return true
	}
	return s.Item.PID > 0 && s.Item.PID != os.Getpid() && Alive(s.Item.PID)
}

// List returns dir's spooled items, oldest first. A run's output
// without an item yet (the run was killed before it wrote one) comes with
// an empty Item.
func List(dir string) ([]Spooled, error) {
	sp := filepath.Join(dir, Dir)
	ents, err := os.ReadDir(sp)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	return listed(sp, ents), nil
}

// listed is List of the spool directory sp, whose entries are ents.
func listed(sp string, ents []os.DirEntry) []Spooled {
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	have := map[string]bool{}
	for _, n := range names {
		have[n] = true
	}
	var out []Spooled
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "."):
		case strings.HasPrefix(n, "run-") && strings.HasSuffix(n, ".out"):
			if have[runItem(n)] {
				continue // listed with its item
			}
			out = append(out, Spooled{Path: filepath.Join(sp, n), Output: filepath.Join(sp, n)})
		case strings.HasSuffix(n, ".json"):
			s := Spooled{Path: filepath.Join(sp, n)}
			if strings.HasPrefix(n, "run-") {
				s.Output = strings.TrimSuffix(s.Path, ".json") + ".out"
			}
			b, err := os.ReadFile(s.Path)
			if err == nil {
				err = json.Unmarshal(b, &s.Item)
			}
			if err != nil {
				s.Err = fmt.Errorf("spool: %s: %w", s.Path, err)
			}
			out = append(out, s)
		}
	}
	return out
}

// Pending reports whether dir's spool holds work a drain would do now:
// an item that is not a run in progress. It reads only the directory,
// once, and the items of runs.
func Pending(dir string) bool {
	sp := filepath.Join(dir, Dir)
	ents, err := os.ReadDir(sp)
	if err != nil {
		return false
	}
	runs := false
	for _, e := range ents {
		switch n := e.Name(); {
		case strings.HasPrefix(n, "."):
		case strings.HasPrefix(n, "run-"):
			runs = runs || strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".out")
		case strings.HasSuffix(n, ".json"):
			return true
		}
	}
	if !runs {
		return false
	}
	for _, it := range listed(sp, ents) {
		if it.Err == nil && !it.Running() {
			return true
		}
	}
	return false
}

// Done removes a spooled item once its work is durable.
func (s Spooled) Done() {
	if s.Output != "" {
		os.Remove(s.Output)
	}
	if s.Path != s.Output {
		os.Remove(s.Path)
	}
}

// Bad keeps an item that cannot be read under a .bad name, for a person.
func (s Spooled) Bad() {
	os.Rename(s.Path, s.Path+".bad")
	if s.Output != "" && s.Output != s.Path {
		os.Rename(s.Output, s.Output+".bad")
	}
}

// Leftover lists the spool's files, in-progress runs excepted: what
// memex verify reports as not archived yet.
func Leftover(dir string) ([]string, error) {
	items, err := List(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range items {
		if !s.Running() {
			out = append(out, s.Path)
		}
	}
	bad, _ := filepath.Glob(filepath.Join(dir, Dir, "*.bad"))
	return append(out, bad...), nil
}

// Tighten narrows path's mode to want when it is wider (a spool or a home
// made by hand, or by an older memex): the group and other bits beyond
// want are cleared. internal/home tightens the home's files with it too.
func Tighten(path string, want os.FileMode) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&^want == 0 {
		return nil
	}
	if err := os.Chmod(path, fi.Mode().Perm()&want); err != nil {
		return fmt.Errorf("tighten %s to %o: %w", path, want, err)
	}
	return nil
}
