// Package catchup keeps the search index in step with the archive.
//
// The archive is the source of truth. Every archive write leaves a durable
// "pending index" marker in the same batch; CatchUp indexes the marked
// entries and only then clears their markers, so a crash at any point is
// repaired by the next CatchUp (indexing is idempotent: an entry indexed
// twice is replaced, not duplicated). An entry deleted from the archive
// while marked is deleted from the index. Reindex drops the index and
// rebuilds it from the archive alone.
//
// When is CatchUp run? `memex serve` runs Follow, which catches up a few
// times a second; a one-shot command that searches runs CatchUp first.
// Either way an entry is searchable within a second of its add returning.
//
// This package is the only place that sees both the archive (through the
// Store interface below) and the index: the two never import each other.
package catchup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/index"
)

// Store is what catch-up needs of the archive (archive.Store has it).
type Store interface {
	// Get returns an entry's metadata, or an error wrapping
	// memex.ErrNotFound.
	Get(ctx context.Context, id memex.ID) (memex.Entry, error)
	// Body streams an entry's exact content; the caller closes it.
	Body(ctx context.Context, id memex.ID) (io.ReadCloser, error)
	// Scan calls fn for every entry with an ID time in [from, to), in ID
	// order; zero times leave that side open.
	Scan(ctx context.Context, from, to time.Time, fn func(memex.Entry) error) error
	// Pending calls fn with the ID of every entry marked for indexing.
	Pending(ctx context.Context, fn func(memex.ID) error) error
	// ClearPending removes the markers of ids.
	ClearPending(ctx context.Context, ids ...memex.ID) error
	// MarkAllPending marks every entry for indexing, durably, and returns
	// how many there are.
	MarkAllPending(ctx context.Context) (int, error)
	// AnyIndexed reports whether some entry has no marker.
	AnyIndexed(ctx context.Context) (bool, error)
	// GetState, SetState and DeleteState keep small named values durably
	// beside the entries; GetState of a name never set is
	// memex.ErrNotFound.
	GetState(ctx context.Context, name string) ([]byte, error)
	SetState(ctx context.Context, name string, value []byte) error
	DeleteState(ctx context.Context, name string) error
}

// Deleter is what Forget needs of the archive.
type Deleter interface {
	// Delete removes an entry, or fails with memex.ErrNotFound.
	Delete(ctx context.Context, id memex.ID) error
	// Purge makes what Delete removed unreadable on disk.
	Purge(ctx context.Context) error
}

// Stats counts what a catch-up or reindex did.
type Stats struct {
	Indexed int // entries indexed
	Deleted int // markers of entries no longer in the archive, removed from the index
	// NoContent counts entries indexed by metadata alone because their
	// body could not be read (a corrupt chunk): `memex verify` names them.
	NoContent int
	// Resumed says that a rebuild of the index that another process
	// started and did not finish was finished (CatchUp).
	Resumed bool
	// Rebuilt says that the index had lost its entries (it was empty while
	// the archive held entries marked indexed) and was rebuilt (CatchUp).
	Rebuilt bool
}

// Entries are indexed, and their markers cleared, in chunks of at most
// chunkEntries entries and about chunkBytes of content: one bleve batch,
// so one index segment, per chunk. A crash loses at most one chunk's work
// per CPU, which the next CatchUp redoes. Large chunks make fewer segments
// for bleve to merge; the byte bound keeps a chunk of large bodies (each
// cut to index.ContentLimit) in memory bounds, and the memory of a chunk's
// analysis with it.
const (
	chunkEntries = 4096
	chunkBytes   = 4 << 20
)

// chunker gathers entries into chunks (see chunkEntries).
type chunker struct {
	part []memex.Entry
	size int
}

// add appends e to the chunk being gathered and returns that chunk when
// it is full, nil when not.
func (c *chunker) add(e memex.Entry) []memex.Entry {
	c.part = append(c.part, e)
	c.size += entrySize(e)
	if len(c.part) == chunkEntries || c.size >= chunkBytes {
		return c.flush()
	}
	return nil
}

