package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cockroachdb/pebble/v2"
	"github.com/memex-archive/memex"
)

// Delete removes entry id: its metadata, aliases, session order and
// pending marker, and its body when no other entry references it. A missing
// entry is memex.ErrNotFound.
func (s *Store) Delete(ctx context.Context, id memex.ID) error {
	if s.opts.ReadOnly {
		return fmt.Errorf("archive: delete: store opened read-only: %w", memex.ErrInvalid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.getRecord(id)
	if err != nil {
		return fmt.Errorf("archive: delete %s: %w", id, err)
	}
	b := s.db.NewBatch()
	defer b.Close()
	_ = b.Delete(idKey(prefixMeta, id), nil)
	_ = b.Delete(idKey(prefixPending, id), nil)
	// The keys of either form: a store of schema version 2 wrote them
	// without their scope.
	if r.Session != "" {
		_ = b.Delete(sessionKey(r.SessionRef(), id), nil)
		_ = b.Delete(nameIDKey(prefixSession, r.Session, id), nil)
	}
	for _, a := range r.Aliases {
		_ = b.Delete(aliasKey(a, r.Project, id), nil)
		_ = b.Delete(nameIDKey(prefixAlias, a, id), nil)
	}
	drop := s.dropBodyRef
	if r.hasInline {
		drop = s.dropInline
	}
	if err := drop(ctx, b, r); err != nil {
		return fmt.Errorf("archive: delete %s: %w", id, err)
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("archive: delete %s: %w", id, err)
	}
	if sum, err := hex.DecodeString(trimHash(r.Hash)); err == nil && len(sum) == sha256.Size {
		s.bodies.drop(sum)
	}
	s.notePurge(r)
	return nil
}

// notePurge records the key ranges that deleting entry r touched, for
// Purge to compact: its record and marker, its session and alias keys,
// its body's reference, chunks, table and hash key.
func (s *Store) notePurge(r record) {
	for _, k := range [][]byte{idKey(prefixMeta, r.ID), idKey(prefixPending, r.ID), refKey(r.Body, r.ID), idKey(prefixTable, r.Body)} {
		s.purge.addKey(k)
	}
	lo := idKey(prefixChunk, r.Body)
	s.purge.add(lo, prefixEnd(lo))
	if r.Session != "" {
		s.purge.addKey(sessionKey(r.SessionRef(), r.ID))
		s.purge.addKey(nameIDKey(prefixSession, r.Session, r.ID))
	}
	for _, a := range r.Aliases {
		s.purge.addKey(aliasKey(a, r.Project, r.ID))
		s.purge.addKey(nameIDKey(prefixAlias, a, r.ID))
	}
	if sum, err := hex.DecodeString(trimHash(r.Hash)); err == nil {
		s.purge.addKey(hashKey(sum))
	}
}

// dropBodyRef adds to b the deletion of entry r's reference to its chunked
// body, and of the body itself when no other entry references it.
func (s *Store) dropBodyRef(ctx context.Context, b *pebble.Batch, r record) error {
	_ = b.Delete(refKey(r.Body, r.ID), nil)
	others, err := s.referenced(ctx, r.Body, r.ID)
	if err != nil || others {
		return err
	}
	if r.Body != r.ID {
		// A body inline in its first entry's record lives as long as
		// that entry does.
		if owner, err := s.getRecord(r.Body); err == nil && owner.hasInline {
			return nil
		}
	}
	lo := idKey(prefixChunk, r.Body)
	_ = b.DeleteRange(lo, prefixEnd(lo), nil)
	_ = b.Delete(idKey(prefixTable, r.Body), nil)
	s.dropHashKey(b, r.Hash, r.Body)
	return nil
}

// dropInline adds to b what deleting entry r, whose body is inline in its
// record, does to that body: while other entries reference it, the body
// moves to a chunk of its own under r's ID (where their references and the
// hash key already point); otherwise its hash key goes.
func (s *Store) dropInline(ctx context.Context, b *pebble.Batch, r record) error {
	others, err := s.referenced(ctx, r.ID, r.ID)
	if err != nil {
		return err
	}
	if others {
		nl := uint32(bytes.Count(r.inline, []byte{'\n'}))
		_ = b.Set(chunkKey(r.ID, 0), encodeChunk(nil, r.inline), nil)
		_ = b.Set(idKey(prefixTable, r.ID), encodeTable([]uint32{uint32(len(r.inline))}, []uint32{nl}), nil)
		return nil
	}
	s.dropHashKey(b, r.Hash, r.ID)
	return nil
}

// referenced says whether an entry other than id references body.
func (s *Store) referenced(ctx context.Context, body, id memex.ID) (bool, error) {
	others := false
	err := s.scanPrefix(ctx, idKey(prefixRef, body), func(k, _ []byte) error {
		if trailingID(k) != id {
			others = true
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return false, err
	}
	return others, nil
}

// dropHashKey adds to b the deletion of the content-hash key of hash when
// it names body.
func (s *Store) dropHashKey(b *pebble.Batch, hash string, body memex.ID) {
	sum, err := hex.DecodeString(trimHash(hash))
	if err != nil {
		return
	}
	if v, err := s.get(hashKey(sum)); err == nil && bytes.Equal(v, body[:]) {
		_ = b.Delete(hashKey(sum), nil)
	}
}

var errStop = errors.New("stop")

func trimHash(h string) string {
	const p = "sha256:"
	if len(h) > len(p) && h[:len(p)] == p {
		return h[len(p):]
	}
	return h
}

// GetState returns the value stored under name by SetState, or
// memex.ErrNotFound. Other packages keep small bookkeeping here (ingest
// progress per file) so that it shares the archive's durability.
func (s *Store) GetState(ctx context.Context, name string) ([]byte, error) {
	v, err := s.get(append([]byte{prefixState}, name...))
	if err != nil {
		return nil, fmt.Errorf("archive: state %q: %w", name, err)
	}
	return v, nil
}

// SetState stores value under name, durably.
func (s *Store) SetState(ctx context.Context, name string, value []byte) error {
	if err := s.db.Set(append([]byte{prefixState}, name...), value, s.wo); err != nil {
		return fmt.Errorf("archive: state %q: %w", name, err)
	}
	return nil
}

// SetStateSoon is SetState without waiting for the disk: the value is
// durable as soon as any write after it is (the log is replayed in
// order), so a marker set before the writes it stands for survives a
// crash whenever they do, without a sync of its own.
func (s *Store) SetStateSoon(ctx context.Context, name string, value []byte) error {
	if err := s.db.Set(append([]byte{prefixState}, name...), value, pebble.NoSync); err != nil {
		return fmt.Errorf("archive: state %q: %w", name, err)
	}
	return nil
}

// StateNames returns the names of the values stored under names that
// begin with prefix, in order.
func (s *Store) StateNames(ctx context.Context, prefix string) ([]string, error) {
	lo := append([]byte{prefixState}, prefix...)
	var names []string
	err := s.scanRange(ctx, lo, prefixEnd(lo), func(k, _ []byte) error {
		names = append(names, string(k[1:]))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("archive: states %q: %w", prefix, err)
	}
	return names, nil
}

// DeleteStates removes the values stored under names, in one write.
func (s *Store) DeleteStates(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	b := s.db.NewBatch()
	defer b.Close()
	for _, n := range names {
		_ = b.Delete(append([]byte{prefixState}, n...), nil)
	}
	if err := b.Commit(s.wo); err != nil {
		return fmt.Errorf("archive: delete states: %w", err)
	}
	return nil
}

// DeleteState removes the value stored under name; a name never set is not
// an error.
func (s *Store) DeleteState(ctx context.Context, name string) error {
	if err := s.db.Delete(append([]byte{prefixState}, name...), s.wo); err != nil {
		return fmt.Errorf("archive: state %q: %w", name, err)
	}
	return nil
}

// MarkAllPending marks every entry as not yet indexed (the first step of a
// rebuild of the index) and returns how many there are. It writes in
// batches; once it returns the markers are durable.
func (s *Store) MarkAllPending(ctx context.Context) (int, error) {
	const batch = 16 << 10
	b := s.db.NewBatch()
	defer func() { b.Close() }()
	n := 0
	err := s.scanPrefix(ctx, []byte{prefixMeta}, func(k, _ []byte) error {
		_ = b.Set(idKey(prefixPending, trailingID(k)), nil, nil)
		if n++; n%batch == 0 {
			if err := b.Commit(pebble.NoSync); err != nil {
				return err
			}
			b.Close()
			b = s.db.NewBatch()
		}
		return nil
	})
	if err == nil {
		err = b.Commit(s.wo)
	}
	if err != nil {
		return n, fmt.Errorf("archive: mark pending: %w", err)
	}
	return n, nil
}

// AnyIndexed reports whether some entry is marked indexed (has no pending
// marker). An index that holds nothing while this is true has lost what
// it held.
func (s *Store) AnyIndexed(ctx context.Context) (bool, error) {
	found := false
	err := s.scanPrefix(ctx, []byte{prefixMeta}, func(k, _ []byte) error {
		_, err := s.get(idKey(prefixPending, trailingID(k)))
		switch {
		case errors.Is(err, memex.ErrNotFound):
			found = true
			return errStop
		case err != nil:
			return err
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return false, fmt.Errorf("archive: indexed: %w", err)
	}
	return found, nil
}

// Pending calls fn with the ID of every entry not yet marked indexed, in ID
// order.
func (s *Store) Pending(ctx context.Context, fn func(memex.ID) error) error {
	return s.scanPrefix(ctx, []byte{prefixPending}, func(k, _ []byte) error {
		if len(k) != 17 {
			return nil
		}
		return fn(trailingID(k))
	})
}

// MarkPending marks entries as not yet indexed (a full reindex marks all).
func (s *Store) MarkPending(ctx context.Context, ids ...memex.ID) error {
	b := s.db.NewBatch()
	defer b.Close()
	for _, id := range ids {
		_ = b.Set(idKey(prefixPending, id), nil, nil)
	}
	return b.Commit(s.wo)
}

// ClearPending marks entries as indexed.
func (s *Store) ClearPending(ctx context.Context, ids ...memex.ID) error {
	b := s.db.NewBatch()
	defer b.Close()
	for _, id := range ids {
		_ = b.Delete(idKey(prefixPending, id), nil)
	}
	if err := b.Commit(s.wo); err != nil {
		return fmt.Errorf("archive: clear pending: %w", err)
	}
	return nil
}

// Problem is one defect found by Verify. A damaged store file that stops
// the scan of the entries is a Problem without ID.
type Problem struct {
	ID      memex.ID `json:"id,omitzero"`
	Message string   `json:"message"`
}

// Verify reads every entry's body, checks that it decodes, has the size,
// line count and hash its metadata records, and calls fn for each problem.
// It returns the number of entries checked.
func (s *Store) Verify(ctx context.Context, fn func(Problem)) (int, error) {
	n := 0
	err := s.scanPrefix(ctx, []byte{prefixMeta}, func(k, v []byte) error {
		n++
		id := trailingID(k)
		r, err := decodeRecord(id, v)
		if err != nil {
			fn(Problem{ID: id, Message: err.Error()})
			return nil
		}
		rc, err := s.Body(ctx, id)
		if err != nil {
			fn(Problem{ID: id, Message: err.Error()})
			return nil
		}
		defer rc.Close()
		h := sha256.New()
		lc := &lineCounter{}
		size, err := io.Copy(io.MultiWriter(h, lc), rc)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			fn(Problem{ID: id, Message: err.Error()})
			return nil
		}
		var msgs []string
		if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != r.Hash {
			msgs = append(msgs, fmt.Sprintf("content hash %s, metadata says %s", got, r.Hash))
		}
		if size != r.Bytes {
			msgs = append(msgs, fmt.Sprintf("%d bytes, metadata says %d", size, r.Bytes))
		}
		if l := lc.lines(); l != r.Lines {
			msgs = append(msgs, fmt.Sprintf("%d lines, metadata says %d", l, r.Lines))
		}
		if len(msgs) > 0 {
			fn(Problem{ID: id, Message: strings.Join(msgs, "; ")})
		}
		return nil
	})
	if errors.Is(err, memex.ErrCorrupt) && ctx.Err() == nil {
		// Pebble cannot read past a damaged block: say how far the
		// check got; the entries after it are unchecked.
		fn(Problem{Message: fmt.Sprintf("the check stopped after %d of the entries: %v; the ones after are unreadable", n, err)})
		return n, nil
	}
	if err != nil {
		return n, fmt.Errorf("archive: verify: %w", err)
	}
	return n, nil
}

type lineCounter struct {
	nl   int64
	n    int64
	last byte
}

func (c *lineCounter) Write(p []byte) (int, error) {
	if len(p) > 0 {
		c.nl += int64(bytes.Count(p, []byte{'\n'}))
		c.n += int64(len(p))
		c.last = p[len(p)-1]
	}
	return len(p), nil
}

func (c *lineCounter) lines() int64 {
	if c.n == 0 || c.last == '\n' {
		return c.nl
	}
	return c.nl + 1
}

// Stats describes the whole store.
//
// A body of up to InlineSize bytes belongs to its entry alone, so each such
// entry counts one body. StoredBytes counts chunks as stored, and inline
// bodies as zstd compresses them in runs of BlockSize: that is what
// Pebble's blocks do to them, give or take the metadata between them
// (estimated from a sample of the runs in a large store).
type Stats struct {
	Entries     int64 `json:"entries"`
	Sessions    int64 `json:"sessions"`
	Bodies      int64 `json:"bodies"`       // distinct bodies stored
	RawBytes    int64 `json:"raw_bytes"`    // sum of every entry's size
	UniqueBytes int64 `json:"unique_bytes"` // raw size of distinct bodies
	StoredBytes int64 `json:"stored_bytes"` // compressed size of distinct bodies
	DiskBytes   int64 `json:"disk_bytes"`   // the database's files on disk
	Tokens      int64 `json:"tokens"`
	Pending     int64 `json:"pending_index"` // entries not yet indexed
}

// inlineEstimate estimates what Pebble's blocks make of inline bodies: it
// compresses them in runs of BlockSize, each run while there are few, then
// one in inlineSample (so that stats of a large store costs a scan, not a
// second compression of it), and scales the others by the sampled ratio.
type inlineEstimate struct {
	run, scratch  []byte
	runs          int
	sampledRaw    int64
	sampledStored int64
	otherRaw      int64
}

const inlineSample = 8

func (e *inlineEstimate) add(body []byte) {
	if e.run = append(e.run, body...); len(e.run) >= BlockSize {
		e.flush()
	}
}

func (e *inlineEstimate) flush() {
	if len(e.run) == 0 {
		return
	}
	if e.runs < 8*inlineSample || e.runs%inlineSample == 0 {
		e.scratch = compress(e.run, e.scratch[:0])
		e.sampledRaw += int64(len(e.run))
		// Pebble too keeps a block raw when zstd does not shrink it.
		e.sampledStored += int64(min(len(e.scratch), len(e.run)))
	} else {
		e.otherRaw += int64(len(e.run))
	}
	e.runs++
	e.run = e.run[:0]
}

func (e *inlineEstimate) bytes() int64 {
	e.flush()
	if e.sampledRaw == 0 {
		return 0
	}
	return e.sampledStored + int64(float64(e.otherRaw)*float64(e.sampledStored)/float64(e.sampledRaw))
}

// Ratio is raw bytes per stored byte.
func (st Stats) Ratio() float64 {
	if st.StoredBytes == 0 {
		return 0
	}
	return float64(st.RawBytes) / float64(st.StoredBytes)
}

// DedupSaved is the raw bytes not stored again thanks to dedup.
func (st Stats) DedupSaved() int64 { return st.RawBytes - st.UniqueBytes }

// Stats scans the store's keys (not the bodies) and sums them up.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	sessions := map[memex.SessionRef]struct{}{}
	var inline inlineEstimate
	err := s.scanPrefix(ctx, []byte{prefixMeta}, func(k, v []byte) error {
		r, err := decodeRecord(trailingID(k), v)
		if err != nil {
			return fmt.Errorf("entry %s: %w", trailingID(k), err)
		}
		st.Entries++
		st.RawBytes += r.Bytes
		st.Tokens += r.Tokens
		if r.Session != "" {
			sessions[r.SessionRef()] = struct{}{}
		}
		if r.hasInline {
			st.Bodies++
			st.UniqueBytes += int64(len(r.inline))
			inline.add(r.inline)
		}
		return nil
	})
	st.StoredBytes += inline.bytes()
	if err == nil {
		err = s.scanPrefix(ctx, []byte{prefixTable}, func(k, v []byte) error {
			t, err := decodeTable(v)
			if err != nil {
				return err
			}
			st.Bodies++
			for _, sz := range t.sizes {
				st.UniqueBytes += int64(sz)
			}
			return nil
		})
	}
	if err == nil {
		err = s.scanPrefix(ctx, []byte{prefixChunk}, func(_, v []byte) error {
			st.StoredBytes += int64(len(v))
			return nil
		})
	}
	if err == nil {
		err = s.scanPrefix(ctx, []byte{prefixPending}, func(_, _ []byte) error {
			st.Pending++
			return nil
		})
	}
	if err != nil {
		return st, fmt.Errorf("archive: stats: %w", err)
	}
	st.Sessions = int64(len(sessions))
	m := s.db.Metrics()
	st.DiskBytes = int64(m.DiskSpaceUsage())
	return st, nil
}
