package index

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/util"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// tidyWait bounds how long tidy waits for root.bolt's lock. An index that
// another process holds open (a reader's shared lock) is left as it is:
// the home's lock keeps readers and a writer apart, so this is not
// expected, and what is left is tidied by the next writer's Close.
const tidyWait = 100 * time.Millisecond

// tidy removes from the scorch store in dir (the index's "store"
// directory) what its last snapshot does not need: the older snapshots
// recorded in root.bolt, and every segment file (*.zap) that the last
// snapshot does not name. It returns the number of files removed.
//
// Scorch removes the files of merged-away segments itself, but only when
// its persister is idle, and the snapshots that named them only once no
// search holds them (asynchronously, after the last release): an index
// closed soon after a merge keeps them on disk, until a later process
// opens it for writing and stays long enough. After a large import those
// files can be more than the index itself.
//
// tidy runs on a closed index only (Close, and Compact's reopening): no
// snapshot of this process is live then. It takes root.bolt's lock
// exclusively, which no process that has the index open lets it have
// (scorch holds root.bolt open, shared when read-only, for as long as the
// index is open), so it never removes a file that someone reads.
//
// The older snapshots are of no use to memex: when the last one cannot be
// loaded, scorch would open an older one instead, but Open treats that as
// damage (catchLostSnapshots) and rebuilds the index from the archive.
// The records of the older snapshots go first, in one transaction: a crash
// after it leaves files that no snapshot names, which scorch removes when
// it next opens the index for writing.
func tidy(dir string) (removed int, err error) {
	root := filepath.Join(dir, "root.bolt")
	if _, err := os.Stat(root); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil // bolt would create it
		}
		return 0, err
	}
	defer func() {
		// bbolt panics on some damage; a damaged index is for Open to find.
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: %v", root, p)
		}
	}()
	db, err := util.OpenBolt(root, 0o600, &bolt.Options{Timeout: tidyWait})
	if errors.Is(err, berrors.ErrTimeout) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()

	var (
		last  []byte          // key of the last snapshot
		older [][]byte        // keys of the others
		live  map[string]bool // the segment files the last snapshot names
	)
	err = db.View(func(tx *util.BoltTxImpl) error {
		snapshots := tx.Bucket(util.BoltSnapshotsBucket)
		if snapshots == nil {
			return nil
		}
		c := snapshots.Cursor()
		for k, v := c.Last(); k != nil; k, v = c.Prev() {
			if v != nil || bytes.Equal(k, util.BoltTrainerKey) {
				continue // not a snapshot's bucket
			}
			if last != nil {
				older = append(older, bytes.Clone(k))
				continue
			}
			last = bytes.Clone(k)
			files, err := segmentFiles(snapshots.GetBucket(k))
			if err != nil {
				return err
			}
			live = files
		}
		return nil
	})
	if err != nil || last == nil {
		// No snapshot: nothing says which files are needed.
		return 0, err
	}
	if len(older) > 0 {
		err = db.Update(func(tx *util.BoltTxImpl) error {
			snapshots := tx.Bucket(util.BoltSnapshotsBucket)
			for _, k := range older {
				if err := snapshots.DeleteBucket(k); err != nil && !errors.Is(err, berrors.ErrBucketNotFound) {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	for _, f := range names {
		name := f.Name()
		if !strings.HasSuffix(name, ".zap") || live[name] {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// segmentFiles returns the names of the segment files a snapshot's bucket
// names. It fails rather than leave one out.
func segmentFiles(snapshot *util.BoltBucketImpl) (map[string]bool, error) {
	if snapshot == nil {
		return nil, errors.New("snapshot bucket missing")
	}
	files := map[string]bool{}
	c := snapshot.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v != nil || k[0] == util.BoltInternalKey[0] {
			continue // a value, or the snapshot's internal values
		}
		seg := snapshot.GetBucket(k)
		if seg == nil {
			continue
		}
		p, err := seg.Get(util.BoltPathKey, nil)
		if err != nil {
			return nil, err
		}
		if p != nil {
			files[filepath.Base(string(p))] = true
		}
	}
	return files, nil
}

// tidyClosed tidies the closed index's directory, logging what fails: the
// index is whole either way, only larger on disk.
func (ix *Index) tidyClosed() {
	if ix.opts.InMemory || ix.opts.ReadOnly {
		return
	}
	if _, err := tidy(filepath.Join(ix.dir, "store")); err != nil {
		ix.opts.Logger.Warn(fmt.Sprintf("index: tidy %s: %v", ix.dir, err))
	}
}
