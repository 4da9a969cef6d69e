package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShowBinary: --json carries binary content as content_base64 alone
// and text, empty text included, as content alone; --budget prints a note
// instead of a binary entry's bytes, and show without it the bytes.
func TestShowBinary(t *testing.T) {
	home := t.TempDir()
	bin := []byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff, '\n', 0x80}
	add := func(body []byte) string {
		r := run(t, home, body, "add", "-")
		if r.code != 0 {
			t.Fatalf("add: %+v", r)
		}
		return strings.TrimSpace(r.stdout)
	}
	binID, emptyID, textID := add(bin), add(nil), add([]byte("text\n"))
	for _, c := range []struct {
		id, content, base64 string
		hasContent          bool
	}{
		{binID, "", "f0VMRgABAv8KgA==", false},
		{emptyID, "", "", true},
		{textID, "text\n", "", true},
	} {
		r := run(t, home, nil, "show", c.id, "--json")
		var got map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
			t.Fatalf("show %s --json: %+v (%v)", c.id, r, err)
		}
		content, hasContent := got["content"]
		b64, _ := got["content_base64"].(string)
		if hasContent != c.hasContent || hasContent && content != c.content || b64 != c.base64 {
			t.Errorf("show %s --json: content %q (present %v), content_base64 %q; want %q (present %v), %q",
				c.id, content, hasContent, b64, c.content, c.hasContent, c.base64)
		}
	}

	want := "[memex: binary content (10 bytes) not shown; memex show " + binID + " > FILE saves it]\n"
	if r := run(t, home, nil, "show", binID, "--budget", "500"); r.code != 0 || r.stdout != want {
		t.Errorf("show binary --budget: %+v; want %q", r, want)
	}
	if r := run(t, home, nil, "show", binID); r.code != 0 || r.stdout != string(bin) {
		t.Errorf("show binary: %+v", r)
	}
	if r := run(t, home, nil, "show", textID, "--budget", "500"); r.code != 0 || r.stdout != "text\n" {
		t.Errorf("show text --budget: %+v", r)
	}
}
