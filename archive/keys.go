package archive

import (
	"encoding/binary"

	"github.com/memex-archive/memex"
)

// SchemaVersion is the key schema this package writes. It also reads
// stores of versions 1 and 2 (see the package doc).
const SchemaVersion = 3

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

// appendName appends uvarint(len(name)) name to k.
func appendName(k []byte, name string) []byte {
	k = binary.AppendUvarint(k, uint64(len(name)))
	return append(k, name...)
}

// sessionKey is the session order key of entry id in session r (a full
// identity): 's' session project agent id, each name length-prefixed.
func sessionKey(r memex.SessionRef, id memex.ID) []byte {
	k := appendName(appendName(nameKey(prefixSession, r.Session), r.Project), r.Agent)
	return append(k, id[:]...)
}

// aliasKey is the key saying that alias names entry id in project's scope:
// 'a' alias project id, each name length-prefixed.
func aliasKey(alias, project string, id memex.ID) []byte {
	return append(appendName(nameKey(prefixAlias, alias), project), id[:]...)
}

// parseScope parses what follows a name in a session or alias key: n
// length-prefixed scope names and the ID (version 3), or the ID alone
// (version 2, whose scope is in the entry's record: v2 is then set). A
// version 3 key always has at least one length byte beside the ID, so the
// two never look alike.
func parseScope(rest []byte, n int) (scope []string, id memex.ID, v2, ok bool) {
	if len(rest) == len(id) {
		copy(id[:], rest)
		return nil, id, true, true
	}
	scope = make([]string, n)
	for i := range scope {
		l, w := binary.Uvarint(rest)
		if w <= 0 || l > uint64(len(rest)-w) {
			return nil, id, false, false
		}
		scope[i] = string(rest[w : w+int(l)])
		rest = rest[w+int(l):]
	}
	if len(rest) != len(id) {
		return nil, id, false, false
	}
	copy(id[:], rest)
	return scope, id, false, true
}

// keyName splits a key of prefix uvarint(len) name ... into the name and
// what follows it.
func keyName(k []byte) (name string, rest []byte, ok bool) {
	if len(k) < 2 {
		return "", nil, false
	}
	n, w := binary.Uvarint(k[1:])
	if w <= 0 || n > uint64(len(k)-1-w) {
		return "", nil, false
	}
	return string(k[1+w : 1+w+int(n)]), k[1+w+int(n):], true
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
