package index

import (
	"strings"
	"testing"
)

// TestSnippetIsCleaned: a snippet of coloured output shows the text, not
// the escape codes around it.
func TestSnippetIsCleaned(t *testing.T) {
	content := []byte("collected 3 items\n\x1b[31mFAILED\x1b[0m tests/test_a.py::\x1b[1mtest_parse\x1b[0m - assert 3 == 4\n")
	if got := snippetOf(content, []string{"test_parse"}); got != "FAILED tests/test_a.py::test_parse - assert 3 == 4" {
		t.Fatalf("snippet %q", got)
	}
}

// TestSnippetCutsAtWords: a snippet of a long line starts and ends at
// whole words, so that an ID near its edge is shown whole or not at all
// (a reader copies IDs from snippets), and it holds the match.
func TestSnippetCutsAtWords(t *testing.T) {
	for pad := 0; pad < 80; pad++ {
		line := "lesson: 01JXRDSBVMHKJ23EXCH369KPY6" + strings.Repeat(" ab", pad/2) + strings.Repeat("c", pad%2) +
			" failed · Bash: uv run pyright · exit 1 ·" + strings.Repeat(" /Users/dain/workspace/claude-code-log/converter.py:184", 8)
		got := snippetOf([]byte(line), []string{"pyright"})
		i := strings.Index(line, got)
		if !strings.Contains(got, "pyright") || i < 0 {
			t.Fatalf("pad %d: snippet %q", pad, got)
		}
		if i > 0 && line[i-1] != ' ' || i+len(got) < len(line) && line[i+len(got)] != ' ' {
			t.Errorf("pad %d: snippet %q cuts a word", pad, got)
		}
		if len(got) > snippetMax {
			t.Errorf("pad %d: %d bytes", pad, len(got))
		}
	}
}
