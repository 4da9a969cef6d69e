package summarize

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// headTail is what a writer passes a summary of body, with tally fed the
// whole body in pieces of random sizes.
func headTail(body []byte, tally *Tally, rng *rand.Rand) Input {
	in := Input{Bytes: int64(len(body)), Lines: int64(bytes.Count(body, []byte("\n")))}
	in.Head = body[:min(len(body), HeadLimit)]
	if len(body) > HeadLimit {
		in.Tail = body[len(body)-TailLimit:]
	}
	if tally != nil {
		for rest := body; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(70000))
			tally.Write(rest[:n])
			rest = rest[n:]
		}
		in.Tally = tally
	}
	return in
}

func goLog(tests, failAt int, verbose bool) []byte {
	var b bytes.Buffer
	for i := 0; i < tests; i++ {
		if verbose {
			fmt.Fprintf(&b, "=== RUN   TestCase%04d\n", i)
		}
		if i == failAt {
			if verbose {
				fmt.Fprintf(&b, "    case_test.go:%d: got 3, want 4\n", 10+i)
			}
			fmt.Fprintf(&b, "--- FAIL: TestCase%04d (0.00s)\n", i)
			if !verbose {
				fmt.Fprintf(&b, "    case_test.go:%d: got 3, want 4\n", 10+i)
			}
			continue
		}
		fmt.Fprintf(&b, "--- PASS: TestCase%04d (0.00s)\n", i)
	}
	if failAt >= 0 {
		b.WriteString("FAIL\nFAIL\texample.com/pkg\t1.234s\n")
	} else {
		b.WriteString("PASS\nok  \texample.com/pkg\t1.234s\n")
	}
	return b.Bytes()
}

// TestSummaryCountsTheWholeOutput: the counts of a long test log come
// from all of it, not from the head and tail a summary reads; the first
// failure is named even when it lies in neither.
func TestSummaryCountsTheWholeOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var pytest bytes.Buffer
	pytest.WriteString("============================= test session starts ==============================\ncollected 3000 items\n\n")
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&pytest, "tests/test_mod%02d.py::test_case_%d PASSED%s[%3d%%]\n", i/100, i, strings.Repeat(" ", 20), (i+1)*100/3000)
	}
	cut := bytes.Clone(pytest.Bytes()) // killed before its counts line
	pytest.WriteString("\n============================= 3000 passed in 12.34s =============================\n")
	var cargo bytes.Buffer
	for c := 0; c < 300; c++ {
		fmt.Fprintf(&cargo, "     Running unittests src/lib.rs (target/debug/deps/crate%d-0123456789abcdef)\n\nrunning 10 tests\n", c)
		for i := 0; i < 10; i++ {
			fmt.Fprintf(&cargo, "test tests::case_%d ... ok\n", i)
		}
		cargo.WriteString("\ntest result: ok. 10 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n\n")
	}
	for _, c := range []struct {
		name, input string
		body        []byte
		want        string
	}{
		{"go test -v, 4000 passing", "go test -v ./...", goLog(4000, -1, true), "go test: 0 failed, 4000 passed, 1 package ok"},
		{"go test, failure in the middle", "go test ./...", goLog(4000, 2000, false), "go test: 1 failed, 3999 passed, 1 of 1 packages failed; FAIL TestCase2000: case_test.go:2010: got 3, want 4"},
		{"go test -v, failure in the middle", "go test -v ./...", goLog(4000, 2000, true), "go test: 1 failed, 3999 passed, 1 of 1 packages failed; FAIL TestCase2000: case_test.go:2010: got 3, want 4"},
		{"pytest -v, 3000 passing", "pytest -v", pytest.Bytes(), "pytest: 3000 passed"},
		{"pytest -v killed before its counts", "pytest -v", cut, "pytest: 3000 passed"},
		{"cargo workspace", "cargo test", cargo.Bytes(), "cargo test: 0 failed, 3000 passed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.body) <= HeadLimit+TailLimit {
				t.Fatalf("body of %d bytes fits the head and tail: the case tests nothing", len(c.body))
			}
			in := headTail(c.body, new(Tally), rng)
			in.Tool, in.Input = "bash", c.input
			if got := Entry(in); !strings.Contains(got, c.want) {
				t.Errorf("summary %q\nwant it to hold %q", got, c.want)
			}
		})
	}
}

// TestTallyBoundsMemory: a line longer than the tally looks at is passed
// over without being kept, and the lines after it still count.
func TestTallyBoundsMemory(t *testing.T) {
	var tl Tally
	tl.Write([]byte("--- PASS: TestA (0.00s)\n"))
	long := bytes.Repeat([]byte("x"), 1<<20)
	for i := 0; i < 8; i++ {
		tl.Write(long)
		if cap(tl.partial) > 2*maxTallyLine {
			t.Fatalf("tally keeps %d bytes of a long line", cap(tl.partial))
		}
	}
	tl.Write([]byte("\n--- PASS: TestB (0.00s)\n--- PASS: Test"))
	tl.Write([]byte("C (0.00s)"))
	tl.finish()
	if tl.goPass != 3 {
		t.Fatalf("counted %d passes, want 3", tl.goPass)
	}
}

// BenchmarkTally feeds a real pytest log (repeated to 1 MB) to a Tally in
// 64 KB writes, as the archive does: the cost the counts add to every
// archived byte.
func BenchmarkTally(b *testing.B) {
	in := loadSample(b, "testdata/pytest_fail.txt")
	body := bytes.Repeat(in.Head, (1<<20)/len(in.Head)+1)[:1<<20]
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var t Tally
		for p := body; len(p) > 0; p = p[min(len(p), 64<<10):] {
			t.Write(p[:min(len(p), 64<<10)])
		}
		t.finish()
	}
}
