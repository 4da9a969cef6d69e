package summarize

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer cuts text into the pieces that cl100k_base's split
// pattern matches, one after another:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// as the reference (tiktoken-go/tokenizer's regexp2 program) runs it. Every
// rune falls in exactly one of five classes, and each alternative is a run of
// classes, so a hand-written scanner replaces the backtracking regexp:
//
//   - \p{L} is unicode.IsLetter, \p{N} unicode.IsNumber, \s unicode.IsSpace
//     (the tables the reference's program calls);
//   - the contractions are case-insensitive as .NET folds them: 's also
//     matches 'S and 'ſ (U+017F LATIN SMALL LETTER LONG S);
//   - \s*[\r\n]+ ends at the end of the FIRST run of \r and \n in the
//     whitespace run. That is what the reference does (its generated
//     backtracking code searches forward), although the pattern read as a
//     regular expression would end at the last one: "\n \n" is two pieces
//     here and in the reference, one piece in OpenAI's Python tiktoken;
//   - \s+(?!\S) takes a whole whitespace run at the end of the text, else all
//     of it but its last rune, which then starts the next piece;
//   - U+007F DELETE matches no alternative: the reference's program tests
//     ASCII against bitmaps that leave out 127. The regexp then skips it, so
//     a DELETE counts no token and only separates pieces.
//
// The scanner works on valid UTF-8 only; Count replaces invalid bytes first,
// as the reference does.

// Rune classes. Every rune is in exactly one.
const (
	clsOther     uint8 = iota // [^\s\p{L}\p{N}]: punctuation, symbols, marks, controls, U+FFFD
	clsLetter                 // \p{L}
	clsNumber                 // \p{N}
	clsSpace                  // \s but \r and \n
	clsNewline                // \r and \n
	clsSkip                   // U+007F, which no alternative matches
	clsMultibyte              // not a class: asciiClass's mark for bytes >= 128
)

// Piece kinds, as nextPiece reports them.
const (
	pieceText  uint8 = iota // a piece that contains a rune other than whitespace
	pieceSpace              // whitespace only: \s*[\r\n]+, \s+(?!\S) or \s+
	pieceSkip               // a run of U+007F, matched by nothing, no token
)

// asciiClass classifies the ASCII bytes, the fast path; a byte from 128 up
// is clsMultibyte, a rune that must be decoded.
var asciiClass = func() (t [256]uint8) {
	for r := range rune(len(t)) {
		t[r] = clsMultibyte
		if r < utf8.RuneSelf {
			t[r] = classOfRune(r)
		}
	}
	return t
}()

func classOfRune(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return clsNewline
	case r == 0x7f:
		return clsSkip
	case unicode.IsLetter(r):
		return clsLetter
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return clsOther
}

// classAt returns the class and width of the rune at b[i]; small enough to
// inline the ASCII case.
func classAt(b []byte, i int) (uint8, int) {
	if cl := asciiClass[b[i]]; cl != clsMultibyte {
		return cl, 1
	}
	return classAtRune(b, i)
}

func classAtRune(b []byte, i int) (uint8, int) {
	r, n := utf8.DecodeRune(b[i:])
	if r < 1<<16 {
		return bmpClass[r], n
	}
	return classOfRune(r), n
}

// bmpClass is classOfRune for the Basic Multilingual Plane, where nearly all
// non-ASCII text lives, so that the Unicode path is one table lookup too
// (64 KiB, filled from the Unicode range tables at start-up in about 0.1 ms).
var bmpClass = func() *[1 << 16]uint8 {
	t := new([1 << 16]uint8) // clsOther is 0
	fill := func(tab *unicode.RangeTable, cls uint8) {
		for _, r := range tab.R16 {
			for c := int(r.Lo); c <= int(r.Hi); c += int(r.Stride) {
				t[c] = cls
			}
		}
	}
	// The classes are disjoint, but for \r, \n and U+007F, set last.
	fill(unicode.L, clsLetter)
	fill(unicode.N, clsNumber)
	fill(unicode.White_Space, clsSpace)
	t['\r'], t['\n'], t[0x7f] = clsNewline, clsNewline, clsSkip
	return t
}()

