package eval

import "testing"

// TestLazyPatternsCompile compiles every pattern lazyRE defers: a bad one
// panics here rather than on the first output that needs it.
func TestLazyPatternsCompile(t *testing.T) {
	if len(lazyPatterns) == 0 {
		t.Fatal("no lazy pattern registered")
	}
	for i, re := range lazyPatterns {
		if re() == nil || re() != re() {
			t.Errorf("pattern %d: not compiled once", i)
		}
	}
}
