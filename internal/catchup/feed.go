package catchup

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/index"
)

// FeedStore is what a Feeder needs of the archive.
type FeedStore interface {
	// ClearPending removes the markers of ids.
	ClearPending(ctx context.Context, ids ...memex.ID) error
	// Sync makes every write so far durable.
	Sync() error
}

// A Feeder indexes entries as an import archives them, from the bodies
// the import has in hand, instead of reading them back from the archive
// afterwards as CatchUp does: a bulk import would otherwise decompress
// every record and body it just wrote. It runs beside the import, on the
// other CPU: the caller hands it each entry once the archive holds it
// (Add); a goroutine cuts the bodies to index.Excerpt and indexes them in
// chunks of at most feedEntries entries and feedBytes of content, with at
// most one chunk being indexed while the next one fills, so its memory is
// bounded by two chunks whatever the size of the import.
//
// Durability, per chunk: before a chunk goes to the index the archive is
// synced, so the index never holds an entry that a crash could take from
// the archive; once the chunk is durable in the index its entries'
// pending markers are cleared. A crash loses at most the chunks not yet
// indexed, whose markers the next CatchUp finds. Close waits for the last
// chunk and merges the index after a large import, as CatchUp does.
type Feeder struct {
	ctx context.Context
	s   FeedStore
	ix  *index.Index

	mu    sync.Mutex
	part  []feedItem
	bytes int
	err   error // first error; Add stops feeding after it

	chunks  chan []feedItem
	done    chan struct{}
	restore func() // the memory limit (raiseMemoryLimit)
	st      Stats  // written by the goroutine until done is closed
}

type feedItem struct {
	e    memex.Entry
	body []byte
}

// Chunks of a feed: smaller than a catch-up's (chunkEntries, chunkBytes),
// because a feed chunk waits for nothing but the next one to fill, and
// bleve's segment building holds several times a chunk's content.
const (
	feedEntries = 2048
	feedBytes   = 4 << 20
)

// NewFeeder starts a feeder into ix for entries archived in s. ctx bounds
// its work; the caller must call Close.
func NewFeeder(ctx context.Context, s FeedStore, ix *index.Index) *Feeder {
	f := &Feeder{ctx: ctx, s: s, ix: ix, chunks: make(chan []feedItem), done: make(chan struct{}),
		restore: raiseMemoryLimit()}
	go f.run()
	return f
}

// Add hands the feeder an entry the archive now holds (its stored
// metadata, ID included) and its exact body; the feeder keeps body until
// the entry is indexed, so the caller must not change it. Add must not be
// called after Close.
func (f *Feeder) Add(e memex.Entry, body []byte) {
	f.mu.Lock()
	if f.err != nil {
		f.mu.Unlock()
		return
	}
	if len(body) > index.ExcerptHead {
		// Only the excerpt is indexed; cut it now so that a chunk
		// holds what it indexes and no more.
		body, _ = index.Excerpt(bytes.NewReader(body))
	}
	f.part = append(f.part, feedItem{e, body})
	f.bytes += len(body) + len(e.Input) + 256
	var full []feedItem
	if len(f.part) >= feedEntries || f.bytes >= feedBytes {
		full, f.part, f.bytes = f.part, nil, 0
	}
	f.mu.Unlock()
	if full != nil {
		f.send(full)
	}
}

func (f *Feeder) send(part []feedItem) {
	select {
	case f.chunks <- part:
	case <-f.ctx.Done():
		f.fail(fmt.Errorf("catchup: feed: %w", f.ctx.Err()))
	case <-f.done:
	}
}

func (f *Feeder) fail(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *Feeder) run() {
	defer close(f.done)
	for part := range f.chunks {
		if err := f.index(part); err != nil {
			f.fail(err)
			// Drain, so that senders never block; their entries keep
			// their markers for the next CatchUp.
			for range f.chunks {
			}
			return
		}
	}
}

func (f *Feeder) index(part []feedItem) error {
	if err := f.s.Sync(); err != nil {
		return fmt.Errorf("catchup: feed: sync archive: %w", err)
	}
	docs := make([]index.Doc, len(part))
	ids := make([]memex.ID, len(part))
	for i, it := range part {
		docs[i] = index.Doc{Entry: it.e, Content: it.body}
		ids[i] = it.e.ID
	}
	if err := f.ix.Add(f.ctx, docs...); err != nil {
		return fmt.Errorf("catchup: feed: %w", err)
	}
	if err := f.s.ClearPending(f.ctx, ids...); err != nil {
		return fmt.Errorf("catchup: feed: %w", err)
	}
	f.st.Indexed += len(part)
	return nil
}

// Close indexes what is left, waits for the feeder's goroutine, merges the
// index after a large feed (as CatchUp does) and returns what it indexed
// and its first error. Entries it could not index keep their markers.
func (f *Feeder) Close() (Stats, error) {
	defer f.restore()
	f.mu.Lock()
	last := f.part
	f.part, f.bytes = nil, 0
	err := f.err
	f.mu.Unlock()
	if len(last) > 0 && err == nil {
		f.send(last)
	}
	close(f.chunks)
	<-f.done
	f.mu.Lock()
	err = f.err
	f.mu.Unlock()
	if err != nil {
		return f.st, err
	}
	if err := compactAfterBulk(f.ctx, f.ix, f.st.Indexed); err != nil {
		return f.st, err
	}
	return f.st, nil
}
