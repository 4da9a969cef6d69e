package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// FlushSize bounds the compressed bytes an Add holds before it writes them
// out. Together with one raw chunk, the summary's head and tail and the
// batch that carries them, an Add of any size uses about 2*FlushSize +
// ChunkSize + 100 KiB of memory (about 17 MiB), plus the zstd encoder's
// own state.
const FlushSize = 8 << 20

// InlineSize is the largest body stored raw inside its entry's metadata
// instead of in chunks of its own (see the package doc). Such a body costs
// two keys (its record and its content hash) instead of five, and Pebble
// compresses it together with its neighbours. On the corpus's tool outputs
// (median about 300 bytes) raising the limit from 1 to 4 to 16 KiB took the
// store from 1.08x to 0.96x to 0.89x of zstd -3 (before inline bodies were
// deduplicated); 4 KiB keeps 94% of those entries inline.
const InlineSize = 4 << 10

// storedBody returns the entry whose stored body has the sha256 sum and
// size bytes, when there is one: a body in chunks (its table) or one inline
// in its entry's record. An empty body is stored nowhere, so never found.
func (s *Store) storedBody(sum []byte, size int64) (memex.ID, bool, error) {
	var other memex.ID
	if size == 0 {
		return other, false, nil
	}
	if id, ok := s.bodies.get(sum); ok {
		return id, true, nil
	}
	v, err := s.get(hashKey(sum))
	if errors.Is(err, memex.ErrNotFound) || err == nil && len(v) != len(other) {
		return other, false, nil
	}
	if err != nil {
		return other, false, err
	}
	copy(other[:], v)
	if size <= InlineSize {
		// Most likely inline in the other entry's record: its codec tag
		// and hash say so without decoding it.
		m, err := s.get(idKey(prefixMeta, other))
		if err != nil && !errors.Is(err, memex.ErrNotFound) {
			return other, false, err
		}
		if len(m) > 1+sha256.Size && m[0] == codecInline && bytes.Equal(m[1:1+sha256.Size], sum) {
			return other, true, nil
		}
	}
	// In chunks (a body moved out of a deleted entry's record too).
	if _, err := s.get(idKey(prefixTable, other)); err == nil {
		return other, true, nil
	} else if !errors.Is(err, memex.ErrNotFound) {
		return other, false, err
	}
	return other, false, nil
}

// record is the metadata of an entry: the entry plus where its body is.
type record struct {
	memex.Entry
	// Body is the body's ID when the body is in chunks (the ID of the entry
	// that first stored it).
	Body memex.ID
	// hasInline says the record holds the body itself: inline, raw.
	hasInline bool
	inline    []byte
}

// storedRecord is the JSON of a record. The entry's ID is the key's, so it
// is not repeated; nor is the body's when it is the entry's own (the common
// case). The hash is stored in binary beside the JSON.
type storedRecord struct {
	memex.Entry
	// ID shadows Entry.ID: never written, and ignored when read (the
	// first version 1 records carried it; the key holds it).
	ID   json.RawMessage `json:"id,omitempty"`
	Body *memex.ID       `json:"body,omitempty"`
	// Hash shadows Entry.Hash: only version 1 records carry it here, in hex.
	Hash string `json:"hash,omitempty"`
}

// encodeRecord returns the stored form of r, whose body has the sha256 sum.
func encodeRecord(r record, sum []byte) ([]byte, error) {
	if len(sum) != sha256.Size {
		return nil, fmt.Errorf("content hash of %d bytes", len(sum))
	}
	sr := storedRecord{Entry: r.Entry}
	if r.Body != r.ID && !r.hasInline {
		sr.Body = &r.Body
	}
	// Summaries quote the body; escaping its '<' and '>' would keep them
	// from compressing against it: encoding/json's form, HTML escaping
	// off.
	if !r.hasInline {
		// The JSON is written after the codec byte and the sum.
		v := append(append(make([]byte, 0, 1+len(sum)+512), codecMeta), sum...)
		return appendRecordJSON(v, &sr)
	}
	j, err := appendRecordJSON(make([]byte, 0, 512), &sr)
	if err != nil {
		return nil, err
	}
	v := make([]byte, 0, 1+len(sum)+binary.MaxVarintLen64+len(j)+len(r.inline))
	v = append(append(v, codecInline), sum...)
	v = binary.AppendUvarint(v, uint64(len(j)))
	v = append(append(v, j...), r.inline...)
	return v, nil
}

