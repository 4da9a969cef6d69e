package archive

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/errors"
	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/memex-archive/memex"
)

// A damaged write-ahead log (a flipped byte, a bad sector) used to lose
// what followed the damage without a word: Pebble takes a record that does
// not check out at the end of the last log for the torn tail of a crash,
// and stops replaying there. It can tell damage from a torn tail only by a
// later chunk that says the log was synced past the bad one, and looks for
// one only in the blocks after the bad one.
//
// Open checks the logs itself before Pebble replays them (checkLogs): it
// walks their chunks, checksums included, as Pebble's record reader does,
// and a bad chunk followed by a good one (in its own block too), or a bad
// chunk in a log that is not the last, is damage. What the log records
// after the last whole record before the damage cannot be replayed: the
// entries added there (their metadata keys are in the log's bytes) are
// lost, though their adds were acknowledged. A bad chunk with nothing good
// after it at the end of the last log is the torn tail of a crash: the add
// it held never returned.
//
// A store whose log is damaged opens read-only, the log cut (in a view) at
// the damage, with Damage saying what was lost. A writable Open fails with
// the *WALDamage, changing nothing, unless Options.RepairWAL: then the log
// file is cut at the damage, the store opens, and the loss is recorded
// (Losses). The logs are also written in the format that records in every
// chunk how far the log was synced (pebble.FormatWALSyncChunks), so that
// Pebble refuses damage that this check would not see.

// WALDamage describes a damaged write-ahead log. It wraps memex.ErrCorrupt.
type WALDamage struct {
	Log    string     `json:"log"`            // the log's file name in the store's directory
	Offset int64      `json:"offset"`         // the byte where replay stops; -1 when Pebble did not say
	Size   int64      `json:"size,omitempty"` // the log's size
	Lost   []memex.ID `json:"lost"`           // entries the logs record as added that the store does not hold
	At     time.Time  `json:"at,omitzero"`    // when a repair recorded it
}

func (d *WALDamage) Error() string {
	return "archive: " + d.Sentence() + ": " + memex.ErrCorrupt.Error()
}

// Sentence says what is damaged and what was lost, for a person.
func (d *WALDamage) Sentence() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the write-ahead log %s is damaged", d.Log)
	if d.Offset >= 0 {
		fmt.Fprintf(&b, " at byte %d", d.Offset)
		if d.Size > 0 {
			fmt.Fprintf(&b, " of %d", d.Size)
		}
	}
	switch n := len(d.Lost); n {
	case 0:
		b.WriteString(": what it records after the damage cannot be replayed (no entry was found there)")
	default:
		fmt.Fprintf(&b, ": %s acknowledged after the damage cannot be read back (%s", plural(n, "entry", "entries"), d.Lost[0])
		if n > 1 {
			fmt.Fprintf(&b, " … %s, written %s to %s", d.Lost[n-1],
				d.Lost[0].Time().Format(time.RFC3339), d.Lost[n-1].Time().Format(time.RFC3339))
		} else {
			fmt.Fprintf(&b, ", written %s", d.Lost[0].Time().Format(time.RFC3339))
		}
		b.WriteString(")")
	}
	return b.String()
}

func (d *WALDamage) Unwrap() error { return memex.ErrCorrupt }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// loggedEntry is what a log records of an entry: added, or deleted.
type loggedEntry struct {
	id      memex.ID
	deleted bool
}

// metaKey is how a batch records the key of an entry's metadata after the
// operation's kind (1 set, 0 delete): the key's length (17), then the key
// ('m' and the ID).
var metaKey = []byte{17, prefixMeta}

// scanLog finds the entries that the bytes of a log record, in order. It
// reads the bytes as they are: a key that a chunk header splits (at most
// one in every 32 KiB block) is not seen.
func scanLog(b []byte) []loggedEntry {
	var out []loggedEntry
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], metaKey)
		if j < 0 {
			break
		}
		at := i + j // the key's length byte
		i = at + 1
		if at == 0 || at+2+16 > len(b) {
			continue
		}
		var id memex.ID
		copy(id[:], b[at+2:at+2+16])
		if id.IsZero() {
			continue
		}
		switch b[at-1] {
		case 1: // a set has its value next: uvarint length, then the codec
			rest := b[at+2+16:]
			if n, w := binary.Uvarint(rest); w > 0 && n > 0 && w < len(rest) && (rest[w] == codecMeta || rest[w] == codecInline || rest[w] == codecJSON) {
				out = append(out, loggedEntry{id: id})
			}
		case 0:
			out = append(out, loggedEntry{id: id, deleted: true})
		}
	}
	return out
}

