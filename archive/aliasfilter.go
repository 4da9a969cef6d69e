package archive

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"sync"
)

// aliasFilterAfter is how many alias look-ups a process makes before it
// builds its alias filter: an import looks up the idempotency key of
// every record, a CLI call or a hook one or two, for which reading every
// alias key of the store would cost more than the look-ups.
const aliasFilterAfter = 512

// aliasFilter answers most look-ups of an alias that names no entry
// without reading the store. An import looks up every record's
// idempotency key before adding it, nearly always a key the store has
// never seen, and each look-up opened a prefix iterator over every level
// of the store: at 500 MB of transcripts a tenth of the import's CPU and
// half of its writer's (docs/performance.md, The writer's look-ups). A
// prefix iterator cannot ask the tables' bloom filters (those hold whole
// keys, and an alias key ends with its scope and ID), so the store keeps
// a Bloom filter of its own over the aliases, alone and with their
// project (an idempotency key often names entries of other projects:
// the same task run again under another project), in memory: built from the
// store's alias keys once the process has made aliasFilterAfter
// look-ups, then kept up to date by every Add once its batch is
// committed. A look-up that the filter cannot rule out reads the store
// as before, so a false positive costs what every look-up cost; there is
// no false negative: the build reads every alias committed before it
// starts, and an Add committed later records its aliases under the same
// lock, after the build (deleted entries' aliases stay, as positives).
type aliasFilter struct {
	mu      sync.Mutex
	lookups int
	bits    []uint64 // nil: not built
	keys    int      // aliases recorded
	seed    maphash.Seed
}

// aliasFilterBitsPerKey sizes the filter (about 0.5% false positives
// with aliasFilterHashes) for twice the keys it was built with (two per
// alias key of the store); past that it is built again at the next
// look-up.
const (
	aliasFilterBitsPerKey = 12
	aliasFilterHashes     = 6
)

// The filter's keys: an alias of some entry (kindAny), of an entry of a
// project (kindProject), and of an entry whose project only its record
// says (kindUnscoped: a version 2 key). They are hashed in pieces, with
// no string built per look-up.
const (
	kindAny      = 'a'
	kindProject  = 'p'
	kindUnscoped = 'u'
)

// hashes are the two hashes of a key, whose bit positions are h1 + i*h2.
func (f *aliasFilter) hashes(kind byte, project, alias string) (uint64, uint64) {
	var h maphash.Hash
	h.SetSeed(f.seed)
	h.WriteByte(kind)
	if kind == kindProject {
		h.WriteString(project)
		h.WriteByte(0)
	}
	h.WriteString(alias)
	x := h.Sum64()
	return x, x>>32 | x<<32 | 1
}

// mayName reports whether alias may name an entry that Lookup in project
// would answer with (any project's when project is ""); false is certain.
// It builds the filter once the process has looked up enough aliases.
func (f *aliasFilter) mayName(ctx context.Context, s *Store, alias, project string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bits == nil || f.keys*aliasFilterBitsPerKey > len(f.bits)*64 {
		if f.lookups++; f.lookups < aliasFilterAfter {
			return true, nil
		}
		if err := f.build(ctx, s); err != nil {
			f.bits = nil
			return true, err
		}
	}
	if project == "" {
		return f.has(kindAny, "", alias), nil
	}
	return f.has(kindProject, project, alias) || f.has(kindProject, "", alias) || f.has(kindUnscoped, "", alias), nil
}

// has reports whether the built filter may hold the key; false is certain.
func (f *aliasFilter) has(kind byte, project, alias string) bool {
	h1, h2 := f.hashes(kind, project, alias)
	n := uint64(len(f.bits) * 64)
	for i := uint64(0); i < aliasFilterHashes; i++ {
		b := (h1 + i*h2) % n
		if f.bits[b/64]&(1<<(b%64)) == 0 {
			return false
		}
	}
	return true
}

// build reads every alias of the store into a new filter: once to count
// them, once to record them, so that it holds nothing but the filter. The
// caller holds f.mu, so no Add records an alias until it is done; what
// Adds commit between the two reads is recorded by the second.
func (f *aliasFilter) build(ctx context.Context, s *Store) error {
	n := 0
	if err := s.scanPrefix(ctx, []byte{prefixAlias}, func(_, _ []byte) error { n++; return nil }); err != nil {
		return err
	}
	// Two filter keys per alias key.
	words := max(1024, (4*n*aliasFilterBitsPerKey+63)/64)
	f.bits, f.keys, f.seed = make([]uint64, words), 0, maphash.MakeSeed()
	return s.scanPrefix(ctx, []byte{prefixAlias}, func(k, _ []byte) error {
		l, w := binary.Uvarint(k[1:])
		if w <= 0 || l > uint64(len(k)-1-w) {
			return nil
		}
		alias := string(k[1+w : 1+w+int(l)])
		scope, _, v2, ok := parseScope(k[1+w+int(l):], 1)
		switch {
		case !ok:
		case v2:
			// Its project is in its record: any project's, for the filter.
			f.set(kindAny, "", alias)
			f.set(kindUnscoped, "", alias)
		default:
			f.set(kindAny, "", alias)
			f.set(kindProject, scope[0], alias)
		}
		return nil
	})
}

func (f *aliasFilter) set(kind byte, project, alias string) {
	h1, h2 := f.hashes(kind, project, alias)
	n := uint64(len(f.bits) * 64)
	for i := uint64(0); i < aliasFilterHashes; i++ {
		b := (h1 + i*h2) % n
		f.bits[b/64] |= 1 << (b % 64)
	}
	f.keys++
}

// added records the aliases of an entry of project whose batch is
// committed.
func (f *aliasFilter) added(project string, aliases []string) {
	if len(aliases) == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.bits == nil {
		return // the build, when it comes, reads them from the store
	}
	for _, a := range aliases {
		f.set(kindAny, "", a)
		f.set(kindProject, project, a)
	}
}
