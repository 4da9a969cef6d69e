package summarize

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// binaryData describes content that is not text (an image, an archive, an
// executable, random bytes): its type when a magic number says it, and its
// size. Printing its bytes into a summary line would only show garbage.
func binaryData(d *doc) string {
	head := d.in.Head
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	if !looksBinary(head) {
		return ""
	}
	what := "binary data"
	for _, m := range magics {
		if bytes.HasPrefix(d.in.Head, m.prefix) {
			what = m.name
			break
		}
	}
	return fmt.Sprintf("%s, %s", what, ByteSize(d.in.Bytes))
}

// looksBinary: a NUL byte, or more than one byte in ten outside valid
// UTF-8 text (a cut at the end of the sample is not held against it).
func looksBinary(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if utf8.Valid(b) {
		// Nothing outside valid UTF-8 (what most outputs are), found
		// at utf8.Valid's speed instead of rune by rune.
		return false
	}
	bad := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) {
				break
			}
			bad++
		}
		i += n
	}
	return bad*10 > len(b)
}

var magics = []struct {
	prefix []byte
	name   string
}{
	{[]byte("\x89PNG\r\n\x1a\n"), "PNG image"},
	{[]byte("\xff\xd8\xff"), "JPEG image"},
	{[]byte("GIF8"), "GIF image"},
	{[]byte("%PDF-"), "PDF document"},
	{[]byte("PK\x03\x04"), "zip archive"},
	{[]byte("\x1f\x8b"), "gzip data"},
	{[]byte("\x28\xb5\x2f\xfd"), "zstd data"},
	{[]byte("\x7fELF"), "ELF executable"},
	{[]byte("SQLite format 3\x00"), "SQLite database"},
}

// Plural is n and word, plural when n is not 1: "1 line", "3 lines",
// "2 entries".
func Plural(n int, word string) string { return strconv.Itoa(n) + " " + PluralWord(n, word) }

// PluralWord is word as n of it are named: "line", "lines", "entries".
func PluralWord(n int, word string) string {
	if n == 1 {
		return word
	}
	if k := len(word) - 1; k > 0 && word[k] == 'y' && !strings.ContainsRune("aeiou", rune(word[k-1])) {
		return word[:k] + "ies"
	}
	return word + "s"
}

// Commas formats n with thousands separators: "2,210".
func Commas(n int) string {
	if n < 0 {
		return "-" + Commas(-n)
	}
	s := strconv.Itoa(n)
	if len(s) <= 3 {
		return s
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	pre := len(s) % 3
	if pre > 0 {
		out = append(out, s[:pre]...)
	}
	for i := pre; i < len(s); i += 3 {
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = append(out, s[i:i+3]...)
	}
	return string(out)
}

// ByteSize renders a byte count for people: "512 bytes", "20.0 KiB",
// "3.1 MiB", "2.0 GiB".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
