package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/summarize"
)

// Options configure a Store. The zero value is ready to use.
type Options struct {
	// InMemory keeps the store in memory (tests); dir is ignored.
	InMemory bool
	// ReadOnly opens an existing store without writing to it: no file of
	// the store is created, changed or removed (its file system refuses
	// writes), so it opens on a read-only file system or a full disk too.
	// A store that does not exist is an error (memex.ErrNotFound).
	ReadOnly bool
	// Shared, with ReadOnly, leaves out Pebble's own directory lock, which
	// is exclusive (fcntl) even for a read-only open and needs a writable
	// LOCK file: several processes may then read the store at once, on a
	// read-only filesystem too. The caller must hold a lock of its own
	// that keeps writers out while it reads (internal/home holds
	// $MEMEX_HOME/lock shared). Ignored without ReadOnly.
	Shared bool
	// NoSync skips the fsync of each add (benchmarks and bulk imports that
	// call Sync at the end). Default false: every Add is durable on return.
	NoSync bool
	// MinFree is the free disk space, in bytes, that writes leave
	// untouched (the ballast, when there is one, counts as part of it): an Add that would leave less fails with memex.ErrDiskFull
	// before writing anything. Pebble cannot finish its own work (flushes,
	// compactions) on a full disk, so the store stops well before that.
	// Default 64 MiB; negative disables the check.
	MinFree int64
	// RepairWAL opens a store whose write-ahead log is damaged for
	// writing: the log is cut at the damage (what it recorded after is
	// lost), and the loss is recorded (Losses). Without it such an Open
	// fails with a *WALDamage and changes nothing.
	RepairWAL bool
	// Ballast names a file that a writable store keeps on its disk,
	// BallastSize bytes allocated, and deletes when Pebble meets a full
	// disk, so that the write Pebble was doing can finish and the store
	// refuses further writes (memex.ErrDiskFull) and closes cleanly
	// instead of stopping dead; it is made again once the disk has room.
	// Default: none (a full disk is then met only by MinFree).
	Ballast string
	// Logger receives Pebble's and the store's own log lines. Default: a
	// logger that drops them (a CLI prints only what it means to).
	Logger *slog.Logger
}

// BlockSize is the uncompressed size of the Pebble blocks the store is
// written in, each compressed with zstd on its own. Small bodies are stored
// raw in their metadata (see InlineSize), so one block compresses several
// entries together: on the corpus's tool outputs, 32 KiB blocks took the
// store to 0.96x of what zstd -3 makes of the bodies one file each, against
// 1.17x with Pebble's default 4 KiB (docs/performance.md). A read that
// misses the block cache decompresses one block, tens of microseconds at
// this size.
const BlockSize = 32 << 10

// CacheSize is the size of the store's block cache, which holds blocks
// decompressed. It fills only as blocks are read, so a short command that
// reads a few entries never holds it all; a catch-up or reindex reads
// every block once and fills it, outside the Go heap. An import's
// look-ups of absent keys (new content hashes, new idempotency keys) are
// answered by the tables' bloom filters, and the index is fed from the
// bodies in hand, so an import reads little of what it wrote: 32 MiB.
const CacheSize = 32 << 20

// Store is an open archive. It is safe for concurrent use by many
// goroutines; one process at a time may open a directory (Pebble holds a
// lock file).
type Store struct {
	db   *pebble.DB
	opts Options
	wo   *pebble.WriteOptions
	log  *slog.Logger
	dir  string
	// free reports the bytes available on the store's disk (a field so
	// that tests can simulate a full disk).
	free func() (uint64, error)
	// damage is what a read-only open found of a damaged log.
	damage *WALDamage
	// fs is the file system of a writable store (see Purge).
	fs *shredFS
	// ballast is the file given up to a full disk (Options.Ballast).
	ballast *ballast
	// purge collects the key ranges of deleted entries for Purge.
	purge purgeSet
	// bodies answers the dedup look-up of the bodies this process
	// stored or found (see knownBodies).
	bodies knownBodies
	// aliases rules out, without reading the store, most look-ups of an
	// alias that names nothing (see aliasFilter).
	aliases aliasFilter
	// mu is held shared by Add from the dedup look-up to the commit, and
	// exclusively by Delete, so a body is never dropped while an add that
	// found it by hash is about to reference it.
	mu        sync.RWMutex
	closeOnce sync.Once
	closeErr  error
}

