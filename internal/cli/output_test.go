package cli

import (
	"strings"
	"testing"
)

// Off a terminal there is no bar: Counter, as Progress, is nil.
func TestCounterOffATerminal(t *testing.T) {
	if Counter(&strings.Builder{}, "reindex", false) != nil || Progress(&strings.Builder{}, "ingest", false) != nil {
		t.Error("a progress bar on a writer that is not a terminal")
	}
}
