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
}

// Entry returns the summary line for in: one line, at most MaxLen bytes,
// valid UTF-8.
func Entry(in Input) string {
	var parts []string
	if cmd := oneLine(in.Input); cmd != "" {
		if in.Tool != "" {
			parts = append(parts, in.Tool+": "+cmd)
		} else {
			parts = append(parts, cmd)
		}
	} else if in.Tool != "" {
		parts = append(parts, in.Tool)
	}
	if in.Exit != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *in.Exit))
	}
	if line := firstLine(in.Head); line != "" {
		parts = append(parts, line)
	}
	parts = append(parts, fmt.Sprintf("%d lines", in.Lines))
	return Clip(strings.Join(parts, " · "), MaxLen)
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

// oneLine folds whitespace runs (newlines included) into single spaces and
// replaces invalid UTF-8.
func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Join(strings.Fields(s), " ")
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