// nextPiece returns the end and the kind of the piece that starts at b[i],
// i < len(b).
func nextPiece(b []byte, i int) (end int, kind uint8) {
	c := b[i]
	cls, size := asciiClass[c], 1
	if cls == clsMultibyte {
		cls, size = classAtRune(b, i)
	}
	j := i + size
	switch cls {
	case clsLetter:
		return letterRun(b, j), pieceText
	case clsNumber:
		for k := 1; k < 3 && j < len(b); k++ {
			cl, sz := classAt(b, j)
			if cl != clsNumber {
				break
			}
			j += sz
		}
		return j, pieceText
	case clsOther:
		// classAt is spelled out below: it is too costly for the
		// compiler to inline (87 > 80), and this is the hottest loop of
		// token counting.
		if c == '\'' {
			if e := contraction(b, i); e > 0 {
				return e, pieceText
			}
		}
		if j < len(b) {
			cl, sz := asciiClass[b[j]], 1
			if cl == clsMultibyte {
				cl, sz = classAtRune(b, j)
			}
			if cl == clsLetter {
				return letterRun(b, j+sz), pieceText
			}
		}
		return otherRun(b, j), pieceText
	case clsSpace:
		if j < len(b) {
			cl, sz := asciiClass[b[j]], 1
			if cl == clsMultibyte {
				cl, sz = classAtRune(b, j)
			}
			if cl == clsLetter {
				return letterRun(b, j+sz), pieceText
			}
			if c == ' ' && cl == clsOther {
				return otherRun(b, j+sz), pieceText
			}
		}
	case clsSkip:
		for j < len(b) && b[j] == 0x7f {
			j++
		}
		return j, pieceSkip
	}
	return spaceRun(b, i), pieceSpace
}

// contraction returns the end of the contraction that starts with the
// apostrophe at b[i], or 0.
func contraction(b []byte, i int) int {
	if i+1 >= len(b) {
		return 0
	}
	switch b[i+1] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return i + 2
	case 'r', 'R', 'v', 'V':
		if i+2 < len(b) && b[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l', 'L':
		if i+2 < len(b) && b[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xC5: // ſ is C5 BF
		if i+2 < len(b) && b[i+2] == 0xBF {
			return i + 3
		}
	}
	return 0
}

// letterRun returns the end of the run of letters from b[j].
func letterRun(b []byte, j int) int {
	for j < len(b) {
		c := b[j]
		if c < utf8.RuneSelf {
			if asciiClass[c] != clsLetter {
				return j
			}
			j++
			continue
		}
		if cl, n := classAtRune(b, j); cl == clsLetter {
			j += n
			continue
		}
		return j
	}
	return j
}

// otherRun returns the end of [^\s\p{L}\p{N}]*[\r\n]* from b[j].
func otherRun(b []byte, j int) int {
	for j < len(b) {
		c := b[j]
		if c < utf8.RuneSelf {
			if asciiClass[c] != clsOther {
				break
			}
			j++
			continue
		}
		if cl, n := classAtRune(b, j); cl == clsOther {
			j += n
			continue
		}
		break
	}
	for j < len(b) && (b[j] == '\r' || b[j] == '\n') {
		j++
	}
	return j
}

// spaceRun returns the end of the whitespace piece at b[i]: through the
// first run of \r and \n if the whitespace run has one; else the whole run
// at the end of the text or when it is one rune long; else all of it but its
// last rune.
func spaceRun(b []byte, i int) int {
	j, last := i, i
	for j < len(b) {
		c := b[j]
		if c == '\r' || c == '\n' {
			for j++; j < len(b) && (b[j] == '\r' || b[j] == '\n'); j++ {
			}
			return j
		}
		cl, n := asciiClass[c], 1
		if cl == clsMultibyte {
			cl, n = classAtRune(b, j)
		}
		if cl != clsSpace {
			break
		}
		last = j
		j += n
	}
	if j == len(b) || last == i {
		return j
	}
	return last
}
