package index

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestExcerptSmallIsWhole(t *testing.T) {
	in := []byte("line one\nline two without newline")
	got, err := Excerpt(bytes.NewReader(in))
	if err != nil || !bytes.Equal(got, in) {
		t.Fatalf("Excerpt = %q, %v", got, err)
	}
}

func TestExcerptLargeKeepsHeadErrorsTail(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 4<<20; i++ {
		switch {
		case i == 50000:
			b.WriteString("ERROR: connection refused to db:5432 in the middle\n")
		case i == 60000:
			b.WriteString(strings.Repeat("x", 200<<10) + " error in a very long line\n")
		default:
			fmt.Fprintf(&b, "ok step %d done\n", i)
		}
	}
	b.WriteString("FAIL: the very last line\n")
	got, err := Excerpt(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > ContentLimit {
		t.Fatalf("excerpt is %d bytes, limit %d", len(got), ContentLimit)
	}
	s := string(got)
	for _, want := range []string{"ok step 0 done\n", "ERROR: connection refused to db:5432 in the middle\n", "FAIL: the very last line\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("excerpt lacks %q", want)
		}
	}
	if strings.Count(s, "FAIL: the very last line") != 1 {
		t.Errorf("tail error line kept twice")
	}
	if !strings.HasPrefix(s, b.String()[:ExcerptHead]) {
		t.Errorf("excerpt does not start with the head")
	}
}

func TestPaths(t *testing.T) {
	got := Paths(`{"file_path":"/repo/internal/auth/middleware.go"}`,
		[]byte("see ./cmd/main.go:12:3 and https://example.com/a/b.go, README.md; src/a.py:88:def x; os.path.join -v 1/2"))
	want := []string{
		"repo/internal/auth/middleware.go", "internal/auth/middleware.go", "auth/middleware.go", "middleware.go",
		"cmd/main.go", "main.go", "README.md", "src/a.py", "a.py",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Paths = %q\nwant %q", got, want)
	}
}

// A catch-up holds thousands of excerpts at once: one of a small body must
// not keep a buffer of ExcerptHead bytes alive.
func TestExcerptHoldsNoMoreThanItsLength(t *testing.T) {
	for _, n := range []int{0, 300, 5000, 70000, ExcerptHead - 1} {
		body := bytes.Repeat([]byte("line of output\n"), n/15+1)[:n]
		got, err := Excerpt(iotest.OneByteReader(bytes.NewReader(body)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("%d bytes: excerpt is not the whole body", n)
		}
		if slack := cap(got) - len(got); slack > len(got)/8+512 {
			t.Errorf("%d bytes: excerpt keeps %d bytes of capacity beyond its length", n, slack)
		}
	}
}
