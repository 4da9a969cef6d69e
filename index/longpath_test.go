package index

import (
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// TestLongPathFound: a path is found however deep, as FTS5 finds it: by
// itself, with a line number, by the path filter and as a phrase, in the
// command and in the output. Past 128 bytes it is no term; past 200 the
// path filter holds its longest suffix under that; past 256 bytes the run
// is split at its slashes (a run that long is otherwise skipped as
// base64).
func TestLongPathFound(t *testing.T) {
	for _, dirs := range []int{4, 6, 8, 10, 14, 40} {
		long := "/repo/" + strings.Repeat("very_long_directory_name/", dirs) + "module_with_a_long_name.py"
		for _, where := range []string{"input", "content"} {
			f := newFixture(t, nil)
			e := entry{name: "long", project: "lp", session: "lp1", tool: "Read", kind: memex.KindTool,
				input: long, summary: "Read: " + long, content: "x = 1\n"}
			if where == "content" {
				e.tool, e.input, e.summary = "Bash", "python run.py", "python run.py"
				e.content = "Traceback (most recent call last):\n  File \"" + long + "\", line 12, in <module>\n"
			}
			f.add(t, e)
			f.add(t, entry{name: "other", project: "lp", session: "lp1", tool: "Read", kind: memex.KindTool,
				input: "/repo/very_long_directory_name/other.py", summary: "Read: other.py", content: "y = 2\n"})
			for _, q := range []string{long, long + ":12", "path:" + long, `"` + long + `"`, "module_with_a_long_name.py"} {
				if got := f.names(t, Query{Text: q}); len(got) == 0 || got[0] != "long" {
					t.Errorf("%d-byte path in %s, query %.40q…: %v", len(long), where, q, got)
				}
			}
		}
	}
}