// Add archives the content read from body under e's metadata and returns
// the stored metadata. It fills e.ID (when zero) from e.Created (or now),
// Kind (default note), Bytes, Lines, Tokens, Hash and Summary (when empty).
// When Add returns without error the entry is durable (unless the store was
// opened with NoSync). Identical bodies are stored once.
//
// A body with a Redacted() int method (internal/redact's Reader) reports,
// once read to its end, how many credentials it replaced; Add adds that to
// e.Redacted before storing, so the count is part of the entry.
//
// Cancelling ctx stops the read and discards what was written of the body.
func (s *Store) Add(ctx context.Context, e memex.Entry, body io.Reader) (memex.Entry, error) {
	if s.opts.ReadOnly {
		return memex.Entry{}, fmt.Errorf("archive: add: store opened read-only: %w", memex.ErrInvalid)
	}
	if e.Created.IsZero() {
		e.Created = time.Now()
	}
	e.Created = e.Created.UTC()
	if e.ID.IsZero() {
		e.ID = memex.NewID(e.Created)
	}
	if e.Kind == "" {
		e.Kind = memex.KindNote
	}
	aliases, err := cleanAliases(e.Aliases)
	if err != nil {
		return memex.Entry{}, fmt.Errorf("archive: add: %w", err)
	}
	e.Aliases = aliases
	if body == nil {
		body = bytes.NewReader(nil)
	}
	p, prepared := body.(*Prepared)
	if prepared && !p.fits(e) {
		prepared, body = false, &p.r
	}
	if err := s.checkSpace(sizeHint(body)); err != nil {
		return memex.Entry{}, fmt.Errorf("archive: add: %w", err)
	}

	var w *bodyWriter
	if prepared {
		w = p.take(s, e.ID)
	} else {
		w = s.newBodyWriter(e.ID)
	}
	defer w.close()
	if !prepared {
		err = w.readFrom(ctx, body)
	}
	sum, tokens, estimated := w.side.finish()
	if err != nil {
		w.abort()
		return memex.Entry{}, fmt.Errorf("archive: add: read body: %w", err)
	}
	if rc, ok := body.(interface{ Redacted() int }); ok {
		e.Redacted += rc.Redacted()
	}
	e.Hash = "sha256:" + hex.EncodeToString(sum)
	e.Bytes = w.bytes
	e.Lines = w.lines()
	e.Tokens, e.TokensEstimated = tokens, estimated
	if e.Summary == "" {
		if prepared {
			e.Summary = p.summary
		} else {
			e.Summary = w.summary(e)
		}
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	b := w.batch
	r := record{Entry: e, Body: e.ID}
	other, found, err := s.storedBody(sum, w.bytes)
	if err != nil {
		w.abort()
		return memex.Entry{}, fmt.Errorf("archive: add: dedup look-up: %w", err)
	}
	switch {
	case found:
		// Stored already: reference it.
		r.Body = other
		w.dropOwn()
		_ = b.Set(refKey(r.Body, e.ID), nil, nil)
	case w.inline:
		r.hasInline, r.inline = true, w.inlineBody()
		if w.bytes > 0 {
			_ = b.Set(hashKey(sum), e.ID[:], nil)
		}
	default:
		w.putPending()
		_ = b.Set(idKey(prefixTable, e.ID), w.table(), nil)
		_ = b.Set(hashKey(sum), e.ID[:], nil)
		_ = b.Set(refKey(r.Body, e.ID), nil, nil)
	}
	meta, err := encodeRecord(r, sum)
	if err != nil {
		w.abort()
		return memex.Entry{}, fmt.Errorf("archive: add: encode metadata: %w", err)
	}
	_ = b.Set(idKey(prefixMeta, e.ID), meta, nil)
	_ = b.Set(idKey(prefixPending, e.ID), nil, nil)
	if e.Session != "" {
		_ = b.Set(sessionKey(e.SessionRef(), e.ID), nil, nil)
	}
	for _, a := range e.Aliases {
		_ = b.Set(aliasKey(a, e.Project, e.ID), nil, nil)
	}
	if w.flushed {
		_ = b.Delete(idKey(prefixProgress, e.ID), nil)
	}
	if err := b.Commit(s.wo); err != nil {
		w.abort()
		return memex.Entry{}, fmt.Errorf("archive: add: commit: %w", diskFullErr(s.dir, err))
	}
	w.committed = true
	if w.bytes > 0 {
		s.bodies.put(sum, r.Body)
	}
	s.aliases.added(e.Project, e.Aliases)
	return e, nil
}

// knownBodiesMax bounds knownBodies: about 100 bytes each.
const knownBodiesMax = 1 << 16

// knownBodies remembers, for the bodies this process stored or found
// stored, which entry's body they are (the ID their hash key names or
// the one found), so that the dedup look-up of a body seen before reads
// neither its hash key nor the other entry's record. An import stores
// the same output many times over (in the 50 MB scale input, 7,100 of
// 17,000 bodies), and each look-up that found one read two keys. What a
// body's hash maps to changes only when an entry with that body is
// deleted (the body moved out of a deleted record keeps its ID; a body no
// longer referenced goes), so Delete forgets the hash. Add puts a body
// only once its batch is committed, and both run under the store's lock
// (Add shared, Delete exclusive), so no look-up sees a body that a Delete
// is removing. At most knownBodiesMax are kept; past that a look-up reads
// the store as before.
type knownBodies struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]memex.ID
}

