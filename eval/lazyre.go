package eval

import (
	"regexp"
	"sync"
)

// lazyRE returns a regular expression compiled on its first use, not at
// package init: every memex process links this package, and compiling its
// patterns up front cost each one (a hook, `memex show`) about a millisecond
// of CPU at start, most of them never used by that process.
func lazyRE(pattern string) func() *regexp.Regexp {
	f := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
	lazyPatterns = append(lazyPatterns, f)
	return f
}

// lazyPatterns holds every lazyRE, for the test that compiles them all (a
// bad pattern would otherwise show only when first used).
var lazyPatterns []func() *regexp.Regexp
