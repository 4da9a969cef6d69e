package summarize

import (
	"unicode/utf8"
	"unsafe"
)

// Encoding names memex's tokenizer: OpenAI's cl100k_base BPE, whose
// vocabulary ships inside the tiktoken-go/tokenizer module (no download, no
// network).
//
// Counts are exactly those of that module's cl100k_base codec (the
// reference), computed here by a hand-written pre-tokenizer and a cached
// byte-pair merge about 14 times faster; docs/tokenizer.md has the design,
// the evidence and the figures. Everything here is safe for concurrent use.
const Encoding = "cl100k_base"

// Count returns the number of cl100k_base tokens of b.
//
// Invalid UTF-8 counts as the reference counts it: each byte that does not
// start a valid encoding (as utf8.DecodeRune decides) stands for one U+FFFD.
func Count(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	if !utf8.Valid(b) {
		b = appendValid(make([]byte, 0, len(b)+len(b)/2), b)
	}
	return countValid(vocab(), b)
}

// CountString is Count for a string.
func CountString(s string) int { return Count(stringBytes(s)) }

// stringBytes views s as bytes without copying; nothing here writes to it.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// countValid counts b, which must be valid UTF-8.
func countValid(t *rankTable, b []byte) int {
	// packShort may load up to 7 bytes past a piece, within its capacity:
	// cap b at its length so that those loads never reach bytes the caller
	// did not pass (and may be writing).
	b = b[:len(b):len(b)]
	n := 0
	for i := 0; i < len(b); {
		e, kind := nextPiece(b, i)
		switch {
		case kind == pieceSkip:
		case e-i == 1:
			n++ // every single byte is a token
		case e-i <= shortMax:
			n += countShort(t, b[i:e])
		default:
			n += countLong(t, b[i:e])
		}
		i = e
	}
	return n
}

// appendValid appends src to dst with every invalid byte replaced by U+FFFD,
// as converting to []rune does (one U+FFFD per byte, not per maximal
// invalid subsequence).
func appendValid(dst, src []byte) []byte {
	for len(src) > 0 {
		r, n := utf8.DecodeRune(src)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, src[:n]...)
		}
		src = src[n:]
	}
	return dst
}

// Truncate returns a prefix of s that fits in max tokens, and its exact
// token count (Count(prefix) == tokens <= max). It cuts between pre-token
// pieces (words, number groups, punctuation runs, whitespace): the prefix
// holds as many whole pieces as fit. Then, so that a single over-long line
// still yields something, it goes on into the next piece, cutting between
// runes: a binary search finds a long rune prefix of that piece that still
// fits (counts of rune prefixes are not quite monotonic, so it may stop a
// few runes short of the longest). It never splits a rune (an invalid byte
// counts as a rune of its own). max <= 0 gives "".
func Truncate(s string, max int) (prefix string, tokens int) {
	if max <= 0 || len(s) == 0 {
		return "", 0
	}
	raw := stringBytes(s)
	b, valid := raw, utf8.Valid(raw)
	if !valid {
		b = appendValid(make([]byte, 0, len(raw)+len(raw)/2), raw)
	}
	rawOff := func(i int) int {
		if valid {
			return i
		}
		return rawOffset(raw, i)
	}
	t := vocab()
	total := 0
	// The pieces before a run of whitespace pieces are settled whatever
	// follows; the run's own split depends on where the whitespace ends, so
	// a cut inside the piece after it recounts from the run's start.
	spaceStart, spaceTokens := -1, 0
	for i := 0; i < len(b); {
		e, kind := nextPiece(b, i)
		n := 0
		if kind != pieceSkip {
			n = countPiece(t, b[i:e])
		}
		if total+n <= max {
			if kind != pieceSpace {
				spaceStart = -1
			} else if spaceStart < 0 {
				spaceStart, spaceTokens = i, total
			}
			total += n
			i = e
			continue
		}
		base, baseTokens := i, total
		if spaceStart >= 0 {
			base, baseTokens = spaceStart, spaceTokens
		}
		cut, cutTokens := i, total
		// No token is longer than 128 bytes, so text of k tokens is at
		// most 128·k bytes: no cut fitting max lies beyond hi.
		lo, hi := i, min(e, base+128*(max-baseTokens)+1)
		for {
			mid := lo + (hi-lo)/2
			for mid > lo && !utf8.RuneStart(b[mid]) {
				mid--
			}
			if mid == lo {
				_, sz := utf8.DecodeRune(b[lo:])
				mid = lo + sz
			}
			if mid >= hi {
				break
			}
			if k := baseTokens + countValid(t, b[base:mid]); k <= max {
				lo, cut, cutTokens = mid, mid, k
			} else {
				hi = mid
			}
		}
		return s[:rawOff(cut)], cutTokens
	}
	return s, total
}

// rawOffset returns the offset in src of the rune that starts at offset
// off of appendValid(nil, src).
func rawOffset(src []byte, off int) int {
	i, j := 0, 0
	for i < len(src) && j < off {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			j += utf8.RuneLen(utf8.RuneError)
		} else {
			j += n
		}
		i += n
	}
	return i
}
