// Package lazyre holds regular expressions compiled on their first use,
// not at package init: every memex process links the packages that use
// them, and compiling all their patterns up front cost each process (a
// hook, `memex show`) milliseconds of CPU at start, for patterns most
// processes never use.
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

var (
	mu       sync.Mutex
	patterns = map[string]func() *regexp.Regexp{}
)

// New returns pattern's regular expression, compiled on the first call. A
// pattern that does not compile panics then, as regexp.MustCompile does;
// CompileAll finds it in tests first.
func New(pattern string) func() *regexp.Regexp {
	f := sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
	mu.Lock()
	patterns[pattern] = f
	mu.Unlock()
	return f
}

// CompileAll compiles every pattern New was given in this process, and
// says which ones do not compile: a test of each package that defers
// patterns calls it.
func CompileAll() error {
	mu.Lock()
	defer mu.Unlock()
	if len(patterns) == 0 {
		return fmt.Errorf("lazyre: no pattern registered")
	}
	for p := range patterns {
		if _, err := regexp.Compile(p); err != nil {
			return fmt.Errorf("lazyre: %w", err)
		}
	}
	return nil
}