// The chunk format of Pebble's logs (pebble/record): 32 KiB blocks, each a
// run of chunks that never straddle a block; a chunk is checksum (4, the
// masked CRC-32C of what follows it), length (2), encoding (1), for the
// recyclable and sync encodings the log number (4), for the sync ones the
// synced offset (8), then length bytes. Encoding 1 to 4 (full, first,
// middle, last: legacy), 5 to 8 (recyclable), 9 to 12 (sync). A chunk of
// the log number plus one ends the log; zeros pad the end of a block.
const (
	walBlock = 32 << 10
	walCRC   = crc32.Castagnoli
)

var walTable = crc32.MakeTable(walCRC)

// walChunk parses the chunk at b[p:] (within its block, which ends at
// end), of log num. It returns the chunk's end, whether it ends a record,
// and whether it is valid; eof says it is the trailer that ends the log.
func walChunk(b []byte, p, end int, num uint32) (next int, last, ok, eof bool) {
	if p+7 > end {
		return end, false, false, false
	}
	sum := binary.LittleEndian.Uint32(b[p:])
	length := int(binary.LittleEndian.Uint16(b[p+4:]))
	enc := b[p+6]
	header := 7
	switch {
	case enc >= 1 && enc <= 4:
	case enc >= 5 && enc <= 8:
		header = 11
	case enc >= 9 && enc <= 12:
		header = 19
	default:
		return p, false, false, false
	}
	if p+header+length > end {
		return p, false, false, false
	}
	if header > 7 {
		switch n := binary.LittleEndian.Uint32(b[p+7:]); {
		case n == num+1 && sum == 0 && length == 0 && enc == 5:
			// The trailer of a clean close: a recyclable header of the
			// next log's number, with no checksum and no data.
			return p + 11, false, false, true
		case n != num:
			return p, false, false, false
		}
	}
	c := crc32.Checksum(b[p+6:p+header+length], walTable)
	if sum != (c>>15|c<<17)+0xa282ead8 {
		return p, false, false, false
	}
	pos := (enc - 1) % 4 // 0 full, 1 first, 2 middle, 3 last
	return p + header + length, pos == 0 || pos == 3, true, false
}

// walkLog checks the chunks of log num: good is the end of the last whole
// record before the first bad chunk (or the log's end), bad the offset of
// that chunk (-1: none), and later whether a good chunk follows it, which
// a torn tail would not have.
func walkLog(b []byte, num uint32) (good, bad int, later bool) {
	bad = -1
	for block := 0; block < len(b); block += walBlock {
		end := min(block+walBlock, len(b))
		for p := block; p < end; {
			if end-p < 19 && allZero(b[p:end]) {
				break // padding at the end of a block
			}
			next, last, ok, eof := walChunk(b, p, end, num)
			if eof {
				return good, -1, false
			}
			if !ok {
				if allZero(b[p:end]) && end == len(b) {
					return good, -1, false // zeros after the last record
				}
				return good, p, goodAfter(b, p, num)
			}
			if last {
				good = next
			}
			p = next
		}
	}
	return good, -1, false
}

