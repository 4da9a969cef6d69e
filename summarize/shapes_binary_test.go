package summarize

import (
	"strings"
	"testing"
)

func TestBinaryContentIsDescribedNotPrinted(t *testing.T) {
	cases := []struct {
		head  string
		bytes int64
		want  string
	}{
		{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", 20480, "PNG image, 20.0 KiB"},
		{"\x7fELF\x02\x01\x01\x00", 3 << 20, "ELF executable, 3.0 MiB"},
		{"\xde\xad\xbe\xef\x00\x01\x02", 7, "binary data, 7 bytes"},
		{strings.Repeat("\xff\xfe\xfd", 40), 120, "binary data, 120 bytes"},
	}
	for _, c := range cases {
		got := Entry(Input{Kind: "tool", Tool: "bash", Input: "cat f", Head: []byte(c.head), Bytes: c.bytes, Lines: 1})
		if !strings.Contains(got, c.want) || strings.ContainsRune(got, '\uFFFD') {
			t.Errorf("summary %q, want it to contain %q and no replacement characters", got, c.want)
		}
	}
	// Text with a few bad bytes (a latin-1 name in a log) is still text.
	got := Entry(Input{Kind: "tool", Head: []byte("user caf\xe9 logged in\nok\n"), Bytes: 24, Lines: 2})
	if strings.Contains(got, "binary") {
		t.Errorf("text summarised as binary: %q", got)
	}
}
