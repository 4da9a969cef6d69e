package summarize

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memex-archive/memex"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// loadSample reads a testdata sample: "key: value" header lines (kind, tool,
// exit, input as a JSON string), a "---" line, then the body exactly.
func loadSample(t testing.TB, file string) Input {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	hdr, body, ok := bytes.Cut(b, []byte("\n---\n"))
	if !ok {
		t.Fatalf("%s: no --- line", file)
	}
	in := Input{Head: body, Bytes: int64(len(body)), Lines: int64(bytes.Count(body, []byte("\n")))}
	if len(body) > 0 && body[len(body)-1] != '\n' {
		in.Lines++
	}
	for _, l := range strings.Split(string(hdr), "\n") {
		k, v, _ := strings.Cut(l, ": ")
		switch k {
		case "kind":
			in.Kind = memex.Kind(v)
		case "tool":
			in.Tool = v
		case "exit":
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: exit: %v", file, err)
			}
			in.Exit = &n
		case "input":
			if err := json.Unmarshal([]byte(v), &in.Input); err != nil {
				t.Fatalf("%s: input: %v", file, err)
			}
		}
	}
	return in
}

// TestGolden summarises real tool outputs cut from the shared corpora
// (testdata/*.txt) and compares with testdata/*.golden.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			got := Entry(loadSample(t, f)) + "\n"
			checkLine(t, strings.TrimSuffix(got, "\n"))
			checkGolden(t, f, got)
		})
	}
}

// checkGolden compares got with the .golden file beside sample (a .txt),
// or writes it there with -update.
func checkGolden(t *testing.T, sample, got string) {
	t.Helper()
	golden := strings.TrimSuffix(sample, ".txt") + ".golden"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./summarize -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed\n got: %q\nwant: %q", golden, got, want)
	}
}

func checkLine(t testing.TB, s string) {
	t.Helper()
	if len(s) > MaxLen {
		t.Errorf("summary is %d bytes, over %d: %q", len(s), MaxLen, s)
	}
	if !utf8.ValidString(s) {
		t.Errorf("summary is not valid UTF-8: %q", s)
	}
	if strings.ContainsAny(s, "\n\r") {
		t.Errorf("summary spans lines: %q", s)
	}
}

