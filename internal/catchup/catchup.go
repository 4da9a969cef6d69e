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
}

// Deleter is what Forget needs of the archive.
type Deleter interface {
	// Delete removes an entry, or fails with memex.ErrNotFound.
	Delete(ctx context.Context, id memex.ID) error
}

// Stats counts what a catch-up or reindex did.
type Stats struct {
	Indexed int // entries indexed
	Deleted int // markers of entries no longer in the archive, removed from the index
	// NoContent counts entries indexed by metadata alone because their
	// body could not be read (a corrupt chunk): `memex verify` names them.
	NoContent int
}

// Entries are indexed, and their markers cleared, in chunks of at most
// chunkEntries entries and about chunkBytes of content: one bleve batch,
// so one index segment, per chunk. A crash loses at most one chunk's work
// per CPU, which the next CatchUp redoes. Large chunks make fewer segments
// for bleve to merge; the byte bound keeps a chunk of large bodies (each
// cut to index.ContentLimit) in memory bounds.
const (
	chunkEntries = 4096
	chunkBytes   = 16 << 20
)

// chunks splits entries into chunks (see chunkEntries).
func chunks(entries []memex.Entry) [][]memex.Entry {
	var out [][]memex.Entry
	start, size := 0, 0
	for i, e := range entries {
		size += int(min(max(e.Bytes, 0), index.ContentLimit)) + len(e.Input) + 256
		if i+1-start == chunkEntries || size >= chunkBytes || i == len(entries)-1 {
			out = append(out, entries[start:i+1])
			start, size = i+1, 0
		}
	}
	return out
}

// CatchUp indexes every entry marked pending in the archive, then clears
// the markers; after a large backlog it merges the index (see
// compactAfterBulk). Cancelling ctx stops between chunks; what was done
// stays done.
func CatchUp(ctx context.Context, s Store, ix *index.Index) (Stats, error) {
	var ids []memex.ID
	if err := s.Pending(ctx, func(id memex.ID) error {
		ids = append(ids, id)
		return nil
	}); err != nil {
		return Stats{}, fmt.Errorf("catchup: pending: %w", err)
	}
	var st Stats
	var entries []memex.Entry
	var gone []memex.ID
	for _, id := range ids {
		e, err := s.Get(ctx, id)
		if errors.Is(err, memex.ErrNotFound) {
			gone = append(gone, id)
			continue
		}
		if err != nil {
			return st, fmt.Errorf("catchup: get %s: %w", id, err)
		}
		entries = append(entries, e)
	}
	if len(gone) > 0 {
		if err := ix.Delete(ctx, gone...); err != nil {
			return st, fmt.Errorf("catchup: %w", err)
		}
		if err := s.ClearPending(ctx, gone...); err != nil {
			return st, fmt.Errorf("catchup: %w", err)
		}
		st.Deleted = len(gone)
	}
	err := indexEntries(ctx, s, ix, entries, &st, func(part []memex.Entry) error {
		return clearMarkers(ctx, s, part)
	})
	if err != nil {
		return st, err
	}
	if err := compactAfterBulk(ctx, ix, st.Indexed); err != nil {
		return st, err
	}
	return st, nil
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

// Reindex drops the index and rebuilds it from the archive alone, calling
// progress (when not nil) after each chunk with the entries done and the
// total, then merges the index into one segment (index.Compact). Markers of the entries it indexed are cleared; an entry added
// while it runs keeps its marker for the next CatchUp.
func Reindex(ctx context.Context, s Store, ix *index.Index, progress func(done, total int)) (Stats, error) {
	var entries []memex.Entry
	if err := s.Scan(ctx, time.Time{}, time.Time{}, func(e memex.Entry) error {
		entries = append(entries, e)
		return nil
	}); err != nil {
		return Stats{}, fmt.Errorf("catchup: reindex: %w", err)
	}
	if err := ix.Reset(); err != nil {
		return Stats{}, fmt.Errorf("catchup: reindex: %w", err)
	}
	total := len(entries)
	if progress != nil {
		progress(0, total)
	}
	var st Stats
	done := 0
	err := indexEntries(ctx, s, ix, entries, &st, func(part []memex.Entry) error {
		if err := clearMarkers(ctx, s, part); err != nil {
			return err
		}
		done += len(part)
		if progress != nil {
			progress(done, total)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	// Reset left the index unmerged for the load: merge it once, now.
	if err := ix.Compact(ctx); err != nil {
		return st, fmt.Errorf("catchup: reindex: %w", err)
	}
	return st, nil
}

// Forget deletes entries from the archive, then from the index. An ID the
// archive does not know is still removed from the index, and reported as
// memex.ErrNotFound after the others are done. A crash between the two
// deletes leaves an index row whose content is gone; search drops such
// rows when it meets them, and Reindex never recreates them.
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

// indexEntries indexes entries in chunks (see chunks), two chunks at a
// time per CPU: while one chunk's bodies are read and cut to
// index.Excerpt, another is analysed and written by the index, and
// another waits for its segment to be durable. after is called with each chunk once it is indexed (not in order), never
// concurrently.
func indexEntries(ctx context.Context, s Store, ix *index.Index, entries []memex.Entry, st *Stats, after func([]memex.Entry) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex // guards st, firstErr and calls to after
		firstErr error
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
	// Two chunks per CPU: a worker waits for its chunk to be durable
	// (fsync) after building it, and another keeps the CPU busy meanwhile.
	for w := 0; w < 2*max(1, runtime.GOMAXPROCS(0)); w++ {
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
feed:
	for _, part := range chunks(entries) {
		select {
		case parts <- part:
		case <-ctx.Done():
			break feed
		}
	}
	close(parts)
	wg.Wait()
	if firstErr != nil {
		return firstErr
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
