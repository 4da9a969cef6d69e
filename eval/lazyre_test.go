package eval

import (
	"testing"

	"github.com/memex-archive/memex/internal/lazyre"
)

// TestLazyPatternsCompile compiles every pattern lazyre.New defers: a bad one
// fails here rather than on the first input that needs it.
func TestLazyPatternsCompile(t *testing.T) {
	if err := lazyre.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
