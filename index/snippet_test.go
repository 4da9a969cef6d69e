package index

import "testing"

// TestSnippetIsCleaned: a snippet of coloured output shows the text, not
// the escape codes around it.
func TestSnippetIsCleaned(t *testing.T) {
	content := []byte("collected 3 items\n\x1b[31mFAILED\x1b[0m tests/test_a.py::\x1b[1mtest_parse\x1b[0m - assert 3 == 4\n")
	if got := snippetOf(content, []string{"test_parse"}); got != "FAILED tests/test_a.py::test_parse - assert 3 == 4" {
		t.Fatalf("snippet %q", got)
	}
}
