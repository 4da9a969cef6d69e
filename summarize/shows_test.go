package summarize

import (
	"reflect"
	"strings"
	"testing"
)

func TestShows(t *testing.T) {
	type span struct {
		path string
		from int
		to   int
	}
	for _, c := range []struct {
		name, tool, input, body string
		want                    []span
		first                   string // the first line shown
	}{
		{"claude read", "Read", `{"file_path":"/src/app/auth.go"}`,
			"     1→package auth\n     2→\n     3→func A() {}\n\n<system-reminder>\nWhenever you read a file...\n</system-reminder>\n",
			[]span{{"/src/app/auth.go", 1, 3}}, "package auth"},
		{"claude read at an offset", "Read", `{"file_path":"a.go","offset":10,"limit":2}`, "    10→x := 1\n    11→y := 2\n",
			[]span{{"a.go", 10, 11}}, "x := 1"},
		{"hook read, raw lines from the offset", "Read", `{"file_path":"a.go","offset":5}`, "x := 1\ny := 2\n",
			[]span{{"a.go", 5, 6}}, "x := 1"},
		{"claude edit snippet", "Edit", `{"file_path":"/r/a.go","old_string":"a","new_string":"b"}`,
			"The file /r/a.go has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n     8→func B() {\n     9→\treturn\n    10→}",
			[]span{{"/r/a.go", 8, 10}}, "func B() {"},
		{"hook edit, the response's patch", "Edit", `{"file_path":"/r/g.go","old_string":"return 6","new_string":"return 7"}`,
			`{"filePath":"/r/g.go","oldString":"return 6","newString":"return 7","structuredPatch":[{"oldStart":3,"oldLines":3,"newStart":3,"newLines":4,"lines":[" func G() int {","-\treturn 6","+\treturn 7","+\t// seven"," }"]}]}`,
			[]span{{"/r/g.go", 3, 6}}, "func G() int {"},
		{"write", "Write", `{"file_path":"/r/new.txt","content":"one\ntwo\n"}`, "File created successfully at: /r/new.txt",
			[]span{{"/r/new.txt", 1, 2}}, "one"},
		{"swe view", "str_replace_editor", `{"command":"view","path":"/repo/x.py"}`,
			"Here's the result of running `cat -n` on /repo/x.py:\n     1\timport os\n     2\tprint(os.getcwd())\n",
			[]span{{"/repo/x.py", 1, 2}}, "import os"},
		{"grep tool, one file", "Grep", `{"pattern":"Refresh","path":"/r/auth.go","output_mode":"content","-n":true}`,
			"12:func Refresh() error {\n13:\treturn nil\n40:// Refresh again\n",
			[]span{{"/r/auth.go", 12, 13}, {"/r/auth.go", 40, 40}}, "func Refresh() error {"},
		{"grep tool, a tree", "Grep", `{"pattern":"x","path":"/r","output_mode":"content","-n":true}`,
			"/r/a.go:3:x := 1\n/r/b.go:7:x++\n",
			[]span{{"/r/a.go", 3, 3}, {"/r/b.go", 7, 7}}, "x := 1"},
		{"grep tool, files only", "Grep", `{"pattern":"x","path":"/r"}`, "/r/a.go\n", nil, ""},
		{"cat", "bash", "cat auth/token.go", "package auth\nfunc A() {}\n", []span{{"auth/token.go", 1, 2}}, "package auth"},
		{"sed range in bash -lc", "exec_command", `bash -lc "sed -n '20,21p' auth/token.go"`, "a\nb\n", []span{{"auth/token.go", 20, 21}}, "a"},
		{"nl piped to sed", "shell", "nl -ba auth/token.go | sed -n '5,6p'", "     5\tfive\n     6\tsix\n", []span{{"auth/token.go", 5, 6}}, "five"},
		{"rg -n", "bash", "rg -n Refresh auth", "auth/token.go:3:func Refresh() {\n", []span{{"auth/token.go", 3, 3}}, "func Refresh() {"},
		{"head -n", "bash", "head -n 2 go.mod", "module x\n\n", []span{{"go.mod", 1, 2}}, "module x"},
		{"a pipe is not a read", "bash", "cat a.go | grep x", "x\n", nil, ""},
		{"several commands", "bash", "cat a.go && cat b.go", "x\n", nil, ""},
		{"a substitution", "bash", "cat $(ls)", "x\n", nil, ""},
		{"a listing", "bash", "ls -la", "a.go\n", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Shows(c.tool, c.input, []byte(c.body))
			var spans []span
			for _, s := range got {
				spans = append(spans, span{s.Path, s.From, s.To()})
				if s.Sum != LinesSum(s.Lines) || s.Count != len(s.Lines) {
					t.Errorf("span %+v: sum or count wrong", s)
				}
			}
			if !reflect.DeepEqual(spans, c.want) {
				t.Fatalf("Shows = %v, want %v", spans, c.want)
			}
			if c.first != "" && got[0].Lines[0] != c.first {
				t.Errorf("first line %q, want %q", got[0].Lines[0], c.first)
			}
			if len(got) > 0 && !MayShow(c.tool, c.input) {
				t.Errorf("MayShow(%q, %q) = false for an entry that shows lines", c.tool, c.input)
			}
		})
	}
}

func TestShownAttrRoundTrip(t *testing.T) {
	spans := Shows("Grep", `{"path":"/r","output_mode":"content","-n":true}`, []byte("/r/a b.go:3:x\n/r/c.go:7:y\n/r/c.go:8:z\n"))
	got := DecodeShown(EncodeShown(spans))
	if len(got) != 2 {
		t.Fatalf("decoded %v from %q", got, EncodeShown(spans))
	}
	for i := range got {
		if got[i].Path != spans[i].Path || got[i].From != spans[i].From || got[i].Count != spans[i].Count || got[i].Sum != spans[i].Sum {
			t.Errorf("span %d: %+v, want %+v", i, got[i], spans[i])
		}
	}
	if DecodeShown("garbage\n0:1 x p\n3:2 s p") != nil {
		t.Error("malformed lines decoded")
	}
}

// FuzzShows: arbitrary tools, inputs and bodies never panic, every span is
// within bounds, and the attribute round trip keeps ranges and sums.
func FuzzShows(f *testing.F) {
	f.Add("Read", `{"file_path":"/a.go","offset":3}`, "     3→x\n     4→y\n")
	f.Add("bash", `bash -lc "sed -n '2,3p' a.go"`, "Process exited with code 0\nOutput:\na\nb\n")
	f.Add("Grep", `{"path":"/r","output_mode":"content","-n":true}`, "/r/a:1:x\n/r/a:2:y\n9:z\n")
	f.Fuzz(func(t *testing.T, tool, input, body string) {
		spans := Shows(tool, input, []byte(body))
		if len(spans) > maxShownSpans {
			t.Fatalf("%d spans", len(spans))
		}
		for _, s := range spans {
			if s.From < 1 || s.Count != len(s.Lines) || s.Count == 0 {
				t.Fatalf("span %+v", s)
			}
		}
		got := DecodeShown(EncodeShown(spans))
		for i := range got {
			if i < len(spans) && !strings.ContainsAny(spans[i].Path, "\n") && (got[i].From != spans[i].From || got[i].Sum != spans[i].Sum) {
				t.Fatalf("round trip %+v -> %+v", spans[i], got[i])
			}
		}
	})
}
