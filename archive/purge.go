package archive

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// What Delete removes is gone from reads at once, but Pebble only marks it
// deleted: the bytes stay in the write-ahead log that recorded the add, in
// the tables that hold the keys, and in a recycled log file, until
// compactions happen to rewrite them. Purge finishes the job (memex forget
// calls it): it rotates the log and flushes the memtable, compacts the key
// ranges that Delete touched through every level (a compaction that meets a
// deletion drops the value it deletes), and waits until Pebble has deleted
// every file that no longer belongs to the store.
//
// Pebble recycles an obsolete log file (renames it and writes over it)
// unless its Cleaner needs the contents of the files it cleans, as
// pebble.ArchiveCleaner does, which renames them into an archive/
// directory. The store uses ArchiveCleaner, and its file system (shredFS)
// turns that rename into a removal: no log is recycled, every obsolete file
// is deleted, and each deletion wakes Purge.

// archiveDir is the directory into which ArchiveCleaner moves files.
const archiveDir = "archive"

// shredFS is the file system of a writable store: see above.
type shredFS struct {
	vfs.FS
	removed chan struct{} // signalled after each file removed for the cleaner
}

func newShredFS(fs vfs.FS) *shredFS {
	return &shredFS{FS: fs, removed: make(chan struct{}, 1)}
}

func (f *shredFS) MkdirAll(dir string, perm os.FileMode) error {
	if filepath.Base(dir) == archiveDir {
		return nil // ArchiveCleaner's directory: nothing is moved there
	}
	return f.FS.MkdirAll(dir, perm)
}

func (f *shredFS) Rename(oldname, newname string) error {
	if filepath.Base(filepath.Dir(newname)) != archiveDir {
		return f.FS.Rename(oldname, newname)
	}
	err := f.FS.Remove(oldname)
	select {
	case f.removed <- struct{}{}:
	default:
	}
	return err
}

// purgeRange is a key range that Delete touched: [lo, hi).
type purgeRange struct{ lo, hi []byte }

// purgeSet collects what Delete touched until Purge compacts it.
type purgeSet struct {
	mu     sync.Mutex
	ranges []purgeRange
}

func (p *purgeSet) add(lo, hi []byte) {
	p.mu.Lock()
	p.ranges = append(p.ranges, purgeRange{append([]byte(nil), lo...), append([]byte(nil), hi...)})
	p.mu.Unlock()
}

func (p *purgeSet) addKey(k []byte) { p.add(k, append(append([]byte(nil), k...), 0)) }

// take returns the collected ranges merged per key prefix (one bounding
// range per prefix byte: a few compactions rather than one per key), and
// forgets them.
func (p *purgeSet) take() []purgeRange {
	p.mu.Lock()
	rs := p.ranges
	p.ranges = nil
	p.mu.Unlock()
	byPrefix := map[byte]purgeRange{}
	for _, r := range rs {
		b, ok := byPrefix[r.lo[0]]
		if !ok {
			byPrefix[r.lo[0]] = r
			continue
		}
		if bytes.Compare(r.lo, b.lo) < 0 {
			b.lo = r.lo
		}
		if bytes.Compare(r.hi, b.hi) > 0 {
			b.hi = r.hi
		}
		byPrefix[r.lo[0]] = b
	}
	out := make([]purgeRange, 0, len(byPrefix))
	for _, r := range byPrefix {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b purgeRange) int { return bytes.Compare(a.lo, b.lo) })
	return out
}

// PurgeWait bounds how long Purge waits for Pebble to delete the files that
// held deleted entries. A file is kept while a read that started before the
// compaction still uses it.
const PurgeWait = 30 * time.Second

// Purge makes the entries deleted since the last Purge unreadable on disk
// (see above): when it returns without error no file of the store holds
// their content, metadata or keys' values. It fails, naming the files, when
// Pebble has not deleted them within PurgeWait (a long read holds them).
func (s *Store) Purge(ctx context.Context) error {
	if s.opts.ReadOnly || s.opts.InMemory {
		return nil
	}
	ranges := s.purge.take()
	if len(ranges) == 0 {
		return nil
	}
	logs, err := s.logFiles()
	if err != nil {
		return fmt.Errorf("archive: purge: %w", err)
	}
	if err := s.db.Flush(); err != nil {
		return fmt.Errorf("archive: purge: flush: %w", err)
	}
	for _, r := range ranges {
		if err := s.db.Compact(ctx, r.lo, r.hi, false); err != nil {
			return fmt.Errorf("archive: purge: compact: %w", err)
		}
	}
	deadline := time.NewTimer(PurgeWait)
	defer deadline.Stop()
	// A table that a flush or compaction is writing meanwhile is not live
	// until it is done: look again now and then, not only on a removal.
	again := time.NewTicker(100 * time.Millisecond)
	defer again.Stop()
	for {
		left, err := s.leftover(logs)
		if err != nil {
			return fmt.Errorf("archive: purge: %w", err)
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-s.fs.removed:
		case <-again.C:
		case <-deadline.C:
			return fmt.Errorf("archive: purge: %s still on disk after %s (a read in progress holds them; they go when it ends)",
				strings.Join(left, ", "), PurgeWait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// logFiles returns the names of the write-ahead logs in the store's
// directory.
func (s *Store) logFiles() ([]string, error) {
	return filepath.Glob(filepath.Join(s.dir, "*.log"))
}

// leftover returns the files that must be gone and are not: the logs of
// before (the flush that Purge made rotated them all) and the tables that
// are not part of the store any more.
func (s *Store) leftover(logs []string) ([]string, error) {
	var left []string
	for _, p := range logs {
		if _, err := os.Stat(p); err == nil {
			left = append(left, filepath.Base(p))
		}
	}
	live := map[string]bool{}
	levels, err := s.db.SSTables()
	if err != nil {
		return nil, err
	}
	for _, level := range levels {
		for _, t := range level {
			live[fmt.Sprintf("%06d.sst", uint64(t.BackingSSTNum))] = true
		}
	}
	tables, err := filepath.Glob(filepath.Join(s.dir, "*.sst"))
	if err != nil {
		return nil, err
	}
	for _, p := range tables {
		if name := filepath.Base(p); !live[name] {
			if _, err := strconv.ParseUint(strings.TrimSuffix(name, ".sst"), 10, 64); err == nil {
				left = append(left, name)
			}
		}
	}
	return left, nil
}
