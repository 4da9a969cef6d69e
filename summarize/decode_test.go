package summarize

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestDecodeObjectAsEncodingJSON: a tool input decodes as json.Unmarshal
// decodes it into a map[string]any, or fails where it fails.
func TestDecodeObjectAsEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"command":"ls -la","description":"list"}`,
		`{"file_path":"/a/b.go","old_string":"x\ty","new_string":"\u00e9\ud83d\ude00"}`,
		`{"edits":[{"old_string":"a","new_string":"b"},{"old_string":"c"}],"n":1.5e3,"big":12345678901234567890}`,
		`{"a":1,"a":2}`, `{"a":{"x":1},"a":{"y":2}}`, "{\"a\":\"\xff\"}", `{"a":"\ud800"}`, `{"a":null}`, `{}`,
		`{"a":1} x`, `{"a":1,}`, `{"a":"tab	in"}`, `{"a":01}`, `{"a":"\q"}`, `{"a"}`, `{`, `{"a":[1,2,,3]}`,
	} {
		var want map[string]any
		werr := json.Unmarshal([]byte(in), &want)
		got, ok := decodeObject([]byte(in))
		if ok != (werr == nil) || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) {
			t.Errorf("%q: %#v %v, encoding/json %#v %v", in, got, ok, want, werr)
		}
	}
}

// TestLooksBinaryValidUTF8: text of valid UTF-8, whatever its letters, is
// not binary; a NUL or many invalid bytes are.
func TestLooksBinaryValidUTF8(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"plain ascii\n", false}, {"é ü 😀 \ufffd", false}, {"a\x00b", true}, {"\xff\xfe\xfd\xfc", true},
		{"mostly text with one bad byte \xff here and more text after it", false}, {"cut at the end \xe2\x82", false},
	} {
		if got := looksBinary([]byte(c.in)); got != c.want {
			t.Errorf("looksBinary(%q) = %v", c.in, got)
		}
	}
}