// Open opens (creating if needed) the store in dir. It checks the schema
// version and removes what an interrupted streaming add left behind.
func Open(dir string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MinFree == 0 {
		o.MinFree = 64 << 20
	}
	var (
		stall   sync.Mutex
		stallAt time.Time
	)
	po := &pebble.Options{
		Logger:   pebbleLogger{o.Logger},
		ReadOnly: o.ReadOnly,
		// A small memtable keeps the write-ahead log that the next process
		// must replay at open short: a cold CLI call pays for that replay.
		MemTableSize: 8 << 20,
		// An import reads the store back as it writes it (idempotency
		// keys, content hashes, the records and bodies the index is fed):
		// with Pebble's default 8 MiB of cache most of those reads
		// decompressed a block again (see CacheSize).
		CacheSize: CacheSize,
		// A damaged block is an error of the read that meets it (verify
		// reports it, other commands fail with it), not a crash: Pebble's
		// default calls the logger's Fatalf.
		EventListener: &pebble.EventListener{WriteStallBegin: func(info pebble.WriteStallBeginInfo) {
			stall.Lock()
			stallAt = time.Now()
			stall.Unlock()
			o.Logger.Debug("write stall", "reason", info.Reason)
		}, WriteStallEnd: func() {
			stall.Lock()
			d := time.Since(stallAt)
			stall.Unlock()
			o.Logger.Debug("write stall ended", "ms", d.Milliseconds())
		}, DataCorruption: func(info pebble.DataCorruptionInfo) {
			msg, _, _ := strings.Cut(info.Details.Error(), "\n")
			o.Logger.Debug("damaged store file", "path", info.Path, "err", msg)
		}, BackgroundError: func(err error) {
			// A flush or compaction that met a full disk is retried; the
			// store's writes say disk full in a line of their own.
			if memex.IsDiskFull(err) {
				o.Logger.Debug("background error: "+err.Error(), "component", "pebble")
				return
			}
			o.Logger.Error("background error: "+err.Error(), "component", "pebble")
		}},
	}
	po.FormatMajorVersion = pebble.FormatWALSyncChunks
	// An L0 table of a flush holds keys of every kind, the random ones of
	// content hashes and idempotency keys among them, so its span overlaps
	// nearly all of Lbase, bodies included, and each compaction into Lbase
	// rewrote most of the store: at Pebble's default of 4 sublevels an
	// import of 500 MB of transcripts flushed 98 MB and compacted 520 MB.
	// Compacting after 16 sublevels merges four times as many flushes at
	// once: 119 MB compacted and 18% less CPU for that import (--no-index),
	// 5% at 50 MB (docs/performance.md, The collector's room). Look-ups
	// of absent keys still ask each table's bloom filter first.
	po.L0CompactionThreshold = 16
	po.L0StopWritesThreshold = 48
	po.Levels[0].BlockSize = BlockSize // deeper levels inherit it
	// A look-up of a key that is absent (a new body's content hash, a new
	// idempotency key) asks each table's filter instead of reading and
	// decompressing one of its blocks.
	po.Levels[0].FilterPolicy = bloom.FilterPolicy(10)
	po.ApplyCompressionSettings(func() pebble.DBCompressionSettings {
		return pebble.UniformDBCompressionSettings(block.ZstdCompression)
	})
	var fs vfs.FS = vfs.Default
	if o.InMemory {
		fs = vfs.NewMem()
		dir = ""
	}
	// Writable, obsolete files are deleted, never recycled (see Purge).
	shred := newShredFS(fs)
	po.FS, po.Cleaner = shred, pebble.ArchiveCleaner{}
	var bal *ballast
	if !o.ReadOnly && !o.InMemory {
		// A writer that could not flush the logs it replays would wait on
		// Pebble's retries for good: refuse it at once (reads still work).
		free, ferr := diskFree(existingDir(dir))
		if ferr == nil && o.MinFree >= 0 {
			if err := checkOpenSpace(dir, free); err != nil {
				return nil, err
			}
		}
		if o.Ballast != "" {
			bal = &ballast{path: o.Ballast}
			if ferr == nil {
				bal.ensure(free, openFree)
			}
		}
		po.FS = vfs.OnDiskFull(shred, func() {
			o.Logger.Warn("archive: the disk of " + dir + " is full; writes are refused until there is room")
			if bal != nil {
				bal.release()
			}
		})
	}
	if o.ReadOnly && !o.InMemory {
		if ok, err := Exists(dir); err != nil {
			return nil, fmt.Errorf("archive: open %s: %w", dir, err)
		} else if !ok {
			return nil, fmt.Errorf("archive: open %s: no store there: %w", dir, memex.ErrNotFound)
		}
		po.FS = readOnlyFS{FS: vfs.Default, shared: o.Shared}
	}
	// Check the logs before Pebble replays them (see WALDamage).
	var damage *WALDamage
	if !o.InMemory {
		var err error
		if damage, err = checkLogs(dir); err != nil {
			return nil, fmt.Errorf("archive: open %s: read the write-ahead logs: %w", dir, err)
		}
	}
	if damage != nil && !o.ReadOnly && !o.RepairWAL {
		return nil, damageError(dir, damage)
	}
	db, err := openPebble(dir, po, o, damage)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, opts: o, log: o.Logger, wo: pebble.Sync, dir: dir, fs: shred, ballast: bal}
	s.free = cachedFree(func() (uint64, error) { return diskFree(dir) }, uint64(max(o.MinFree, 0))+1<<30)
	if o.NoSync {
		s.wo = pebble.NoSync
	}
	if err := s.checkSchema(); err != nil {
		db.Close()
		return nil, err
	}
	if !o.ReadOnly {
		if err := s.dropUnfinished(); err != nil {
			db.Close()
			return nil, err
		}
	}
	if damage != nil {
		if err := s.sayDamage(damage); err != nil {
			db.Close()
			return nil, err
		}
	}
	return s, nil
}

