package index

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
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