// flush returns the chunk gathered so far (nil when empty) and starts
// another.
func (c *chunker) flush() []memex.Entry {
	part := c.part
	c.part, c.size = nil, 0
	return part
}

// entrySize is what an entry counts towards chunkBytes: the content the
// index reads of it, its input, and its metadata.
func entrySize(e memex.Entry) int {
	return int(min(max(e.Bytes, 0), index.ContentLimit)) + len(e.Input) + len(e.Summary) + len(e.AgentSummary) + 256
}

// CatchUp indexes every entry marked pending in the archive, then clears
// the markers; after a large backlog it merges the index (see
// compactAfterBulk). Cancelling ctx stops between chunks; what was done
// stays done.
//
// It also finishes what a process that died left undone: a rebuild killed
// before every entry was marked is started again, one killed later is
// finished (the markers say what is left). And an index that holds nothing
// while the archive holds entries marked indexed has been lost (dropped
// because it was damaged, or deleted): it is rebuilt. Stats says which.
func CatchUp(ctx context.Context, s Store, ix *index.Index) (Stats, error) {
	return CatchUpWith(ctx, s, ix, nil)
}

// CatchUpWith is CatchUp, calling progress (when not nil) as Reindex
// does: once before the first chunk with the backlog, then after each.
func CatchUpWith(ctx context.Context, s Store, ix *index.Index, progress func(done, total int)) (Stats, error) {
	phase, err := s.GetState(ctx, rebuildState)
	switch {
	case errors.Is(err, memex.ErrNotFound):
	case err != nil:
		return Stats{}, fmt.Errorf("catchup: %w", err)
	case string(phase) == phaseIndex:
		st, err := finishRebuild(ctx, s, ix, progress)
		st.Resumed = true
		return st, err
	default:
		st, err := Reindex(ctx, s, ix, progress)
		st.Resumed = true
		return st, err
	}
	if n, err := ix.Count(); err != nil {
		return Stats{}, fmt.Errorf("catchup: %w", err)
	} else if n == 0 {
		lost, err := s.AnyIndexed(ctx)
		if err != nil {
			return Stats{}, fmt.Errorf("catchup: %w", err)
		}
		if lost {
			st, err := Reindex(ctx, s, ix, progress)
			st.Rebuilt = true
			return st, err
		}
	}
	defer raiseMemoryLimit()()
	st, err := catchUp(ctx, s, ix, progress)
	if err != nil {
		return st, err
	}
	if err := compactAfterBulk(ctx, ix, st.Indexed); err != nil {
		return st, err
	}
	return st, nil
}