// damageError is a writable Open's error for the damaged log d of the
// store in dir: what is damaged, and walAdvice.
func damageError(dir string, d *WALDamage) error {
	return fmt.Errorf("archive: open %s: %w", dir, &memex.Error{Kind: memex.ErrCorrupt,
		What: "the store in " + dir + ": " + d.Sentence(), Hint: walAdvice, Err: d})
}

// walAdvice is what to do about a damaged log.
const walAdvice = "memex verify lists what was lost; memex verify --repair keeps the rest and opens the store for writing again"

// openPebble opens the database. With damage (a read-only or repairing
// Open), the damaged log is cut at the damage first: for a read-only store
// in a view of it, for a repair in the file itself. A damaged log that
// Pebble refuses and checkLogs did not see is an error.
func openPebble(dir string, po *pebble.Options, o Options, damage *WALDamage) (*pebble.DB, error) {
	if damage != nil {
		path := filepath.Join(dir, damage.Log)
		if o.ReadOnly {
			po.FS = cutFS{FS: po.FS, path: path, size: damage.Offset}
		} else if err := os.Truncate(path, damage.Offset); err != nil {
			return nil, fmt.Errorf("archive: open %s: cut the damaged log: %w", dir, err)
		}
	}
	db, err := pebble.Open(dir, po)
	if d, ok := replayDamage(err); ok {
		return nil, damageError(dir, d)
	}
	if err != nil {
		return nil, fmt.Errorf("archive: open %s: %w", dir, err)
	}
	return db, nil
}

// sayDamage logs the line that says a log was damaged; a read-only store
// keeps it for Damage, a repair records it (Losses).
func (s *Store) sayDamage(d *WALDamage) error {
	if s.opts.ReadOnly {
		s.damage = d
		s.log.Warn(d.Error() + "; the store is read as it was before the damage; " + walAdvice)
		return nil
	}
	s.log.Warn(d.Error() + "; repaired: the log is cut at the damage, the rest kept")
	if err := s.recordLoss(context.Background(), *d); err != nil {
		return fmt.Errorf("archive: open %s: record the loss: %w", s.dir, err)
	}
	return nil
}