// goodAfter reports whether a good chunk follows offset p: in p's block
// at an offset holding the log's number (a sync or recyclable chunk) or
// the next one (the trailer that a clean close writes), or at the start of
// a later block (every block starts with a chunk).
func goodAfter(b []byte, p int, num uint32) bool {
	block := p - p%walBlock
	end := min(block+walBlock, len(b))
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], num)
	var trailer [4]byte
	binary.LittleEndian.PutUint32(trailer[:], num+1)
	for q := p + 1; q+11 <= end; q++ {
		if bytes.Equal(b[q+7:q+11], n[:]) || bytes.Equal(b[q+7:q+11], trailer[:]) {
			if _, _, ok, eof := walChunk(b, q, end, num); ok || eof {
				return true
			}
		}
	}
	for q := block + walBlock; q < len(b); q += walBlock {
		if _, _, ok, eof := walChunk(b, q, min(q+walBlock, len(b)), num); ok || eof {
			return true
		}
	}
	return false
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// checkLogs checks the logs in dir (see above) and returns the first
// damage, or nil.
func checkLogs(dir string) (*WALDamage, error) {
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return nil, err
	}
	slices.Sort(logs) // log numbers are zero-padded: name order is log order
	for i, p := range logs {
		num, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(p), ".log"), 10, 32)
		if err != nil {
			continue // not one of Pebble's
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		good, bad, later := walkLog(b, uint32(num))
		if bad < 0 || (i == len(logs)-1 && !later) {
			continue
		}
		d := &WALDamage{Log: filepath.Base(p), Offset: int64(good), Size: int64(len(b))}
		lost := map[memex.ID]bool{}
		for _, e := range scanLog(b[good:]) {
			lost[e.id] = !e.deleted
		}
		for _, q := range logs[i+1:] {
			later, err := os.ReadFile(q)
			if err != nil {
				return nil, err
			}
			for _, e := range scanLog(later) {
				if e.deleted {
					lost[e.id] = false
				}
			}
		}
		for id, gone := range lost {
			if gone {
				d.Lost = append(d.Lost, id)
			}
		}
		slices.SortFunc(d.Lost, memex.ID.Compare)
		return d, nil
	}
	return nil, nil
}

// replayDamage recognises Pebble's refusal to replay a damaged log and
// says which log and where.
func replayDamage(err error) (*WALDamage, bool) {
	if err == nil || !pebble.IsCorruptionError(err) || !strings.Contains(err.Error(), "replaying WAL") {
		return nil, false
	}
	d := &WALDamage{Offset: -1}
	if m := replayAt.FindStringSubmatch(errors.FlattenDetails(err)); m != nil {
		d.Log = filepath.Base(m[1])
		d.Offset, _ = strconv.ParseInt(m[2], 10, 64)
	}
	return d, true
}

var replayAt = regexp.MustCompile(`offset \((\S+\.log): (\d+)\)`)

// cutFS shows the log at path cut at size bytes (a read-only open past
// the damage).
type cutFS struct {
	vfs.FS
	path string
	size int64
}

func (f cutFS) Open(name string, opts ...vfs.OpenOption) (vfs.File, error) {
	file, err := f.FS.Open(name, opts...)
	if err != nil || name != f.path {
		return file, err
	}
	return &cutFile{File: file, size: f.size}, nil
}

type cutFile struct {
	vfs.File
	size int64
	off  int64
}

func (c *cutFile) Read(p []byte) (int, error) {
	if c.off >= c.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), c.size-c.off)]
	n, err := c.File.ReadAt(p, c.off)
	c.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

func (c *cutFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= c.size {
		return 0, io.EOF
	}
	short := int64(len(p)) > c.size-off
	p = p[:min(int64(len(p)), c.size-off)]
	n, err := c.File.ReadAt(p, off)
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

func (c *cutFile) Stat() (vfs.FileInfo, error) {
	fi, err := c.File.Stat()
	if err != nil {
		return nil, err
	}
	return cutInfo{fi, c.size}, nil
}

type cutInfo struct {
	vfs.FileInfo
	size int64
}

func (i cutInfo) Size() int64 { return i.size }

// lostState is the state key of the losses a repair recorded.
const lostState = "archive/lost"

// Damage returns what a read-only Open found of a damaged log (the store
// is then what precedes the damage), or nil.
func (s *Store) Damage() *WALDamage { return s.damage }

// Losses returns the damaged logs that repairs cut, with the entries lost,
// oldest first.
func (s *Store) Losses(ctx context.Context) ([]WALDamage, error) {
	v, err := s.GetState(ctx, lostState)
	if errors.Is(err, memex.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []WALDamage
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, fmt.Errorf("archive: losses: %v: %w", err, memex.ErrCorrupt)
	}
	return out, nil
}

// recordLoss appends d to the losses.
func (s *Store) recordLoss(ctx context.Context, d WALDamage) error {
	all, err := s.Losses(ctx)
	if err != nil {
		return err
	}
	d.At = time.Now().UTC()
	b, err := json.Marshal(append(all, d))
	if err != nil {
		return err
	}
	return s.SetState(ctx, lostState, b)
}
