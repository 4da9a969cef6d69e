package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestSearchIdentifierFindsDefinition: `memex search generate_html` puts
// the entry that defines it first, though the html_generator module's
// entries name its parts more often; a question in words finds the run it
// asks about, not the message richest in its function words.
func TestSearchIdentifierFindsDefinition(t *testing.T) {
	home := t.TempDir()
	for i := 0; i < 9; i++ {
		addEntry(t, home, "\"\"\"Generate HTML: the html_generator module.\"\"\"\nfrom .html_generator import render\n",
			"--tool", "Read", "--input", "claude_code_log/html_generator.py", "--session", "s1")
	}
	addEntry(t, home, "from claude_code_log.converter import generate_html\nhtml = generate_html(messages)\n",
		"--tool", "Read", "--input", "test/test_browser.py", "--session", "s1")
	var conv strings.Builder
	for i := 1; i < 300; i++ {
		fmt.Fprintf(&conv, "# line %d of the converter\n", i)
	}
	conv.WriteString("def generate_html(messages, title=None) -> str:\n    return render(messages)\n")
	def := addEntry(t, home, conv.String(), "--tool", "Read", "--input", "claude_code_log/converter.py", "--session", "s1")
	if got := searchIDs(t, home, "generate_html"); len(got) == 0 || got[0] != def {
		t.Errorf("generate_html: %v, want %s first", got, def)
	}

	mig := addEntry(t, home, "Running migrations...\nERROR: relation \"users\" already exists\n",
		"--tool", "bash", "--input", "alembic upgrade head", "--exit", "1", "--session", "s2")
	addEntry(t, home, "What do we do when we run out of ideas? We ran to the shop, and then what did we do?", "--kind", "message", "--session", "s2")
	if got := searchIDs(t, home, "what failed when we ran the migrations"); len(got) == 0 || got[0] != mig {
		t.Errorf("question: %v, want %s first", got, mig)
	}
}