// existingDir returns dir or its nearest parent that exists (the disk a
// store not yet made will be on).
func existingDir(dir string) string {
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			return dir
		}
		dir = up
	}
}

// Exists reports whether dir holds a store (a Pebble database): what a
// read-only Open needs. A missing dir is no store, not an error.
func Exists(dir string) (bool, error) {
	desc, err := pebble.Peek(dir, vfs.Default)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return desc.Exists, nil
}

// Close releases the store. It is safe to call twice and returns the first
// error.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.closeErr = s.db.Close()
		if s.closeErr != nil {
			s.closeErr = fmt.Errorf("archive: close: %w", s.closeErr)
		}
	})
	return s.closeErr
}

// cachedFree wraps a free-space probe so that a store with plenty of room
// asks the filesystem at most once a second instead of on every add (a
// statfs was 4% of a small add's CPU). Below roomy free bytes it asks every
// time: no second of writes can use up a gibibyte of headroom unseen.
func cachedFree(probe func() (uint64, error), roomy uint64) func() (uint64, error) {
	var mu sync.Mutex
	var last uint64
	var at time.Time
	return func() (uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		if last >= roomy && time.Since(at) < time.Second {
			return last, nil
		}
		free, err := probe()
		if err != nil {
			return free, err
		}
		last, at = free, time.Now()
		return free, nil
	}
}

// checkSpace fails with memex.ErrDiskFull when writing need more bytes
// would leave less than MinFree free, or while a ballast given up to a full
// disk cannot be made again.
func (s *Store) checkSpace(need int64) error {
	if s.opts.InMemory {
		return nil
	}
	if need < 0 {
		need = 0
	}
	if s.ballast != nil && s.ballast.released() {
		// The disk filled under Pebble: no write until the ballast is
		// back, with room beside it.
		free, err := diskFree(s.dir)
		if err != nil || !s.ballast.ensure(free, openFree+need) {
			return fmt.Errorf("the disk of %s filled up (%s free): free some space: %w",
				s.dir, summarize.ByteSize(int64(free)), memex.ErrDiskFull)
		}
	}
	if s.opts.MinFree < 0 {
		return nil
	}
	free, err := s.free()
	if err != nil {
		return nil // an unknown free space never blocks a write
	}
	if s.ballast != nil && !s.ballast.released() {
		free += BallastSize // the ballast is part of the reserve
	}
	if int64(free) < s.opts.MinFree+need {
		return fmt.Errorf("%s free on the disk of %s, %s needed plus %s kept in reserve: free some space: %w",
			summarize.ByteSize(int64(free)), s.dir, summarize.ByteSize(need), summarize.ByteSize(s.opts.MinFree), memex.ErrDiskFull)
	}
	return nil
}

// Sync makes every earlier write durable (for stores opened with NoSync).
func (s *Store) Sync() error {
	return s.db.LogData(nil, pebble.Sync)
}

