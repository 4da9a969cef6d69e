package archive

import (
	"encoding/binary"

	"github.com/memex-archive/memex"
)

// SchemaVersion is the key schema this package writes. It also reads
// stores of version 1 (see the package doc).
const SchemaVersion = 2

const (
	prefixMeta     = 'm'
	prefixChunk    = 'c'
	prefixTable    = 't'
	prefixHash     = 'h'
	prefixRef      = 'r'
	prefixProgress = 'p'
	prefixSession  = 's'
	prefixAlias    = 'a'
	prefixPending  = 'i'
	prefixState    = 'k'
)

var schemaKey = []byte("\x00schema")

// Value codecs: the first byte of every stored value.
const (
	codecRaw  byte = 0
	codecZstd byte = 1
	// codecJSON is a version 1 metadata record: JSON, hash in hex, body in
	// chunks. Read, no longer written.
	codecJSON byte = 2
	// codecMeta is the metadata record of an entry whose body is in
	// chunks: sha256(32) JSON.
	codecMeta byte = 3
	// codecInline is the metadata record of an entry holding its own body:
	// sha256(32) uvarint(len(JSON)) JSON body.
	codecInline byte = 4
)

func idKey(prefix byte, id memex.ID) []byte {
	k := make([]byte, 17)
	k[0] = prefix
	copy(k[1:], id[:])
	return k
}

func chunkKey(body memex.ID, idx uint32) []byte {
	k := make([]byte, 21)
	k[0] = prefixChunk
	copy(k[1:], body[:])
	binary.BigEndian.PutUint32(k[17:], idx)
	return k
}

func refKey(body, id memex.ID) []byte {
	k := make([]byte, 33)
	k[0] = prefixRef
	copy(k[1:], body[:])
	copy(k[17:], id[:])
	return k
}

func hashKey(sum []byte) []byte {
	return append([]byte{prefixHash}, sum...)
}

// nameKey is prefix uvarint(len(name)) name, the start of a name's range.
func nameKey(prefix byte, name string) []byte {
	k := make([]byte, 0, 1+binary.MaxVarintLen64+len(name)+16)
	k = append(k, prefix)
	k = binary.AppendUvarint(k, uint64(len(name)))
	return append(k, name...)
}

func nameIDKey(prefix byte, name string, id memex.ID) []byte {
	return append(nameKey(prefix, name), id[:]...)
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil // p is all 0xff: no upper bound
}

// trailingID returns the ID in the last 16 bytes of key.
func trailingID(key []byte) memex.ID {
	var id memex.ID
	copy(id[:], key[len(key)-16:])
	return id
}

func uvarint(b []byte) (uint64, int) { return binary.Uvarint(b) }