// catchUp indexes the entries marked pending and clears their markers,
// calling progress (when not nil) after each chunk.
//
// Its memory is bounded by bytes, not by the backlog: it holds the IDs of
// the backlog (16 bytes each) and reads the metadata of one chunk at a
// time as the indexing workers take them (see indexEntries), so at most
// indexWorkers()+1 chunks of metadata and content are in memory whatever
// the size of the store and the number of CPUs (a reindex of the whole
// store is one backlog).
func catchUp(ctx context.Context, s Store, ix *index.Index, progress func(done, total int)) (Stats, error) {
	var ids []memex.ID
	if err := s.Pending(ctx, func(id memex.ID) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		return Stats{}, fmt.Errorf("catchup: pending: %w", err)
	}
	var (
		mu   sync.Mutex // guards st and done
		st   Stats
		done int
	)
	total := len(ids)
	if progress != nil {
		progress(0, total)
	}
	// gone are the marked entries the archive no longer holds: removed
	// from the index, their markers cleared, a chunk's worth at a time.
	var gone []memex.ID
	dropGone := func() error {
		if len(gone) == 0 {
			return nil
		}
		if err := ix.Delete(ctx, gone...); err != nil {
			return fmt.Errorf("catchup: %w", err)
		}
		if err := s.ClearPending(ctx, gone...); err != nil {
			return fmt.Errorf("catchup: %w", err)
		}
		mu.Lock()
		st.Deleted += len(gone)
		done += len(gone)
		mu.Unlock()
		gone = gone[:0]
		return nil
	}
	produce := func(emit func([]memex.Entry) error) error {
		var c chunker
		for _, id := range ids {
			e, err := s.Get(ctx, id)
			if errors.Is(err, memex.ErrNotFound) {
				if gone = append(gone, id); len(gone) == chunkEntries {
					if err := dropGone(); err != nil {
						return err
					}
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("catchup: get %s: %w", id, err)
			}
			if part := c.add(e); part != nil {
				if err := emit(part); err != nil {
					return err
				}
			}
		}
		if part := c.flush(); part != nil {
			if err := emit(part); err != nil {
				return err
			}
		}
		return dropGone()
	}
	err := indexEntries(ctx, s, ix, produce, &mu, &st, func(part []memex.Entry) error {
		if err := clearMarkers(ctx, s, part); err != nil {
			return err
		}
		done += len(part)
		if progress != nil {
			progress(done, total)
		}
		return nil
	})
	return st, err
}

// compactAfterBulk merges the index into one segment after a catch-up
// that indexed a full chunk or more, and at least a quarter of the index
// (a large ingest): bleve's tiers would leave a dozen segments, each
// repeating the common terms (at 100,000 entries, 0.76 x content against
// 0.53 x in one segment). Requiring a quarter of the index bounds the
// merging: the index is merged whole at most once per quarter of growth,
// not after every chunk.
func compactAfterBulk(ctx context.Context, ix *index.Index, indexed int) error {
	if indexed < chunkEntries {
		return nil
	}
	n, err := ix.Count()
	if err != nil {
		return fmt.Errorf("catchup: %w", err)
	}
	if uint64(indexed)*4 < n {
		return nil
	}
	if err := ix.Compact(ctx); err != nil {
		return fmt.Errorf("catchup: %w", err)
	}
	return nil
}

// clearMarkers removes the pending markers of entries.
func clearMarkers(ctx context.Context, s Store, entries []memex.Entry) error {
	ids := make([]memex.ID, len(entries))
	for i, e := range entries {
		ids[i] = e.ID
	}
	if err := s.ClearPending(ctx, ids...); err != nil {
		return fmt.Errorf("catchup: %w", err)
	}
	return nil
}

// rebuildState is the archive state that says a rebuild of the index is
// under way, and how far it got: phaseReset until every entry is marked
// pending, phaseIndex after.
const (
	rebuildState = "index/rebuild"
	phaseReset   = "reset"
	phaseIndex   = "index"
)

// Reindex drops the index and rebuilds it from the archive alone, calling
// progress (when not nil) after each chunk with the entries done and the
// total, then merges the index into one segment (index.Compact).
//
// It is resumable: killed at any point, the next CatchUp (or Reindex)
// finishes it. It records in the archive that a rebuild is under way,
// empties the index, marks every entry pending, records that the marking is
// done, and indexes the marked entries as CatchUp does, each chunk's
// markers cleared once the chunk is durable in the index; the record goes
// last. An entry added while it runs is marked as every add is.
func Reindex(ctx context.Context, s Store, ix *index.Index, progress func(done, total int)) (Stats, error) {
	if err := s.SetState(ctx, rebuildState, []byte(phaseReset)); err != nil {
		return Stats{}, fmt.Errorf("catchup: reindex: %w", err)
	}
	if err := ix.Reset(); err != nil {
		return Stats{}, fmt.Errorf("catchup: reindex: %w", err)
	}
	if _, err := s.MarkAllPending(ctx); err != nil {
		return Stats{}, fmt.Errorf("catchup: reindex: %w", err)
	}
	if err := s.SetState(ctx, rebuildState, []byte(phaseIndex)); err != nil {
		return Stats{}, fmt.Errorf("catchup: reindex: %w", err)
	}
	return finishRebuild(ctx, s, ix, progress)
}

// finishRebuild indexes what a rebuild marked, merges the index and
// records the rebuild as done.
func finishRebuild(ctx context.Context, s Store, ix *index.Index, progress func(done, total int)) (Stats, error) {
	defer raiseMemoryLimit()()
	st, err := catchUp(ctx, s, ix, progress)
	if err != nil {
		return st, err
	}
	// One segment: the smallest index and the fastest to search.
	if err := ix.Compact(ctx); err != nil {
		return st, fmt.Errorf("catchup: reindex: %w", err)
	}
	if err := s.DeleteState(ctx, rebuildState); err != nil {
		return st, fmt.Errorf("catchup: reindex: %w", err)
	}
	return st, nil
}

// Forget deletes entries from the archive, then from the index, then
// purges both (archive.Store.Purge, index.Index.Purge): when it returns
// without error, no file of the store or the index holds what they held.
// An ID the archive does not know is still removed from the index, and
// reported as memex.ErrNotFound after the others are done. A crash between
// the two deletes leaves an index row (and its terms) whose entry is gone,
// and a crash before the purge leaves the bytes on disk: the caller keeps
// the IDs durably until Forget returns, and runs it again on them
// (internal/service's forget journal). Search drops such rows when it
// meets them, and Reindex never recreates them.
func Forget(ctx context.Context, s Deleter, ix *index.Index, ids ...memex.ID) error {
	var missing []memex.ID
	for _, id := range ids {
		if err := s.Delete(ctx, id); err != nil {
			if !errors.Is(err, memex.ErrNotFound) {
				return fmt.Errorf("catchup: forget %s: %w", id, err)
			}
			missing = append(missing, id)
		}
	}
	if err := ix.Delete(ctx, ids...); err != nil {
		return fmt.Errorf("catchup: forget: %w", err)
	}
	if err := s.Purge(ctx); err != nil {
		return fmt.Errorf("catchup: forget: %w", err)
	}
	if err := ix.Purge(ctx); err != nil {
		return fmt.Errorf("catchup: forget: %w", err)
	}
	if len(missing) > 0 {
		return fmt.Errorf("catchup: forget: %d of %d entries not in the archive (first %s): %w",
			len(missing), len(ids), missing[0], memex.ErrNotFound)
	}
	return nil
}

// FollowOptions configure Follow. The zero value catches up every 250 ms
// and drops errors.
type FollowOptions struct {
	Interval time.Duration // between rounds; 250 ms when zero
	OnError  func(error)   // a round's error (the next round retries)
	OnRound  func(Stats)   // after each successful round (logging, tests)
}

// Follow runs CatchUp at once and then every interval until ctx is done,
// carrying on after errors. A long-running server calls it in a goroutine.
func Follow(ctx context.Context, s Store, ix *index.Index, opts FollowOptions) {
	if opts.Interval <= 0 {
		opts.Interval = 250 * time.Millisecond
	}
	t := time.NewTicker(opts.Interval)
	defer t.Stop()
	for {
		st, err := CatchUp(ctx, s, ix)
		switch {
		case err != nil && ctx.Err() == nil && opts.OnError != nil:
			opts.OnError(err)
		case err == nil && opts.OnRound != nil:
			opts.OnRound(st)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// maxIndexWorkers bounds the chunks a catch-up indexes at once. bleve's
// analysis of a chunk holds many times its content: two per CPU (four
// chunks of 16 MiB) took a catch-up of 50 MB of transcripts to 612 MB of
// RSS, against 464 MB for one per CPU in chunks of 4 MiB, in about the
// same time; and one per CPU with 8 CPUs (GOMAXPROCS=8) took it to 807 MB
// and twice the CPU, against 369 MB with 2, the collector running against
// the memory limit. So at most two, whatever the machine: its memory is
// bounded by a constant, and bleve still analyses each chunk on all CPUs.
const maxIndexWorkers = 2

// indexWorkers is how many chunks a catch-up indexes at once.
func indexWorkers() int { return min(maxIndexWorkers, max(1, runtime.GOMAXPROCS(0))) }

// indexEntries indexes the chunks that produce emits, one chunk at a time
// on each of indexWorkers goroutines: while one chunk's bodies are read
// and cut to index.Excerpt, or it waits for its segment to be durable,
// another is analysed and written by the index (whose analysis runs on
// every CPU). produce runs on the calling goroutine; emit blocks until a
// worker takes the chunk, so at most one chunk per worker and the one
// being gathered are in memory.
// after is called with each chunk once it is indexed (not in order),
// holding mu, which also guards st.
func indexEntries(ctx context.Context, s Store, ix *index.Index, produce func(emit func([]memex.Entry) error) error,
	mu *sync.Mutex, st *Stats, after func([]memex.Entry) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		firstErr error // guarded by mu
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		mu.Unlock()
		cancel()
	}
	parts := make(chan []memex.Entry)
	for range indexWorkers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for part := range parts {
				docs := make([]index.Doc, len(part))
				noContent := 0
				for i, e := range part {
					content, err := excerpt(ctx, s, e.ID)
					if err != nil {
						if ctx.Err() != nil {
							fail(fmt.Errorf("catchup: %w", ctx.Err()))
							return
						}
						noContent++
					}
					docs[i] = index.Doc{Entry: e, Content: content}
				}
				if err := ix.Add(ctx, docs...); err != nil {
					fail(fmt.Errorf("catchup: %w", err))
					return
				}
				mu.Lock()
				st.Indexed += len(docs)
				st.NoContent += noContent
				var err error
				if after != nil && firstErr == nil {
					err = after(part)
				}
				mu.Unlock()
				if err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	err := produce(func(part []memex.Entry) error {
		select {
		case parts <- part:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("catchup: %w", ctx.Err())
		}
	})
	close(parts)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("catchup: %w", err)
	}
	return nil
}

func excerpt(ctx context.Context, s Store, id memex.ID) ([]byte, error) {
	rc, err := s.Body(ctx, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return index.Excerpt(rc)
}

// Coverage is how the index compares with the archive (memex verify).
type Coverage struct {
	Entries int    // entries in the archive
	Pending int    // of those, marked for indexing: not searchable yet
	Indexed uint64 // documents in the index
	// Missing are entries marked indexed that the index does not hold:
	// unsearchable, and no catch-up would index them.
	Missing []memex.ID
	// Rebuilding says that a rebuild of the index was started and not
	// finished; the next catch-up finishes it.
	Rebuilding bool
}

// CheckCoverage checks that the index holds every entry of the archive that
// is marked indexed. It asks the index for each (a second or two for
// 100,000 entries).
func CheckCoverage(ctx context.Context, s Store, ix *index.Index) (Coverage, error) {
	var c Coverage
	if _, err := s.GetState(ctx, rebuildState); err == nil {
		c.Rebuilding = true
	} else if !errors.Is(err, memex.ErrNotFound) {
		return c, fmt.Errorf("catchup: coverage: %w", err)
	}
	pending := map[memex.ID]bool{}
	if err := s.Pending(ctx, func(id memex.ID) error { pending[id] = true; return nil }); err != nil {
		return c, fmt.Errorf("catchup: coverage: %w", err)
	}
	err := s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
		c.Entries++
		if pending[e.ID] {
			c.Pending++
			return nil
		}
		ok, err := ix.Has(e.ID)
		if err != nil {
			return err
		}
		if !ok {
			c.Missing = append(c.Missing, e.ID)
		}
		return nil
	})
	if err != nil {
		return c, fmt.Errorf("catchup: coverage: %w", err)
	}
	if c.Indexed, err = ix.Count(); err != nil {
		return c, fmt.Errorf("catchup: coverage: %w", err)
	}
	return c, nil
}
