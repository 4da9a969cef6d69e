package index

import (
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

func TestLongPathFound(t *testing.T) {
	f := newFixture(t, nil)
	long := "/repo/" + strings.Repeat("very_long_directory_name/", 6) + "module_with_a_long_name.py"
	f.add(t, entry{name: "long", project: "lp", session: "lp1", tool: "Read", kind: memex.KindTool,
		input: long, summary: "Read: " + long, content: "x = 1\n"})
	for _, q := range []string{long, long + ":12", "path:" + long} {
		if got := f.names(t, Query{Text: q}); len(got) == 0 || got[0] != "long" {
			t.Errorf("%d-byte path %q: %v", len(q), q, got)
		}
	}
}
