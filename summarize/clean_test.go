package summarize

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCleanGolden cleans terminal output (testdata/clean/*.txt: colours,
// progress bars redrawn with \r, OSC titles and links, backspaces, stray
// control bytes) and compares with testdata/clean/*.golden.
func TestCleanGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/clean/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			in, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := Clean(string(in))
			for _, c := range got {
				if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
					t.Errorf("control character %q left in %q", c, got)
				}
			}
			checkGolden(t, f, got)
			if again := Clean(got); again != got {
				t.Errorf("Clean is not idempotent: %q", again)
			}
		})
	}
}

func TestCleanKeepsPlainTextAsIs(t *testing.T) {
	for _, s := range []string{"", "plain\ttext\nlines\n", "ünïcödé ✓", "\xff\xfe invalid"} {
		if got := Clean(s); got != s {
			t.Errorf("Clean(%q) = %q", s, got)
		}
	}
	if got := Clean("a\x1b"); got != "a" {
		t.Errorf("trailing ESC: %q", got)
	}
}