func (s *Store) checkSchema() error {
	v, closer, err := s.db.Get(schemaKey)
	if errors.Is(err, pebble.ErrNotFound) {
		empty, err := s.isEmpty()
		if err != nil {
			return err
		}
		if !empty {
			return fmt.Errorf("archive: store has data but no schema version: %w", memex.ErrSchema)
		}
		if s.opts.ReadOnly {
			return nil
		}
		if err := s.db.Set(schemaKey, []byte(strconv.Itoa(SchemaVersion)), pebble.Sync); err != nil {
			return fmt.Errorf("archive: write schema version: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("archive: read schema version: %w", err)
	}
	defer closer.Close()
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return fmt.Errorf("archive: schema version %q: %w", v, memex.ErrSchema)
	}
	switch {
	case n == SchemaVersion:
		return nil
	case n > SchemaVersion:
		return fmt.Errorf("archive: store schema v%d is newer than this memex understands (v%d): upgrade memex: %w", n, SchemaVersion, memex.ErrSchema)
	case n == 1 || n == 2:
		// This version reads every key of versions 1 and 2 as it is. Once
		// this process may write its own keys, a memex that knows only an
		// older version must refuse the store rather than misread them.
		if s.opts.ReadOnly {
			return nil
		}
		if err := s.db.Set(schemaKey, []byte(strconv.Itoa(SchemaVersion)), pebble.Sync); err != nil {
			return fmt.Errorf("archive: upgrade schema version: %w", err)
		}
		s.log.Info("archive: store schema upgraded", "from", n, "to", SchemaVersion)
		return nil
	default:
		return fmt.Errorf("archive: store schema v%d is unknown (this memex reads v1 to v%d): %w", n, SchemaVersion, memex.ErrSchema)
	}
}

func (s *Store) isEmpty() (bool, error) {
	it, err := s.db.NewIter(nil)
	if err != nil {
		return false, err
	}
	defer it.Close()
	return !it.First(), it.Error()
}

// dropUnfinished deletes the chunks of bodies whose streaming add never
// committed.
func (s *Store) dropUnfinished() error {
	lo := []byte{prefixProgress}
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: prefixEnd(lo)})
	if err != nil {
		return fmt.Errorf("archive: recover: %w", err)
	}
	var bodies []memex.ID
	for it.First(); it.Valid(); it.Next() {
		bodies = append(bodies, trailingID(it.Key()))
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("archive: recover: %w", err)
	}
	if len(bodies) == 0 {
		return nil
	}
	b := s.db.NewBatch()
	defer b.Close()
	for _, body := range bodies {
		lo := idKey(prefixChunk, body)
		_ = b.DeleteRange(lo, prefixEnd(lo), nil)
		_ = b.Delete(idKey(prefixProgress, body), nil)
		s.log.Warn("archive: dropping body of an interrupted add", "body", body.String())
	}
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("archive: recover: %w", err)
	}
	return nil
}

// get returns a copy of the value at key, or memex.ErrNotFound.
func (s *Store) get(key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, memex.ErrNotFound
	}
	if err != nil {
		return nil, dbErr(err)
	}
	out := append([]byte(nil), v...)
	return out, closer.Close()
}

// scanPrefix calls fn with each key (and value) under prefix, in order. The
// slices are valid only during the call.
func (s *Store) scanRange(ctx context.Context, lo, hi []byte, fn func(k, v []byte) error) error {
	it, err := s.db.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return err
	}
	n := 0
	for it.First(); it.Valid(); it.Next() {
		if n++; n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				it.Close()
				return err
			}
		}
		v, err := it.ValueAndErr()
		if err != nil {
			it.Close()
			return dbErr(err)
		}
		if err := fn(it.Key(), v); err != nil {
			it.Close()
			return err
		}
	}
	return dbErr(errors.Join(it.Error(), it.Close()))
}

// dbErr turns Pebble's report of a damaged file (a checksum mismatch, a
// truncated block) into one line wrapping memex.ErrCorrupt; Pebble's own
// message carries stack traces and detail lines.
func dbErr(err error) error {
	if err == nil || !pebble.IsCorruptionError(err) {
		return err
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return fmt.Errorf("damaged store file: %s: %w", msg, memex.ErrCorrupt)
}

func (s *Store) scanPrefix(ctx context.Context, prefix []byte, fn func(k, v []byte) error) error {
	return s.scanRange(ctx, prefix, prefixEnd(prefix), fn)
}

// pebbleLogger routes Pebble's logging to slog at debug level; fatal
// conditions still panic as Pebble expects.
type pebbleLogger struct{ l *slog.Logger }

func (p pebbleLogger) Infof(format string, args ...any) {
	p.l.Debug(fmt.Sprintf(format, args...), "component", "pebble")
}
func (p pebbleLogger) Errorf(format string, args ...any) {
	p.l.Error(fmt.Sprintf(format, args...), "component", "pebble")
}
func (p pebbleLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

var _ io.Closer = (*Store)(nil)