func (k *knownBodies) get(sum []byte) (memex.ID, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	id, ok := k.m[[sha256.Size]byte(sum)]
	return id, ok
}

func (k *knownBodies) put(sum []byte, id memex.ID) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.m == nil {
		k.m = map[[sha256.Size]byte]memex.ID{}
	}
	key := [sha256.Size]byte(sum)
	if _, ok := k.m[key]; ok || len(k.m) < knownBodiesMax {
		k.m[key] = id
	}
}

func (k *knownBodies) drop(sum []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.m, [sha256.Size]byte(sum))
}

// summary is the summary of e (Bytes and Lines set) with the body w read.
func (w *bodyWriter) summary(e memex.Entry) string {
	in := summarize.Input{Kind: e.Kind, Tool: e.Tool, Input: e.Input, Exit: e.Exit,
		Head: w.head, Bytes: e.Bytes, Lines: e.Lines, Tally: &w.side.tally}
	if int64(len(w.head)) < e.Bytes {
		in.Tail = w.tail
	}
	return summarize.Entry(in)
}

// inlineBody is the body of an inline entry, whole in memory.
func (w *bodyWriter) inlineBody() []byte {
	if w.kept != nil {
		return w.kept
	}
	return w.buf[:w.bytes]
}

// sizeHint guesses how many bytes body will yield, when it can tell.
func sizeHint(body io.Reader) int64 {
	switch r := body.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case *os.File:
		if fi, err := r.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := r.Seek(0, io.SeekCurrent); err == nil {
				return fi.Size() - off
			}
		}
	}
	return 0
}

