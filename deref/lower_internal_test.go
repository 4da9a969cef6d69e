package deref

import (
	"bytes"
	"testing"
)

func FuzzLowerInto(f *testing.F) {
	f.Add([]byte("Hello, WORLD! @[`{ AZaz \xc3\x84 \xff\x80"))
	f.Add([]byte("ABCDEFGHIJKLMNOPQRSTUVWXYZ@[ 0123456789"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := lowerInto(nil, b)
		want := make([]byte, len(b))
		for i, c := range b {
			want[i] = lowerTab[c]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("lowerInto(%q) = %q, want %q", b, got, want)
		}
	})
}
