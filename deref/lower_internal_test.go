package deref

import (
	"bytes"
	"reflect"
	"testing"
)

func FuzzLowerLines(f *testing.F) {
	f.Add([]byte("Hello, WORLD! @[`{ AZaz \xc3\x84 \xff\x80"))
	f.Add([]byte("ABCDEFGHIJKLMNOPQRSTUVWXYZ@[ 0123456789"))
	f.Add([]byte("one\ntwo\n\n\nTHREE\n\x0a\x8a\x0b\x09four"))
	f.Add([]byte("\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, starts := lowerLines([]byte("kept"), b, nil)
		want := []byte("kept")
		wantStarts := []int{0}
		for i, c := range b {
			want = append(want, lowerTab[c])
			if c == '\n' && i+1 < len(b) {
				wantStarts = append(wantStarts, i+1)
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("lowerLines(%q) = %q, want %q", b, got, want)
		}
		if !reflect.DeepEqual(starts, wantStarts) {
			t.Fatalf("lowerLines(%q) starts = %v, want %v", b, starts, wantStarts)
		}
	})
}
