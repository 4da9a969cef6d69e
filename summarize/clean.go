package summarize

import "unicode/utf8"

// Clean returns s as a terminal would have shown it, for the text memex
// derives from content (summaries, search snippets, context lines): ANSI
// escape sequences (colours, cursor moves, OSC titles and links) removed, a
// carriage return that redraws a line (progress bars) keeping what was
// drawn last, a backspace erasing the character before it, other control
// characters dropped. Newlines and tabs stay; invalid UTF-8 is kept as it
// is. The archive keeps the exact bytes: Clean is for what is shown about
// them, never for what is stored. s itself is returned when there is
// nothing to remove, without allocating.
func Clean(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	out := make([]byte, 0, len(s))
	out = append(out, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b:
			i = escapeEnd(s, i) - 1
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				continue // CRLF: the newline follows
			}
			if i+1 == len(s) {
				continue
			}
			// The line is drawn again from its start: keep the redraw.
			if nl := lastNewline(out); nl >= 0 {
				out = out[:nl+1]
			} else {
				out = out[:0]
			}
		case c == '\b':
			if len(out) > 0 && out[len(out)-1] != '\n' {
				_, n := utf8.DecodeLastRune(out)
				out = out[:len(out)-n]
			}
		case c < 0x20 && c != '\n' && c != '\t' || c == 0x7f:
		default:
			out = append(out, c)
		}
	}
	return string(out)
}

func lastNewline(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return i
		}
	}
	return -1
}

// escapeEnd returns the index just past the escape sequence at s[i]
// (s[i] == ESC): CSI (ESC [ params final), OSC (ESC ] ... BEL or ESC \),
// or a two-byte escape.
func escapeEnd(s string, i int) int {
	if i+1 >= len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '[':
		j := i + 2
		for j < len(s) && s[j] >= 0x20 && s[j] <= 0x3f {
			j++
		}
		if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
			j++
		}
		return j
	case ']', 'P', '_', '^':
		// OSC, DCS, APC, PM: up to BEL or the string terminator ESC \.
		for j := i + 2; j < len(s); j++ {
			if s[j] == 0x07 {
				return j + 1
			}
			if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
				return j + 2
			}
			if s[j] == '\n' {
				return j
			}
		}
		return len(s)
	}
	return i + 2
}
