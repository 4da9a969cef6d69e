package summarize

import (
	"encoding/binary"
	"math/bits"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// vocabSize is the number of cl100k_base mergeable tokens: ranks 0..100255,
// dense. A token's rank is also its ID, and a lower rank merges first.
const vocabSize = 100256

// noRank marks a byte string that is not a cl100k_base token.
const noRank = ^uint32(0)

// rankTable maps every cl100k_base token to its rank. It is an open-addressing
// hash table over one blob of token bytes, built once and read-only after:
// safe for concurrent use without locks, 2 MiB of slots plus 0.6 MiB of
// bytes, and a lookup costs one hash and usually one slot.
//
// A slot packs, from the low bits: the token's offset in blob (20 bits; the
// blob is 643,830 bytes), its length (8 bits; the longest token is 128
// bytes), its rank (17 bits) and 19 bits of its hash as a tag that rules out
// most mismatches before the bytes are compared. Zero is an empty slot (no
// token is empty, so a used slot has a non-zero length field).
type rankTable struct {
	slots []uint64
	blob  []byte
	mask  uint64
}

const (
	slotOffBits  = 20
	slotLenShift = 20
	slotRankSh   = 28
	slotTagShift = 45
	rankTableLog = 18 // 262,144 slots for 100,256 tokens: load 0.38
)

var (
	ranksOnce sync.Once
	ranks     *rankTable
)

// vocab returns the cl100k_base rank table, building it on first use (about
// 100 ms: the tokenizer module's own vocabulary map is built, then each
// token is read back by decoding its ID alone, the module's supported way to
// reach the embedded data).
func vocab() *rankTable {
	ranksOnce.Do(func() {
		codec, err := tokenizer.Get(tokenizer.Cl100kBase)
		if err != nil {
			panic("summarize: cl100k_base vocabulary missing from the tokenizer module: " + err.Error())
		}
		toks := make([]string, vocabSize)
		ids := make([]uint, 1)
		for id := range toks {
			ids[0] = uint(id)
			tok, err := codec.Decode(ids)
			if err != nil || tok == "" {
				panic("summarize: cl100k_base vocabulary incomplete in the tokenizer module")
			}
			toks[id] = tok
		}
		ranks = newRankTable(toks)
	})
	return ranks
}

// newRankTable builds the table from tokens indexed by rank.
func newRankTable(toks []string) *rankTable {
	t := &rankTable{
		slots: make([]uint64, 1<<rankTableLog),
		mask:  1<<rankTableLog - 1,
	}
	size := 0
	for _, tok := range toks {
		size += len(tok)
	}
	if size >= 1<<slotOffBits || len(toks) >= 1<<(slotTagShift-slotRankSh) {
		panic("summarize: cl100k_base vocabulary does not fit the rank table")
	}
	t.blob = make([]byte, 0, size)
	for rank, tok := range toks {
		if len(tok) == 0 || len(tok) > 255 {
			panic("summarize: cl100k_base token of unexpected length")
		}
		off := len(t.blob)
		t.blob = append(t.blob, tok...)
		key := t.blob[off:]
		h := hashBytes(key)
		slot := uint64(off) | uint64(len(tok))<<slotLenShift | uint64(rank)<<slotRankSh | h>>slotTagShift<<slotTagShift
		for i := h & t.mask; ; i = (i + 1) & t.mask {
			if t.slots[i] == 0 {
				t.slots[i] = slot
				break
			}
		}
	}
	return t
}

// rank returns the rank of key, whose hash is h, or noRank.
func (t *rankTable) rank(key []byte, h uint64) uint32 {
	tag := h >> slotTagShift
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := t.slots[i]
		if s == 0 {
			return noRank
		}
		if s>>slotTagShift == tag && int(s>>slotLenShift&0xff) == len(key) {
			off := s & (1<<slotOffBits - 1)
			if string(t.blob[off:off+uint64(len(key))]) == string(key) {
				return uint32(s >> slotRankSh & (1<<(slotTagShift-slotRankSh) - 1))
			}
		}
	}
}

// rankOf is rank with the hash computed here.
func (t *rankTable) rankOf(key []byte) uint32 { return t.rank(key, hashBytes(key)) }

// hashBytes is a fast non-cryptographic hash of short byte strings (the
// pieces and tokens hashed here are mostly under 16 bytes). It need not
// resist flooding: a collision only costs a longer probe, never a wrong
// answer, because keys are always compared in full. It reads 8 bytes at a
// time and mixes with 128-bit multiplies, after wyhash.
func hashBytes(b []byte) uint64 {
	const (
		p0 = 0xa0761d6478bd642f
		p1 = 0xe7037ed1a0b428db
		p2 = 0x8ebc6af09c88c6e3
	)
	h := uint64(len(b)) * p0
	for len(b) > 8 {
		h = mix(h^binary.LittleEndian.Uint64(b), p1)
		b = b[8:]
	}
	var w uint64
	switch {
	case len(b) == 8:
		w = binary.LittleEndian.Uint64(b)
	case len(b) >= 4:
		w = uint64(binary.LittleEndian.Uint32(b))<<32 | uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	case len(b) > 0:
		w = uint64(b[0])<<16 | uint64(b[len(b)>>1])<<8 | uint64(b[len(b)-1])
	}
	return mix(h^w, p2) ^ h
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
