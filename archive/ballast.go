package archive

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// BallastSize is the size of the ballast file a writable store keeps on
// its disk (Options.Ballast).
const BallastSize = 32 << 20

// openFree is the least free space a writable Open needs beside the size
// of the write-ahead logs it may flush: Pebble writes a new MANIFEST, a
// new log and its options file as it opens.
const openFree = 4 << 20

// ballast is a file of BallastSize allocated bytes on the store's disk,
// deleted when Pebble meets a full disk (vfs.OnDiskFull) so that the write
// it was doing (a log record, a flush, its MANIFEST) can be retried and the
// store can refuse further writes and close cleanly, instead of Pebble
// stopping dead in the middle of its own work. It is made again once the
// disk has room for it.
type ballast struct {
	path string
	mu   sync.Mutex
	gone bool // released, not yet made again
}

// ensure makes the ballast file if it is missing and free bytes leave room
// for it and reserve beside; it reports whether the file is there.
func (b *ballast) ensure(free uint64, reserve int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if fi, err := os.Stat(b.path); err == nil && fi.Size() >= BallastSize {
		b.gone = false
		return true
	}
	if int64(free) < BallastSize+max(reserve, 0) {
		return false
	}
	if err := allocate(b.path, BallastSize); err != nil {
		os.Remove(b.path)
		return false
	}
	b.gone = false
	return true
}

// release deletes the ballast (Pebble met a full disk).
func (b *ballast) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := os.Remove(b.path); err == nil || errors.Is(err, os.ErrNotExist) {
		b.gone = true
	}
}

// released reports whether the ballast was given up to a full disk and is
// not back yet.
func (b *ballast) released() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gone
}

// allocate writes a file of size bytes whose blocks are allocated on the
// disk (fallocate where the system has it, else zeros), synced.
func allocate(path string, size int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if err := preallocate(f, size); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeZeros fills f with size zero bytes (where fallocate is missing).
func writeZeros(f *os.File, size int64) error {
	zero := make([]byte, 1<<20)
	for n := int64(0); n < size; {
		k := min(int64(len(zero)), size-n)
		if _, err := f.Write(zero[:k]); err != nil {
			return err
		}
		n += k
	}
	return nil
}

// diskFullErr turns an error of a write that met a full disk into one that
// says so in a line and matches memex.ErrDiskFull; other errors pass.
func diskFullErr(dir string, err error) error {
	if err == nil || errors.Is(err, memex.ErrDiskFull) || !memex.IsDiskFull(err) {
		return err
	}
	return fmt.Errorf("the disk of %s is full: free some space: %w", dir, memex.ErrDiskFull)
}

// checkOpenSpace fails with memex.ErrDiskFull when the disk of dir has no
// room for what a writable Open writes: the logs it may flush and openFree
// beside.
func checkOpenSpace(dir string, free uint64) error {
	var logs int64
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if filepath.Ext(e.Name()) == ".log" {
				if fi, err := e.Info(); err == nil {
					logs += fi.Size()
				}
			}
		}
	}
	need := logs + openFree
	if int64(free) < need {
		return fmt.Errorf("archive: open %s for writing: %s free on its disk, %s needed: free some space (reading works meanwhile): %w",
			dir, summarize.ByteSize(int64(free)), summarize.ByteSize(need), memex.ErrDiskFull)
	}
	return nil
}
