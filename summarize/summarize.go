// Package summarize holds pure functions over entry content: the short,
// structured, deterministic summary line of an entry, and token counting
// under memex's one tokenizer.
//
// Nothing here does I/O, keeps state between calls or needs a network: a
// summary is computed once, at write time, from the entry's metadata and a
// bounded head and tail of its body, and stored with the entry.
package summarize

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memex-archive/memex"
)

// HeadLimit and TailLimit bound how much of a body a summary looks at. A
// writer passes at most HeadLimit bytes from the start and, for longer
// bodies, at most TailLimit bytes from the end.
const (
	HeadLimit = 64 << 10
	TailLimit = 16 << 10
)

// MaxLen is the longest summary line, in bytes.
const MaxLen = 200

// Input is what a summary is computed from.
type Input struct {
	Kind  memex.Kind
	Tool  string
	Input string // the command or tool arguments
	Exit  *int

	Head  []byte // the first min(Bytes, HeadLimit) bytes of the body
	Tail  []byte // the last bytes of the body when Head does not cover it, else nil
	Bytes int64  // total body size
	Lines int64  // total line count

	// Tally, when the writer fed it the whole body, gives the counts
	// (tests passed and failed, ...) of all of it; without one they are
	// counted over Head and Tail.
	Tally *Tally
}

// Entry returns the summary line for in: one line, at most MaxLen bytes,
// valid UTF-8. It names the command or tool input and the exit status when
// known, then what matters for the content's shape: test counts and the
// first failure, compiler errors with file:line, the exception and its
// project frame, files touched by a diff or edit, the path and symbols of a
// file read, match and file counts of a search, the URL and title of a
// fetch, the first sentence of prose. Content of no known shape gets its
// first line and line count. Entry is deterministic and does no I/O.
func Entry(in Input) string {
	d := newDoc(in)
	fact := summaryFor(d)
	var parts []string
	cmdLimit := MaxLen
	if fact != "" {
		// The fact is what the reader came for; a long command must not
		// push it out of the line.
		cmdLimit = 80
	}
	if d.cmd != "" && !prose(in.Kind) {
		if in.Tool != "" {
			parts = append(parts, Clip(in.Tool+": "+d.cmd, cmdLimit))
		} else {
			parts = append(parts, Clip(d.cmd, cmdLimit))
		}
	} else if in.Tool != "" {
		parts = append(parts, in.Tool)
	}
	if d.exit != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *d.exit))
	}
	if fact != "" {
		parts = append(parts, oneLine(fact))
	} else {
		if line := firstLine([]byte(d.text)); line != "" {
			parts = append(parts, line)
		}
		parts = append(parts, Plural(int(in.Lines), "line"))
	}
	return Clip(oneLine(strings.Join(parts, " · ")), MaxLen)
}

func prose(k memex.Kind) bool {
	return k == memex.KindReasoning || k == memex.KindMessage || k == memex.KindNote
}

func firstLine(b []byte) string {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if s := oneLine(string(line)); s != "" {
			return s
		}
	}
	return ""
}

// oneLine folds whitespace runs (newlines included) into single spaces,
// drops terminal escapes and control characters (Clean) and replaces
// invalid UTF-8.
func oneLine(s string) string {
	return joinFields(strings.ToValidUTF8(Clean(s), "\uFFFD"))
}

// joinFields is strings.Join(strings.Fields(s), " ") for valid UTF-8 s, in
// one pass and without the slice of fields: s itself when its words are
// already one space apart with none around them. A command of a tool
// input (a heredoc that writes a file) can be tens of kilobytes.
func joinFields(s string) string {
	// Find the first byte that needs a change: a space that is not one
	// ' ' between two words.
	i, word := 0, false
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				if c != ' ' || !word || i+1 == len(s) || isSpaceAt(s, i+1) {
					break
				}
				word = false
			} else {
				word = true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			break
		}
		word = true
		i += n
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	// b ends in a word or a space (the one before s[i]) or is empty.
	pending := len(b) > 0 && b[len(b)-1] == ' '
	if pending {
		b = b[:len(b)-1]
	}
	for i < len(s) {
		c := s[i]
		n := 1
		space := false
		if c < utf8.RuneSelf {
			space = asciiSpace[c]
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
		}
		if space {
			pending = len(b) > 0
		} else {
			if pending {
				b = append(b, ' ')
				pending = false
			}
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// asciiSpace is what strings.Fields (and unicode.IsSpace) calls space
// below utf8.RuneSelf.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// isSpaceAt reports whether the rune at s[i] is a space.
func isSpaceAt(s string, i int) bool {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiSpace[c]
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// Clip shortens s to at most n bytes on a rune boundary, ending in "…" when
// it cut anything.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	cut := n - len(ell)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + ell
}
