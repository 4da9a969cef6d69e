// Package archive is memex's system of record: every entry's metadata and
// its exact body, compressed, in one Pebble database.
//
// # Key schema (version 3)
//
// Every key starts with a one-byte prefix. IDs are the raw 16 bytes of a
// ULID, so key order is time order. Variable-length names (sessions,
// aliases, projects, agents) are written as uvarint(len) + bytes, shown
// as name below, so that no byte value of a name can confuse a prefix scan.
//
//	"\x00schema"                      -> decimal schema version ("3")
//	'm' id                            -> entry metadata, and a small body (see below)
//	'c' body(16) idx(4, big endian)   -> one body chunk (codec byte + data)
//	't' body(16)                      -> chunk table of a body (codec byte + uvarints)
//	'h' sha256(32)                    -> body(16): content-addressed dedup
//	'r' body(16) id(16)               -> empty: entry id references body
//	'p' body(16)                      -> empty: body being streamed, not yet committed
//	's' session project agent id      -> empty: session order
//	'a' alias project id              -> empty: alias names id in project
//	'i' id                            -> empty: entry not yet indexed
//	'k' name                          -> small named state of other packages
//
// Values carry a one-byte codec tag. An entry's metadata is one of
//
//	codecMeta (3)    sha256(32) JSON                               body in chunks
//	codecInline (4)  sha256(32) uvarint(len(JSON)) JSON body       body here, raw
//
// where sha256 is the body's, in binary, and JSON is the entry without its
// ID (the key's), its hash (beside it) or its body's ID when that is the
// entry's own. JSON lets fields be added without a schema change; a new
// field that old readers must not ignore requires a new schema version.
//
// A body of at most InlineSize bytes is stored raw at the end of its
// entry's metadata: no chunk, table or reference key. Pebble compresses
// each block of BlockSize bytes with zstd, so neighbouring small bodies, and
// each summary with the body it quotes, compress together, which beats
// compressing a few hundred bytes on their own.
//
// Identical bodies are stored once, whatever their size. Every non-empty
// body has an 'h' key naming the entry that first stored it; a later entry
// with the same content records that entry's ID as its body and gets an 'r'
// key, whether the body is in chunks or inline in the first entry's record.
// Deleting the first entry of an inline body that others still reference
// moves the body to a chunk and table under that entry's ID, where their
// references and the hash key already point.
//
// A larger body is identified by the ID of the entry that first stored it,
// and each entry holding it, the first included, has an 'r' key. It is cut
// into chunks of ChunkSize raw bytes, each compressed with zstd on its own
// (codecZstd, 1; codecRaw, 0, when zstd does not shrink it), so reading a
// line range decompresses only the chunks that hold it. The chunk table records each
// chunk's raw length and newline count, from which a line number maps to a
// chunk.
//
// # Sessions and aliases
//
// A session is identified by its name, its project and its agent
// (memex.SessionRef): the same task run by two models and imported under
// two projects is two sessions, listed apart by Sessions. Its keys sort by
// name first, so a bare name is one prefix scan; a name that several
// sessions share is memex.ErrAmbiguous, listing them, and the project or
// agent narrows it. Entries that carry no project (a hook given no working
// directory, a block compressed without one) join the one session of their
// name that has a project.
//
// An alias names one entry per project: the newest written under it there
// (the greatest ID; for entries written now, the last one). A new entry
// under a name already used in its project takes the name, whatever the
// write path (add --alias, a memex_compress key, a JSONL key), and the
// older entry stays reachable by its ID; deleting the newest gives the name
// back to the one before. Host record ids (a Claude Code tool_use id, a
// Codex call_id) never repeat, so for them the rule never comes into play;
// SESSION#N repeats only where a session name does, in another project
// (two models' runs of one task) or from another agent in the same project,
// where the newest session's N-th call takes it. The same alias in two
// projects names one entry in each: Resolve with no project is then
// memex.ErrAmbiguous, listing them, and the project picks one. Lookup is
// the exact form that ingest uses for its idempotency keys.
//
// # Durability
//
// One entry is one Pebble batch (metadata, chunk table, last chunks, session
// order, aliases, body reference, pending-index marker) committed with
// sync; Add returns only after that commit. Pebble commits concurrent
// batches in one WAL sync (group commit). A body larger than FlushSize is
// streamed: its first chunks go out in unsynced batches marked by a 'p'
// key, and the final batch removes the marker atomically with the metadata.
// Open deletes the chunks of any body still marked, which is all that a
// crash during a large add can leave behind.
//
// # A damaged log
//
// Open checks the write-ahead logs before Pebble replays them: a bad
// chunk that a good one follows is damage, and what the log recorded
// after it would be lost without a word (Pebble takes it for the torn
// tail of a crash). A writable Open then fails with a *WALDamage naming
// the entries lost, changing nothing; a read-only Open reads the store as
// it was before the damage and says so (Damage); Options.RepairWAL cuts the
// log at the damage and records the loss (Losses). See wal.go.
//
// # Forgetting
//
// Delete removes an entry's keys; the bytes stay on disk until compactions
// rewrite the files that hold them. Purge makes them unreadable there: it
// rotates the write-ahead log and flushes the memtable, compacts the key
// ranges that Delete touched through every level, and waits until Pebble
// has deleted every table and log that held them. Pebble never recycles a
// log file of this store (its cleaner is pebble.ArchiveCleaner, whose
// rename the store's file system turns into a removal), so no old record
// survives at the end of a reused log.
//
// # Readers
//
// A store opened with Options.ReadOnly writes nothing: not a log, not a
// manifest (its file system refuses every write), and what only the
// write-ahead log holds is replayed in memory. With Options.Shared it takes
// no lock either (Pebble's is exclusive), so any number of readers open it
// at once, on a read-only mount or a full disk too; keeping writers out
// while they read is then the caller's lock. Exists tells whether a
// directory holds a store without opening it (Pebble v2 writes no CURRENT
// file: a marker names the manifest).
//
// # Schema versions
//
// Open refuses a store whose schema version is newer than SchemaVersion
// (memex.ErrSchema, with the versions named) instead of misreading it.
//
// Version 1 kept every body in chunks, however small, and its metadata as
// codecJSON (2): JSON holding the hash as "sha256:" and hex. Version 2
// wrote session and alias keys without their scope: 's' name id and
// 'a' name id. Version 3 reads the records and keys of both as they are
// and writes only its own: an unscoped key is told apart by its length
// (the ID follows the name directly, where a version 3 key has at least
// one length byte between them), and its project and agent are read from
// the entry's record. So an older store needs no migration: a writable
// Open sets its version to 3 (a read-only Open changes nothing), after
// which a memex that knows only an older version refuses it rather than
// misreading the new keys. testdata/v2store is a store written by
// version 2, read by the tests.
package archive
