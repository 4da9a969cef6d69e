package summarize

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"math/bits"
	"sync"
)

// vocabSize is the number of cl100k_base mergeable tokens: ranks 0..100255,
// dense. A token's rank is also its ID, and a lower rank merges first.
const vocabSize = 100256

// noRank marks a byte string that is not a cl100k_base token.
const noRank = ^uint32(0)

// rankTable maps every cl100k_base token to its rank. It is built once and
// read-only after, so safe for concurrent use without locks. Three parts,
// by token length:
//
//   - pairs, a direct array over the 65,536 two-byte strings (256 KiB);
//   - short, open addressing over tokens of up to 7 bytes, each stored whole
//     in one word with its length (packShort), so a probe compares words
//     and never touches token bytes (69,000 tokens in 131,072 slots of 12
//     bytes: 1.5 MiB);
//   - slots, open addressing over the 31,000 longer tokens, kept in one
//     blob of bytes (512 KiB of slots plus 300 KiB of bytes).
//
// A lookup costs one hash and usually one slot.
//
// A slot packs, from the low bits: the token's offset in blob (20 bits; the
// blob is 306,781 bytes), its length (8 bits; the longest token is 128
// bytes), its rank (17 bits) and 19 bits of its hash as a tag that rules out
// most mismatches before the bytes are compared. Zero is an empty slot (no
// token is empty, so a used slot has a non-zero length field).
type rankTable struct {
	slots []uint64
	blob  []byte
	mask  uint64
	// pairs holds 1 + the rank of every 2-byte string, indexed by its
	// bytes (0: not a token).
	pairs     [1 << 16]uint32
	short     []uint64 // packShort keys; 0 is empty
	shortRank []uint32
	shortMask uint64
}

const (
	slotOffBits  = 20
	slotLenShift = 20
	slotRankSh   = 28
	slotTagShift = 45
	rankTableLog = 16 // 65,536 slots for the ~30,000 tokens over 7 bytes
)

var (
	ranksOnce sync.Once
	ranks     *rankTable
)

// vocabData is the cl100k_base vocabulary in rank order, each token as
// one length byte and its bytes. It is generated from the tiktoken-go
// tokenizer module's own vocabulary (TestEmbeddedVocabulary checks it
// against the module and rewrites it with -update), so that a process
// reads it in a few milliseconds instead of spending about 100 ms building
// the module's map and decoding every token back.
//
//go:embed cl100k.bin
var vocabData []byte

// vocab returns the cl100k_base rank table, building it on first use.
func vocab() *rankTable {
	ranksOnce.Do(func() {
		toks, err := parseVocab(vocabData)
		if err != nil {
			panic("summarize: " + err.Error())
		}
		ranks = newRankTable(toks)
	})
	return ranks
}

// parseVocab splits the embedded vocabulary into tokens indexed by rank.
func parseVocab(b []byte) ([]string, error) {
	toks := make([]string, 0, vocabSize)
	all := string(b) // one copy; the tokens are substrings of it
	for i := 0; i < len(all); {
		n := int(all[i])
		if n == 0 || i+1+n > len(all) {
			return nil, fmt.Errorf("embedded cl100k_base vocabulary is corrupt at byte %d", i)
		}
		toks = append(toks, all[i+1:i+1+n])
		i += 1 + n
	}
	if len(toks) != vocabSize {
		return nil, fmt.Errorf("embedded cl100k_base vocabulary has %d tokens, want %d", len(toks), vocabSize)
	}
	return toks, nil
}

// encodeVocab is parseVocab's inverse (for regenerating cl100k.bin).
func encodeVocab(toks []string) []byte {
	var b []byte
	for _, t := range toks {
		b = append(b, byte(len(t)))
		b = append(b, t...)
	}
	return b
}

// newRankTable builds the table from tokens indexed by rank.
func newRankTable(toks []string) *rankTable {
	t := &rankTable{
		slots: make([]uint64, 1<<rankTableLog),
		mask:  1<<rankTableLog - 1,
	}
	size := 0
	for _, tok := range toks {
		if len(tok) > shortMax {
			size += len(tok)
		}
	}
	if size >= 1<<slotOffBits || len(toks) >= 1<<(slotTagShift-slotRankSh) {
		panic("summarize: cl100k_base vocabulary does not fit the rank table")
	}
	t.blob = make([]byte, 0, size)
	nshort := 0
	for _, tok := range toks {
		if len(tok) <= shortMax {
			nshort++
		}
	}
	shortLog := bits.Len(uint(nshort + nshort/2)) // load between 1/3 and 2/3
	t.short = make([]uint64, 1<<shortLog)
	t.shortRank = make([]uint32, 1<<shortLog)
	t.shortMask = 1<<shortLog - 1
	nlong := 0
	for rank, tok := range toks {
		if len(tok) == 0 || len(tok) > 255 {
			panic("summarize: cl100k_base token of unexpected length")
		}
		if len(tok) == 2 {
			t.pairs[int(tok[0])<<8|int(tok[1])] = uint32(rank) + 1
		}
		if len(tok) <= shortMax {
			w := packShort(stringBytes(tok))
			for i := shortHash(w) & t.shortMask; ; i = (i + 1) & t.shortMask {
				if t.short[i] == 0 {
					t.short[i], t.shortRank[i] = w, uint32(rank)
					break
				}
			}
			continue
		}
		if nlong++; nlong > len(t.slots)*3/4 {
			panic("summarize: cl100k_base vocabulary does not fit the rank table")
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

// packShort packs a string of 1 to 7 bytes into one word: its bytes, little
// endian, and its length in bits 56 to 58. Distinct strings give distinct
// words, and no word is 0.
func packShort(p []byte) uint64 {
	var w uint64
	if cap(p) >= 8 {
		// p is a window on a longer buffer: load 8 bytes, keep len(p).
		w = binary.LittleEndian.Uint64(p[:8]) & (1<<(8*len(p)) - 1)
	} else {
		for i := len(p) - 1; i >= 0; i-- {
			w = w<<8 | uint64(p[i])
		}
	}
	return w | uint64(len(p))<<shortLenShift
}

func shortHash(w uint64) uint64 { return (w * fibonacciShift) >> 32 }

// shortRankOf returns the rank of the string packed in w, or noRank.
func (t *rankTable) shortRankOf(w uint64) uint32 {
	for i := shortHash(w) & t.shortMask; ; i = (i + 1) & t.shortMask {
		switch t.short[i] {
		case w:
			return t.shortRank[i]
		case 0:
			return noRank
		}
	}
}

// rank returns the rank of key, which is over 7 bytes long and whose hash
// is h, or noRank.
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

// pairRank is the rank of the 2-byte string a, b, or noRank.
func (t *rankTable) pairRank(a, b byte) uint32 {
	return t.pairs[int(a)<<8|int(b)] - 1 // 0, absent, wraps to noRank
}

// rankOf returns the rank of key, or noRank.
func (t *rankTable) rankOf(key []byte) uint32 {
	if len(key) <= shortMax {
		return t.shortRankOf(packShort(key))
	}
	return t.rank(key, hashBytes(key))
}

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
