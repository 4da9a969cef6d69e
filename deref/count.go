package deref

import (
	"strconv"
	"unicode/utf8"

	"github.com/memex-archive/memex/summarize"
)

// count is the exact token count of s under memex's tokenizer.
func count(s string) int { return summarize.CountString(s) }

// truncate returns the longest prefix of s, cut on a rune boundary, of at
// most max tokens, with its token count. It binary-searches the cut by
// counting prefixes, so it costs O(log len(s)) counts of at most len(s)
// bytes; callers pass pieces bounded by what a budget can hold.
func truncate(s string, max int) (string, int) {
	if max <= 0 || s == "" {
		return "", 0
	}
	if n := count(s); n <= max {
		return s, n
	}
	lo, hi := 0, len(s) // count(s[:lo]) <= max < count(s[:hi])
	best := 0
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		for mid > lo && !utf8.RuneStart(s[mid]) {
			mid--
		}
		if mid == lo {
			// No rune start strictly between lo and hi: step to the
			// next one above instead.
			mid = lo + 1
			for mid < hi && !utf8.RuneStart(s[mid]) {
				mid++
			}
			if mid >= hi {
				break
			}
		}
		if n := count(s[:mid]); n <= max {
			lo, best = mid, n
		} else {
			hi = mid
		}
	}
	return s[:lo], best
}

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
