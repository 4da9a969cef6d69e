package memory

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		line          string
		words, family string
		env, setup    string
		others        int
	}{
		{line: "go test ./auth", words: "go test ./auth", family: FamilyTest},
		{line: "cd /repo && go test -run TestX ./auth 2>&1 | tail -20", words: "go test -run TestX ./auth", family: FamilyTest, setup: "cd /repo"},
		{line: "PYTHONPATH=. python3 tests/runtests.py admin_scripts", words: "python3 tests/runtests.py admin_scripts", family: FamilyTest, env: "PYTHONPATH=."},
		{line: "export LANG=C.UTF-8\nexport LC_ALL=C.UTF-8\nPYTHONPATH=. python3 tests/runtests.py admin_scripts",
			words: "python3 tests/runtests.py admin_scripts", family: FamilyTest, env: "LANG=C.UTF-8 LC_ALL=C.UTF-8 PYTHONPATH=."},
		{line: "(source .venv/bin/activate && pytest -x)", words: "pytest -x", family: FamilyTest, setup: "source .venv/bin/activate"},
		{line: "git checkout sphinx/domains/std.py\npytest tests/test_domain_std.py", words: "pytest tests/test_domain_std.py", family: FamilyTest, others: 1},
		{line: "timeout 5s python3 -m pytest reproduce_issue/loop_test", words: "python3 -m pytest reproduce_issue/loop_test", family: FamilyTest},
		{line: "cat <<'EOF' > reproduce.py\nimport os\npytest = 1\nEOF\npython3 reproduce.py", words: "python3 reproduce.py", others: 1},
		{line: "python3 reproduce_issue.py", words: "python3 reproduce_issue.py"},
		{line: "uv run pyright", words: "uv run pyright", family: FamilyTypecheck},
		{line: "npm run build && npm test", words: "npm test", family: FamilyTest, others: 1},
		{line: "make -j4 test", words: "make -j4 test", family: FamilyTest},
		{line: "bin/test sympy/core/tests/test_symbol.py", words: "bin/test sympy/core/tests/test_symbol.py", family: FamilyTest},
		{line: `echo "a && b" | python -c "import sys; print(sys.stdin.read())"`, words: "python -c import sys; print(sys.stdin.read())"},
		{line: "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached", words: "git diff --cached", others: 2},
		{line: "./manage.py runserver 8000 > /dev/null 2>&1 &", words: "./manage.py runserver 8000", family: FamilyServe},
	} {
		c := ParseCommand(tc.line)
		if got := c.Line(); got != tc.words {
			t.Errorf("%q: words %q, want %q", tc.line, got, tc.words)
		}
		if c.Family != tc.family {
			t.Errorf("%q: family %q, want %q", tc.line, c.Family, tc.family)
		}
		if got := strings.Join(c.Env, " "); got != tc.env {
			t.Errorf("%q: env %q, want %q", tc.line, got, tc.env)
		}
		if got := strings.Join(c.Setup, " "); got != tc.setup {
			t.Errorf("%q: setup %q, want %q", tc.line, got, tc.setup)
		}
		if len(c.Others) != tc.others {
			t.Errorf("%q: others %q, want %d", tc.line, c.Others, tc.others)
		}
	}
}

func TestLexHeredocAndQuotes(t *testing.T) {
	toks := lex("cat <<EOF > a.txt\nx && y\nEOF\nls 'a b' \"c\\\"d\"")
	var words []string
	for _, tk := range toks {
		words = append(words, tk.s)
	}
	want := []string{"cat", ">", "a.txt", "\n", "ls", "a b", `c"d`}
	if !reflect.DeepEqual(words, want) {
		t.Fatalf("tokens %q, want %q", words, want)
	}
}
