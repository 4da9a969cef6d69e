package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// countingBody stands for internal/redact's Reader: a body that knows, once
// read, how many credentials it replaced.
type countingBody struct {
	io.Reader
	n int
}

func (c *countingBody) Redacted() int { return c.n }

// TestAddStoresTheBodysRedactedCount: the count a body reports after EOF is
// added to the entry's own (its fields') and stored with the metadata.
func TestAddStoresTheBodysRedactedCount(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got, err := s.Add(ctx, memex.Entry{Input: "env", Redacted: 1}, &countingBody{Reader: bytes.NewReader([]byte("A=[REDACTED:token]\n")), n: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Redacted != 3 {
		t.Fatalf("Add returned Redacted %d, want 3", got.Redacted)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(dir, nil); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	e, err := s.Get(ctx, got.ID)
	if err != nil || e.Redacted != 3 {
		t.Fatalf("stored Redacted %d, %v; want 3", e.Redacted, err)
	}
	plain := add(t, s, memex.Entry{}, []byte("nothing\n"))
	if plain.Redacted != 0 {
		t.Fatalf("plain body: Redacted %d", plain.Redacted)
	}
}

// TestAddSummaryCountsTheWholeBody: the summary of a body far longer than
// the head and tail a summary reads counts all of it.
func TestAddSummaryCountsTheWholeBody(t *testing.T) {
	s := openMem(t)
	var b bytes.Buffer
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&b, "=== RUN   TestCase%04d\n--- PASS: TestCase%04d (0.00s)\n", i, i)
	}
	b.WriteString("PASS\nok  \texample.com/pkg\t1.234s\n")
	e, err := s.Add(context.Background(), memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "go test -v ./..."}, &b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.Summary, "go test: 0 failed, 4000 passed") {
		t.Fatalf("summary %q", e.Summary)
	}
}
