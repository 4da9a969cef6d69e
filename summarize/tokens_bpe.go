package summarize

import "sync/atomic"

// countPiece returns the number of cl100k_base tokens of one pre-token
// piece (valid UTF-8).
func countPiece(t *rankTable, p []byte) int {
	if len(p) == 1 {
		// Every single byte is a token.
		return 1
	}
	if len(p) <= shortMax {
		return countShort(t, p)
	}
	return countLong(t, p)
}

// The short cache holds the count of pieces of 2 to 7 bytes, most pieces
// of real text, whole in one word each: the piece's bytes, its length and
// its count. A word is read and written atomically, so the cache is exact
// and lock-free, and a lookup is one multiply and one or two loads from the
// same cache line. It is 2-way set-associative: a new piece goes first in
// its pair of words and moves the old first one second. The two stores are
// not atomic together, so a race can lose an entry, never corrupt one: each
// word carries its whole key. 2^17 words: 1 MiB.
const (
	shortMax       = 7
	shortCacheLog  = 17
	shortLenShift  = 56
	shortCntShift  = 59
	shortKeyMask   = 1<<shortCntShift - 1
	fibonacciShift = 0x9E3779B97F4A7C15
)

var shortCache [1 << shortCacheLog]atomic.Uint64

func countShort(t *rankTable, p []byte) int {
	w := packShort(p)
	i := (w * fibonacciShift) >> (64 - shortCacheLog) &^ 1
	first := shortCache[i].Load()
	if first&shortKeyMask == w {
		return int(first >> shortCntShift)
	}
	if v := shortCache[i+1].Load(); v&shortKeyMask == w {
		return int(v >> shortCntShift)
	}
	n := 1
	if t.shortRankOf(w) == noRank {
		n = bpeCount(t, p)
	}
	if first != 0 {
		shortCache[i+1].Store(first)
	}
	shortCache[i].Store(w | uint64(n)<<shortCntShift)
	return n
}

// countLong counts a piece of 8 bytes or more through the vocabulary, the
// piece caches and, on a miss, the merge.
func countLong(t *rankTable, p []byte) int {
	h := hashBytes(p)
	if len(p) <= maxTokenLen && t.rank(p, h) != noRank {
		return 1
	}
	var cache []atomic.Pointer[cacheEntry]
	switch {
	case len(p) <= maxCachedPiece:
		cache = pieceCache[:]
	case len(p) <= maxCachedBigPiece:
		cache = bigPieceCache[:]
	default:
		return bpeCount(t, p)
	}
	i := h & uint64(len(cache)-1) &^ 1
	first := cache[i].Load()
	if first != nil && first.key == string(p) {
		return int(first.n)
	}
	if e := cache[i+1].Load(); e != nil && e.key == string(p) {
		return int(e.n)
	}
	n := bpeCount(t, p)
	if first != nil {
		cache[i+1].Store(first)
	}
	cache[i].Store(&cacheEntry{key: string(p), n: int32(n)})
	return n
}

// maxTokenLen is the length of the longest cl100k_base token.
const maxTokenLen = 128

// The piece caches map pieces that are not themselves tokens to their token
// count, so that the words, identifiers and separator lines tool output
// repeats are merged once; the short cache above takes pieces under 8
// bytes, pieceCache pieces up to 64 bytes, bigPieceCache the rarer longer
// ones up to 1 KiB (runs like an 80-column line of '=' or '-', which cost
// about 10 µs each to merge). Both are 2-way set-associative like the short
// cache. Each slot is an atomic pointer to an immutable entry, so readers
// and writers on any goroutines need no lock, and a reader sees either an
// old entry or a new one, both correct (the key is compared in full).
//
// Memory bound: a slot is 8 bytes and points to at most one entry of 24
// bytes plus its key. pieceCache: 65,536 × (8 + 24 + 64) bytes = 6 MiB;
// bigPieceCache: 4,096 × (8 + 24 + 1,024) bytes = 4.1 MiB; with the short
// cache, 11.1 MiB in all. Typical keys are 8 to 16 bytes, which makes
// pieceCache about 3.5 MiB when full.
const (
	cacheSlots        = 1 << 16
	maxCachedPiece    = 64
	bigCacheSlots     = 1 << 12
	maxCachedBigPiece = 1 << 10
)

type cacheEntry struct {
	key string
	n   int32
}

var (
	pieceCache    [cacheSlots]atomic.Pointer[cacheEntry]
	bigPieceCache [bigCacheSlots]atomic.Pointer[cacheEntry]
)

