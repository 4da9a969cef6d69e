package api

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
)

// WriteEntryJSON streams what encoding EntryJSON gives, byte for byte.
func TestWriteEntryJSONMatchesEncoding(t *testing.T) {
	e := memex.Entry{ID: memex.NewID(time.Unix(1, 0)), Kind: memex.KindTool, Tool: "bash", Input: "a <b> & c", Exit: memex.IntPtr(1)}
	long := strings.Repeat("héllo \"wörld\" \\ <tag> & \u2028\u2029\x00\x1f\t\b\f\r\n", 9000) // over a 64 KiB chunk, runes cut at its edges
	for _, body := range [][]byte{nil, []byte("plain\n"), []byte(long), []byte("ok\xffbinary"), append([]byte(long), 0xff)} {
		for _, indent := range []string{"", "  "} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if indent != "" {
				enc.SetIndent("", indent)
			}
			out := WithContent(e, body)
			out.Range = "2:3"
			if err := enc.Encode(out); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			open := func() (io.ReadCloser, error) { return io.NopCloser(iotestHalf(body)), nil }
			if err := WriteEntryJSON(&got, e, "2:3", open, indent); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				g, w := got.String(), want.String()
				i := 0
				for i < len(g) && i < len(w) && g[i] == w[i] {
					i++
				}
				t.Fatalf("indent %q, %d-byte body: differs at %d: got %q, want %q", indent, len(body), i, g[max(0, i-20):min(len(g), i+40)], w[max(0, i-20):min(len(w), i+40)])
			}
		}
	}
}

// iotestHalf reads b in reads of odd sizes, so that chunks end inside runes.
func iotestHalf(b []byte) io.Reader { return &oddReader{b: b} }

type oddReader struct {
	b []byte
	n int
}

func (r *oddReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	r.n++
	k := min(len(p), len(r.b), 1000+r.n*7)
	copy(p, r.b[:k])
	r.b = r.b[k:]
	return k, nil
}