func cleanAliases(in []string) ([]string, error) {
	if len(in) == 0 {
		return nil, nil
	}
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, a := range in {
		if err := memex.CheckAlias(a); err != nil {
			return nil, err
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}

// bodyWriter cuts a body into chunks, compresses them, and keeps the
// hash, token count, line count, and the head, tail and counts a summary
// needs.
type bodyWriter struct {
	s     *Store
	id    memex.ID
	batch *pebble.Batch
	buf   []byte // one raw chunk
	enc   []byte // scratch for one compressed chunk
	side  *sideCounter

	bytes    int64
	newlines int64
	lastByte byte
	head     []byte
	tail     []byte

	inline bool // the body is small and whole in buf[:bytes] (or kept)
	// kept is an inline body once buf went back to its pool: the body
	// given to Prepare.
	kept []byte

	sizes []uint32 // raw length of each chunk
	nls   []uint32 // newlines in each chunk

	pending      [][]byte // compressed chunks not yet in the batch
	pendingBytes int
	next         uint32 // index of the next chunk to place in the batch
	flushed      bool   // some chunks were committed in earlier batches
	committed    bool
}

func (s *Store) newBodyWriter(id memex.ID) *bodyWriter {
	return &bodyWriter{
		s:     s,
		id:    id,
		batch: s.db.NewBatch(),
		buf:   getChunk(),
		side:  newSideCounter(),
	}
}

func (w *bodyWriter) readFrom(ctx context.Context, r io.Reader) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := io.ReadFull(r, w.buf)
		last := err == io.EOF || err == io.ErrUnexpectedEOF
		if last && len(w.sizes) == 0 && n <= InlineSize {
			// The whole body is in buf and small: it goes into the
			// metadata record as it is.
			w.count(w.buf[:n])
			w.inline = true
			return nil
		}
		if n > 0 {
			if err := w.chunk(w.buf[:n]); err != nil {
				return err
			}
		}
		if last {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// count feeds raw to the hash and token counter, keeps what the summary
// and the line count need, and returns the newlines in raw.
func (w *bodyWriter) count(raw []byte) int {
	if len(raw) == 0 {
		return 0
	}
	w.side.add(raw)
	nl := bytes.Count(raw, []byte{'\n'})
	w.newlines += int64(nl)
	w.bytes += int64(len(raw))
	w.lastByte = raw[len(raw)-1]
	if room := summarize.HeadLimit - len(w.head); room > 0 {
		w.head = append(w.head, raw[:min(room, len(raw))]...)
	}
	if len(raw) >= summarize.TailLimit {
		w.tail = append(w.tail[:0], raw[len(raw)-summarize.TailLimit:]...)
	} else {
		w.tail = append(w.tail, raw...)
		if over := len(w.tail) - summarize.TailLimit; over > 0 {
			w.tail = append(w.tail[:0], w.tail[over:]...)
		}
	}
	return nl
}

// chunk counts raw and compresses it as the body's next chunk.
func (w *bodyWriter) chunk(raw []byte) error {
	nl := w.count(raw)
	w.sizes = append(w.sizes, uint32(len(raw)))
	w.nls = append(w.nls, uint32(nl))
	w.enc = encodeChunk(w.enc, raw)
	stored := append([]byte(nil), w.enc...)
	w.pending = append(w.pending, stored)
	w.pendingBytes += len(stored)
	if w.pendingBytes >= FlushSize {
		return w.flush()
	}
	return nil
}

// flush writes the pending chunks in an unsynced batch marked in progress.
func (w *bodyWriter) flush() error {
	if err := w.s.checkSpace(int64(w.pendingBytes)); err != nil {
		return err
	}
	if !w.flushed {
		_ = w.batch.Set(idKey(prefixProgress, w.id), nil, nil)
	}
	w.putPending()
	if err := w.batch.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("write chunks: %w", diskFullErr(w.s.dir, err))
	}
	w.flushed = true
	w.batch.Close()
	w.batch = w.s.db.NewBatch()
	return nil
}

func (w *bodyWriter) putPending() {
	for _, c := range w.pending {
		_ = w.batch.Set(chunkKey(w.id, w.next), c, nil)
		w.next++
	}
	w.pending, w.pendingBytes = w.pending[:0], 0
}

// dropOwn forgets this body's chunks because an identical body exists.
func (w *bodyWriter) dropOwn() {
	w.pending, w.pendingBytes = nil, 0
	if w.flushed {
		lo := idKey(prefixChunk, w.id)
		_ = w.batch.DeleteRange(lo, prefixEnd(lo), nil)
	}
}

// abort removes chunks written by earlier flushes (best effort: Open
// removes them too, through the progress marker).
func (w *bodyWriter) abort() {
	if !w.flushed || w.committed {
		return
	}
	b := w.s.db.NewBatch()
	defer b.Close()
	lo := idKey(prefixChunk, w.id)
	_ = b.DeleteRange(lo, prefixEnd(lo), nil)
	_ = b.Delete(idKey(prefixProgress, w.id), nil)
	_ = b.Commit(pebble.NoSync)
}

func (w *bodyWriter) close() {
	w.side.finish()
	if w.batch != nil {
		w.batch.Close()
	}
	if w.buf != nil {
		putChunk(w.buf)
		w.buf = nil
	}
}

func (w *bodyWriter) lines() int64 {
	if w.bytes == 0 {
		return 0
	}
	if w.lastByte == '\n' {
		return w.newlines
	}
	return w.newlines + 1
}

// table encodes the chunk table: codec, count, then per chunk raw length
// and newline count.
func (w *bodyWriter) table() []byte { return encodeTable(w.sizes, w.nls) }

// encodeTable returns the stored chunk table of chunks of the given raw
// sizes and newline counts.
func encodeTable(sizes, nls []uint32) []byte {
	t := make([]byte, 0, 1+binary.MaxVarintLen64*(1+2*len(sizes)))
	t = append(t, codecRaw)
	t = binary.AppendUvarint(t, uint64(len(sizes)))
	for i := range sizes {
		t = binary.AppendUvarint(t, uint64(sizes[i]))
		t = binary.AppendUvarint(t, uint64(nls[i]))
	}
	return t
}

type chunkTable struct {
	sizes []uint32
	nls   []uint32
}

func decodeTable(v []byte) (chunkTable, error) {
	var t chunkTable
	if len(v) == 0 || v[0] != codecRaw {
		return t, fmt.Errorf("chunk table codec: %w", memex.ErrCorrupt)
	}
	v = v[1:]
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return t, fmt.Errorf("chunk table count: %w", memex.ErrCorrupt)
	}
	v = v[k:]
	t.sizes = make([]uint32, n)
	t.nls = make([]uint32, n)
	for i := range t.sizes {
		sz, k1 := binary.Uvarint(v)
		if k1 <= 0 {
			return t, fmt.Errorf("chunk table entry %d: %w", i, memex.ErrCorrupt)
		}
		v = v[k1:]
		nl, k2 := binary.Uvarint(v)
		if k2 <= 0 || sz > ChunkSize || nl > sz {
			return t, fmt.Errorf("chunk table entry %d: %w", i, memex.ErrCorrupt)
		}
		v = v[k2:]
		t.sizes[i], t.nls[i] = uint32(sz), uint32(nl)
	}
	return t, nil
}