// resetPieceCache empties the caches (for cold-cache benchmarks and tests).
func resetPieceCache() {
	for i := range pieceCache {
		pieceCache[i].Store(nil)
	}
	for i := range bigPieceCache {
		bigPieceCache[i].Store(nil)
	}
	for i := range shortCache {
		shortCache[i].Store(0)
	}
}

// bpeHeapMin is the piece length from which bpeCount merges with a heap
// (O(n log n)) instead of rescanning the parts (O(n²), faster when short).
// Both merge in the same order, so they agree.
const bpeHeapMin = 64

// bpeCount returns the number of tokens byte-pair encoding merges p into:
// start from single bytes and repeatedly merge the adjacent pair whose
// concatenation has the lowest rank, the leftmost on ties, until no adjacent
// pair is a token. This is tiktoken's merge order exactly.
func bpeCount(t *rankTable, p []byte) int {
	n := len(p)
	if n >= bpeHeapMin {
		return bpeCountHeap(t, p)
	}
	// start[k] is where part k begins; rank[k] is the rank of part k joined
	// with part k+1. m counts boundaries, so parts = m-1.
	var startBuf [bpeHeapMin + 1]int32
	var rankBuf [bpeHeapMin + 1]uint32
	start, rank := startBuf[:n+1], rankBuf[:n+1]
	for k := range start {
		start[k] = int32(k)
		rank[k] = noRank
	}
	for k := 0; k+2 <= n; k++ {
		rank[k] = t.pairRank(p[k], p[k+1])
	}
	m := n + 1
	for m > 2 {
		best, bestRank := 0, noRank
		for k, r := range rank[:m-1] {
			if r < bestRank {
				best, bestRank = k, r
			}
		}
		if bestRank == noRank {
			break
		}
		// Join part best with part best+1: drop boundary best+1.
		copy(start[best+1:m-1], start[best+2:m])
		copy(rank[best+1:m-1], rank[best+2:m])
		m--
		rank[m-1] = noRank
		rank[best] = noRank
		if best+2 < m {
			rank[best] = t.rankOf(p[start[best]:start[best+2]])
		}
		if best > 0 {
			rank[best-1] = t.rankOf(p[start[best-1]:start[best+1]])
		}
	}
	return m - 1
}

// mergeNode is a part boundary in bpeCountHeap's linked list; rank is the
// rank of this part joined with the next one.
type mergeNode struct {
	prev, next int32
	rank       uint32
}

type mergeCandidate struct {
	rank uint32
	at   int32
}

// bpeCountHeap is bpeCount for long pieces: a min-heap of candidate merges
// ordered by rank then position (the leftmost on ties, as the scan), with
// stale candidates skipped when popped.
func bpeCountHeap(t *rankTable, p []byte) int {
	n := int32(len(p))
	nodes := make([]mergeNode, n+1)
	for i := range nodes {
		nodes[i] = mergeNode{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	rankAt := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 {
			return noRank
		}
		k := nodes[j].next
		if k < 0 {
			return noRank
		}
		return t.rankOf(p[i:k])
	}
	h := make(mergeHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := t.pairRank(p[i], p[i+1]); r != noRank {
			nodes[i].rank = r
			h = append(h, mergeCandidate{r, i})
		}
	}
	h.init()
	parts := int(n)
	for len(h) > 0 {
		top := h.pop()
		i := top.at
		if nodes[i].rank != top.rank {
			continue // stale: this boundary's pair changed since
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		parts--
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankAt(b)
			if nodes[b].rank != noRank {
				h.push(mergeCandidate{nodes[b].rank, b})
			}
		}
	}
	return parts
}

// mergeHeap is a binary min-heap, typed so that pushes do not allocate.
type mergeHeap []mergeCandidate

func (h mergeHeap) less(a, b int) bool {
	if h[a].rank != h[b].rank {
		return h[a].rank < h[b].rank
	}
	return h[a].at < h[b].at
}

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(c mergeCandidate) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *mergeHeap) pop() mergeCandidate {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h mergeHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			return
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (h mergeHeap) down(i int) {
	for {
		child := 2*i + 1
		if child >= len(h) {
			return
		}
		if right := child + 1; right < len(h) && h.less(right, child) {
			child = right
		}
		if !h.less(child, i) {
			return
		}
		h[i], h[child] = h[child], h[i]
		i = child
	}
}