func TestShapes(t *testing.T) {
	exit := func(n int) *int { return &n }
	tests := []struct {
		name string
		in   Input
		want []string // substrings the summary must contain, in order
	}{
		{"go test failure", Input{Tool: "bash", Input: "go test ./...", Exit: exit(1), Head: []byte(
			"=== RUN   TestParse\n--- FAIL: TestParse (0.00s)\n    parse_test.go:42: got 3, want 4\n=== RUN   TestOK\n--- PASS: TestOK (0.00s)\nFAIL\nFAIL\texample.com/p\t0.003s\nok  \texample.com/q\t0.002s\n")},
			[]string{"bash: go test ./...", "exit 1", "go test: 1 failed, 1 passed, 1 of 2 packages failed", "FAIL TestParse: parse_test.go:42: got 3, want 4"}},
		{"go test subtest names the leaf", Input{Input: "go test -run X", Head: []byte(
			"--- FAIL: TestX (0.00s)\n    --- FAIL: TestX/empty (0.00s)\n        x_test.go:9: boom\nFAIL\n")},
			[]string{"FAIL TestX/empty: x_test.go:9: boom"}},
		{"pytest short summary", Input{Input: "pytest -q", Head: []byte(
			"..F.\n=========================== short test summary info ============================\nFAILED tests/test_a.py::TestA::test_b - AssertionError: assert 1 == 2\n1 failed, 3 passed in 0.12s\n")},
			[]string{"pytest: 1 failed, 3 passed", "FAIL TestA::test_b: AssertionError: assert 1 == 2"}},
		{"sympy report sections are not failures", Input{Input: "bin/test sympy/core", Exit: exit(1), Head: []byte(
			"============================= test process starts ==============================\n" +
				"sympy/core/tests/test_basic.py[4] ..F.                                    [FAIL]\n\n" +
				"___________________________ unexpectedly fast tests ____________________________\ntest_x - Took 0.001 seconds\n" +
				"___________________________ a section of a later runner ________________________\n" +
				"________________________________________________________________________________\n" +
				"_________________ sympy/core/tests/test_basic.py::test_subs ___________________\n" +
				"Traceback (most recent call last):\n  File \"/r/sympy/core/tests/test_basic.py\", line 9, in test_subs\n    assert b.subs(x, 1) == 2\nAssertionError\n\n" +
				"============= tests finished: 3 passed, 1 failed, in 0.10 seconds ==============\nDO *NOT* COMMIT!\n")},
			[]string{"sympy test: 3 passed, 1 failed", "FAIL test_basic.py::test_subs: AssertionError"}},
		{"cargo test", Input{Input: "cargo test", Head: []byte(
			"running 2 tests\ntest tests::ok ... ok\ntest tests::bad ... FAILED\n\nfailures:\n\n---- tests::bad stdout ----\nthread 'tests::bad' panicked at src/lib.rs:10:9:\nassertion `left == right` failed\n\nfailures:\n    tests::bad\n\ntest result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n")},
			[]string{"cargo test: 1 failed, 1 passed", "FAIL tests::bad: assertion `left == right` failed at src/lib.rs:10:9"}},
		{"jest", Input{Input: "npx jest", Head: []byte(
			" FAIL  src/sum.test.js\n  ● math › adds\n\n    expect(received).toBe(expected) // Object.is equality\n\nTests:       1 failed, 4 passed, 5 total\n")},
			[]string{"jest: 1 failed, 4 passed of 5", "FAIL math › adds: expect(received).toBe(expected)"}},
		{"vitest", Input{Input: "npx vitest run", Head: []byte(
			" FAIL  src/a.test.ts > suite > works\nAssertionError: expected 1 to be 2\n\n Test Files  1 failed (1)\n      Tests  1 failed | 2 passed (3)\n")},
			[]string{"vitest: 1 failed, 2 passed of 3", "FAIL src/a.test.ts > suite > works: AssertionError: expected 1 to be 2"}},
		{"maven", Input{Input: "mvn test", Head: []byte(
			"[ERROR] testAdd(com.acme.CalcTest)  Time elapsed: 0.01 s  <<< FAILURE!\norg.opentest4j.AssertionFailedError: expected: <2> but was: <3>\n[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 1\n")},
			[]string{"maven: Tests run: 5, Failures: 1, Errors: 0, Skipped: 1", "FAIL testAdd(com.acme.CalcTest): org.opentest4j.AssertionFailedError"}},
		{"gradle", Input{Input: "./gradlew test", Head: []byte(
			"CalcTest > addsNumbers() FAILED\n    org.opentest4j.AssertionFailedError at CalcTest.java:12\n\n3 tests completed, 1 failed\n")},
			[]string{"gradle: 3 tests completed, 1 failed", "FAIL CalcTest > addsNumbers(): org.opentest4j.AssertionFailedError"}},
		{"junit xml", Input{Head: []byte(`<?xml version="1.0"?><testsuite name="s" tests="3" failures="1" errors="0"><testcase name="ok"/><testcase name="bad"><failure message="expected 1 &lt; 2">trace</failure></testcase></testsuite>`)},
			[]string{"junit: 3 tests, 1 failures, 0 errors", "FAIL bad: expected 1 < 2"}},
		{"python traceback skips site-packages", Input{Input: "python run.py", Exit: exit(1), Head: []byte(
			"Traceback (most recent call last):\n  File \"/app/run.py\", line 3, in <module>\n    main()\n  File \"/app/pkg/core.py\", line 10, in main\n    lib.go()\n  File \"/usr/lib/python3.11/site-packages/lib/x.py\", line 5, in go\n    raise KeyError('k')\nKeyError: 'k'\n")},
			[]string{"exit 1", "KeyError: 'k' at app/pkg/core.py:10 in main"}},
		{"go panic", Input{Input: "go run .", Exit: exit(2), Head: []byte(
			"panic: runtime error: index out of range [3] with length 3\n\ngoroutine 1 [running]:\nmain.pick(...)\n\t/home/u/proj/main.go:12\nmain.main()\n\t/home/u/proj/main.go:7 +0x1d\nexit status 2\n")},
			[]string{"panic: runtime error: index out of range [3] with length 3 at u/proj/main.go:12 in main.pick"}},
		{"java exception", Input{Head: []byte(
			"Exception in thread \"main\" java.lang.IllegalStateException: not ready\n\tat java.base/java.util.Objects.requireNonNull(Objects.java:1)\n\tat com.acme.App.start(App.java:20)\n\tat com.acme.App.main(App.java:5)\nCaused by: java.io.IOException: disk full\n\tat com.acme.Disk.write(Disk.java:9)\n")},
			[]string{"IllegalStateException: not ready at App.java:20 in App.start; caused by IOException: disk full"}},
		{"node error", Input{Input: "node index.js", Exit: exit(1), Head: []byte(
			"/app/index.js:4\n  x.y.z\n    ^\n\nTypeError: Cannot read properties of undefined (reading 'z')\n    at Object.<anonymous> (/app/index.js:4:7)\n    at Module._compile (node:internal/modules/cjs/loader:1256:14)\n")},
			[]string{"TypeError: Cannot read properties of undefined (reading 'z') at /app/index.js:4 in Object.<anonymous>"}},
		{"go build errors", Input{Input: "go build ./...", Exit: exit(1), Head: []byte(
			"# example.com/p\n./a.go:3:2: undefined: foo\n./b.go:9:5: cannot use x (variable of type int) as string value\n")},
			[]string{"2 errors; ./a.go:3: undefined: foo; ./b.go:9: cannot use x"}},
		{"rustc", Input{Input: "cargo build", Head: []byte(
			"error[E0308]: mismatched types\n --> src/main.rs:4:18\n  |\nwarning: unused variable: `y`\n --> src/main.rs:2:9\nerror: aborting due to 1 previous error\n")},
			[]string{"1 error, 1 warning (aborting due to 1 previous error); src/main.rs:4: E0308: mismatched types"}},
		{"tsc", Input{Input: "npx tsc --noEmit", Head: []byte(
			"src/a.ts(12,5): error TS2322: Type 'number' is not assignable to type 'string'.\n")},
			[]string{"1 error; src/a.ts:12: TS2322: Type 'number'"}},
		{"eslint", Input{Input: "npx eslint src", Head: []byte(
			"/app/src/a.js\n  3:7  error  'x' is assigned a value but never used  no-unused-vars\n  5:1  warning  Unexpected console statement  no-console\n\n✖ 2 problems (1 error, 1 warning)\n")},
			[]string{"1 error, 1 warning (✖ 2 problems (1 error, 1 warning)); /app/src/a.js:3: 'x' is assigned a value but never used"}},
		{"mypy", Input{Input: "mypy pkg", Head: []byte(
			"pkg/a.py:10: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\nFound 1 error in 1 file (checked 3 source files)\n")},
			[]string{"1 error (Found 1 error in 1 file (checked 3 source files)); pkg/a.py:10: Incompatible return value type"}},
		{"grep -n output is not compiler output", Input{Input: "grep -rn TODO .", Head: []byte("./a.go:3:// TODO one\n./b/c.go:9:// TODO two\n")},
			[]string{"2 matches in 2 files (., b)"}},
		{"diff", Input{Input: "git diff", Head: []byte(
			"diff --git a/x.go b/x.go\nindex 1..2 100644\n--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,3 @@\n-a\n+b\n+c\n context\n")},
			[]string{"diff: 1 file (x.go), +2 -1"}},
		{"edit tool", Input{Tool: "Edit", Input: `{"file_path":"/r/a.py","old_string":"x = 1\n","new_string":"x = 2\ny = 3\n"}`, Head: []byte("The file /r/a.py has been updated successfully.")},
			[]string{"Edit: /r/a.py", "edited /r/a.py: +2 -1 lines"}},
		{"failed edit names the error, not an edit", Input{Tool: "Edit", Exit: exit(1), Input: `{"file_path":"/r/a.py","old_string":"x = 1\n","new_string":"x = 2\n"}`, Head: []byte("<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>")},
			[]string{"Edit: /r/a.py · exit 1 · File has not been read yet. Read it first before writing to it."}},
		{"tool_use_error without an exit status", Input{Tool: "MultiEdit", Input: `{"file_path":"/r/a.py","edits":[{"old_string":"a","new_string":"b"}]}`, Head: []byte("<tool_use_error>String to replace not found in file.\nString: a</tool_use_error>")},
			[]string{"MultiEdit: /r/a.py · String to replace not found in file."}},
		{"failed edit of another host", Input{Tool: "edit", Exit: exit(1), Input: `{"filePath":"/r/a.go","oldString":"a","newString":"b"}`, Head: []byte("Error: oldString not found in content\n")},
			[]string{"edit: /r/a.go · exit 1 · Error: oldString not found in content"}},
		{"failed write without output", Input{Tool: "Write", Exit: exit(1), Input: `{"file_path":"/r/b.md","content":"x\n"}`},
			[]string{"Write: /r/b.md · exit 1 · write failed"}},
		{"write tool", Input{Tool: "Write", Input: `{"file_path":"/r/b.md","content":"# T\n\nbody\n"}`, Head: []byte("File created successfully at: /r/b.md")},
			[]string{"created /r/b.md: 3 lines"}},
		{"read tool", Input{Tool: "Read", Input: `{"file_path":"/r/main.go"}`, Lines: 5, Head: []byte(
			"     1\tpackage main\n     2\t\n     3\tfunc main() {}\n     4\ttype T struct{}\n     5\tfunc (t T) M() {}\n")},
			[]string{"Read: /r/main.go", "read /r/main.go: 5 lines, Go; defines main, T, M"}},
		{"missing file read", Input{Input: "cat nope.txt", Exit: exit(1), Head: []byte("cat: nope.txt: No such file or directory\n")},
			[]string{"exit 1", "read nope.txt: cat: nope.txt: No such file or directory"}},
		{"find", Input{Input: "find . -name '*.go'", Head: []byte("./a.go\n./b/b.go\n./b/c.go\n./d/e.go\n")},
			[]string{"found 4 paths under b, ., d"}},
		{"ls -la", Input{Input: "ls -la", Head: []byte("total 8\ndrwxr-xr-x 2 u u 4096 Jan 1 00:00 .\n-rw-r--r-- 1 u u 10 Jan 1 00:00 go.mod\n")},
			[]string{"2 entries: ., go.mod"}},
		{"swe-agent open", Input{Tool: "open", Input: "open src/main/java/com/acme/App.java", Head: []byte(
			"[File: /repo/src/main/java/com/acme/App.java (120 lines total)]\n1:package com.acme;\n2:\n3:public class App {\n4:    void run() {}\n5:}\n")},
			[]string{"read /repo/src/main/java/com/acme/App.java: 120 lines, Java; defines App"}},
		{"swe-agent edit", Input{Tool: "edit", Input: "edit 4:4\n    void run() { go(); }\nend_of_edit", Head: []byte(
			"[File: /repo/App.java (121 lines total)]\n1:package com.acme;\nFile updated.\n")},
			[]string{"edited /repo/App.java lines 4-4 (121 lines now)"}},
		{"swe-agent find_file", Input{Input: "find_file Parser.java", Head: []byte(
			"Found 2 matches for \"Parser.java\" in /repo:\n- /repo/src/a/Parser.java\n- /repo/src/b/Parser.java\n")},
			[]string{"found 2 paths: /repo/src/a/Parser.java, /repo/src/b/Parser.java"}},
		{"curl with title", Input{Input: "curl -s https://example.com/", Head: []byte("<html><head><title>Example Domain</title></head></html>")},
			[]string{"https://example.com/ — Example Domain"}},
		{"reasoning first sentence", Input{Kind: memex.KindReasoning, Head: []byte("THOUGHT: The bug is in parse(), e.g. the loop. Then we fix it.\n\nMore.")},
			[]string{"The bug is in parse(), e.g. the loop."}},
		{"message without its wrapper tag", Input{Kind: memex.KindMessage, Head: []byte("<pr_description>\nConsider the following PR description: Queryset crashes when unpickled. Details follow.")},
			[]string{"task: Queryset crashes when unpickled."}},
		{"failing run after passing tests names what failed", Input{Tool: "bash", Input: "make check", Exit: exit(2), Head: []byte(
			"============================= test session starts ==============================\ncollected 63 items\n\ntests/test_app.py ...............................................................  [100%]\n\n============================== 63 passed in 1.20s ==============================\nblack --check src tests\nwould reformat src/app/views.py\n\nOh no! 💥 💔 💥\n1 file would be reformatted, 41 files would be left unchanged.\nmake: *** [Makefile:12: check] Error 1\n")},
			[]string{"exit 2", "would reformat src/app/views.py; pytest: 63 passed"}},
		{"failing run after passing go tests names the vet error", Input{Tool: "bash", Input: "go test ./... && go vet ./...", Exit: exit(1), Head: []byte(
			"ok  \texample.com/a\t0.010s\nok  \texample.com/b\t0.020s\n# example.com/b\nb/b.go:12:2: unreachable code\n")},
			[]string{"exit 1", "b/b.go:12: unreachable code; go test: 2 packages ok"}},
		{"swe-agent task", Input{Kind: memex.KindMessage, Head: []byte("We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nJackson 2.16 fails attempting to obtain `ObjectWriter` for an `Enum`\n### Search before asking\n")},
			[]string{"task: Jackson 2.16 fails attempting to obtain `ObjectWriter` for an `Enum`"}},
		{"swe-agent demonstration", Input{Kind: memex.KindMessage, Head: []byte("Here is a demonstration of how to correctly accomplish this task.\nIt is included to show you how to correctly use the interface.\n--- DEMONSTRATION ---\nWe're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nTimeDelta serialization precision\nHi there!\n")},
			[]string{"demonstration: TimeDelta serialization precision"}},
		{"claude code slash command", Input{Kind: memex.KindMessage, Head: []byte("<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>")},
			[]string{"/model opus"}},
		{"claude code command output", Input{Kind: memex.KindMessage, Head: []byte("<local-command-stdout>Set model to \x1b[1mopus (claude-opus-4-5)\x1b[22m</local-command-stdout>")},
			[]string{"local command output: Set model to opus (claude-opus-4-5)"}},
		{"claude code caveat alone", Input{Kind: memex.KindMessage, Head: []byte("Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.")},
			[]string{"caveat: the messages that follow come from the user's local commands"}},
		{"claude code caveat tag then command", Input{Kind: memex.KindMessage, Head: []byte("<local-command-caveat>Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.</local-command-caveat>\n<command-name>/clear</command-name>")},
			[]string{"/clear"}},
		{"claude code shell mode", Input{Kind: memex.KindMessage, Head: []byte("<bash-input>uv run pytest -m browser -v</bash-input>")},
			[]string{"$ uv run pytest -m browser -v"}},
		{"system reminder dropped", Input{Kind: memex.KindMessage, Head: []byte("<system-reminder>\nThe TodoWrite tool hasn't been used recently.\n</system-reminder>\nPlease fix the failing login test.")},
			[]string{"Please fix the failing login test."}},
		{"unknown shape keeps first line and count", Input{Input: "echo hi", Lines: 1, Head: []byte("hi\n")},
			[]string{"echo hi · hi · 1 line"}},
		{"tail holds the test counts", Input{Input: "pytest", Head: []byte("============================= test session starts ==============================\ncollected 9 items\n"), Tail: []byte("=================== 1 failed, 8 passed in 2.00s ===================\n")},
			[]string{"pytest: 1 failed, 8 passed"}},
		{"long command keeps the fact", Input{Input: "pytest " + strings.Repeat("tests/test_very_long_name.py ", 20), Head: []byte("3 passed in 0.10s\n")},
			[]string{"pytest: 3 passed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.in.Kind == "" {
				tt.in.Kind = memex.KindTool
			}
			got := Entry(tt.in)
			checkLine(t, got)
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("summary %q\n lacks %q (in order)", got, w)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// FuzzEntry checks that any input gives one valid UTF-8 line of at most
// MaxLen bytes, without panicking.
func FuzzEntry(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, file := range files {
		in := loadSample(f, file)
		f.Add(string(in.Kind), in.Tool, in.Input, string(in.Head))
	}
	f.Add("tool", "Edit", `{"file_path":`, "\xff\xfe")
	f.Add("tool", "bash", "sed -i 'x", "Traceback (most recent call last):\n  File \"a\", line 1\n")
	f.Add("reasoning", "", "", "...")
	f.Fuzz(func(t *testing.T, kind, tool, input, body string) {
		n := 1
		in := Input{Kind: memex.Kind(kind), Tool: tool, Input: input, Exit: &n, Head: []byte(body), Bytes: int64(len(body))}
		checkLine(t, Entry(in))
		if len(body) > 8 {
			in.Head, in.Tail = []byte(body[:len(body)/2]), []byte(body[len(body)/2:])
			checkLine(t, Entry(in))
		}
	})
}

// BenchmarkEntry summarises a 64 KB head of a real pytest log (repeated)
// with its tail, the most line-heavy input a writer passes.
func BenchmarkEntry(b *testing.B) {
	in := loadSample(b, "testdata/pytest_fail.txt")
	head := bytes.Repeat(in.Head, HeadLimit/len(in.Head)+1)[:HeadLimit]
	in.Tail = in.Head[len(in.Head)-min(len(in.Head), TailLimit):]
	in.Head = head
	b.SetBytes(int64(len(in.Head) + len(in.Tail)))
	for b.Loop() {
		Entry(in)
	}
}

func BenchmarkEntryGeneric(b *testing.B) {
	in := Input{Kind: memex.KindTool, Tool: "bash", Input: "python run.py", Head: bytes.Repeat([]byte("some output line with words 12345\n"), HeadLimit/34)}
	b.SetBytes(int64(len(in.Head)))
	for b.Loop() {
		Entry(in)
	}
}
