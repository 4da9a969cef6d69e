package deref

import (
	"strconv"

	"github.com/memex-archive/memex/summarize"
)

// count is the exact token count of s under memex's tokenizer.
func count(s string) int { return summarize.CountString(s) }

// truncate returns the longest prefix of s of at most max tokens, cut on a
// rune boundary, with its exact token count.
func truncate(s string, max int) (string, int) { return summarize.Truncate(s, max) }

// commas formats n with thousands separators ("2,210"), as markers show it.
func commas(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + commas(-n)
	}
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
