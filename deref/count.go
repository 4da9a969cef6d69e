package deref

import (
	"github.com/memex-archive/memex/summarize"
)

// count is the exact token count of s under memex's tokenizer.
func count(s string) int { return summarize.CountString(s) }

// truncate returns the longest prefix of s of at most max tokens, cut on a
// rune boundary, with its exact token count.
func truncate(s string, max int) (string, int) { return summarize.Truncate(s, max) }

// commas formats n with thousands separators ("2,210"), as markers show it.
func commas(n int) string { return summarize.Commas(n) }
