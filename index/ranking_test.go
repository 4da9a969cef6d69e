package index

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/memex-archive/memex"
)

// TestIdentifierFindsItsDefinitionFirst: a search for an identifier puts
// the entry that defines it first, above entries that name its parts the
// other way round (html_generator for generate_html) many times and in
// their summaries, and above the places that only call it.
func TestIdentifierFindsItsDefinitionFirst(t *testing.T) {
	f := newFixture(t, nil)
	var long strings.Builder
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&long, "%6d→    line %d of the converter, nothing to see\n", i, i)
	}
	long.WriteString("   401→def generate_html(messages: List[TranscriptEntry], title: Optional[str] = None) -> str:\n")
	long.WriteString("   402→    \"\"\"Generate the page.\"\"\"\n")
	for i := 0; i < 9; i++ {
		f.add(t, entry{name: fmt.Sprintf("gen%d", i), project: "p9", session: "s9", tool: "Read", kind: memex.KindTool,
			input:   `{"file_path":"/repo/claude_code_log/html_generator.py"}`,
			summary: "Read: /repo/claude_code_log/html_generator.py · read html_generator.py",
			content: "     1→\"\"\"Generate HTML: the html_generator module.\"\"\"\n     2→from .html_generator import render\n"})
	}
	f.add(t,
		entry{name: "note", project: "p9", session: "s9", kind: memex.KindMessage,
			content: "Let me check the html_generator module to see how the html generator assigns classes."},
		entry{name: "call", project: "p9", session: "s9", tool: "Read", kind: memex.KindTool,
			input: `{"file_path":"/repo/test/test_browser.py"}`, summary: "Read: /repo/test/test_browser.py",
			content: "     1→from claude_code_log.converter import generate_html\n     2→html = generate_html(messages)\n"},
		entry{name: "def", project: "p9", session: "s9", tool: "Read", kind: memex.KindTool,
			input: `{"file_path":"/repo/claude_code_log/converter.py"}`, summary: "Read: /repo/claude_code_log/converter.py",
			content: long.String()},
	)
	got := f.names(t, Query{Text: "generate_html", Project: "p9"})
	if len(got) < 2 || got[0] != "def" || got[1] != "call" {
		t.Errorf("generate_html: %v, want def first, then the call", got)
	}
	// Spelt the other way, the generator module's entries come first.
	if got := f.names(t, Query{Text: "html_generator", Project: "p9"}); len(got) == 0 || !strings.HasPrefix(got[0], "gen") {
		t.Errorf("html_generator: %v", got)
	}
}

// TestQuestionInWords: a question's function words do not rank; its
// content words do, and the entry holding the rarest of them comes first
// even when it lacks a common one.
func TestQuestionInWords(t *testing.T) {
	f := newFixture(t, nil)
	f.add(t,
		entry{name: "migrate", project: "q", session: "q1", tool: "bash", kind: memex.KindTool, exit: memex.IntPtr(1),
			input: "alembic upgrade head", summary: "bash: alembic upgrade head → exit 1",
			content: "Running migrations...\nERROR: relation \"users\" already exists\n"},
		entry{name: "chatter", project: "q", session: "q1", kind: memex.KindMessage,
			content: "What do we do when we have run out of ideas? We ran to the shop, and then what? When we were there we ran back."},
		entry{name: "plan", project: "q", session: "q2", kind: memex.KindMessage,
			content: "Next I will write the tests for the parser."},
	)
	got := f.names(t, Query{Text: "what failed when we ran the migrations", Project: "q"})
	if len(got) == 0 || got[0] != "migrate" {
		t.Errorf("question: %v, want migrate first", got)
	}
	for _, n := range got {
		if n == "plan" {
			t.Errorf("question: %v: an entry sharing only function words matched", got)
		}
	}
}

// TestCodeQueryKeepsShortWords: in a query in code, and in a query of
// function words alone, `if`, `go` and `on` are searched like any word.
func TestCodeQueryKeepsShortWords(t *testing.T) {
	f := newFixture(t, nil)
	if got := f.names(t, Query{Text: "if"}); !reflect.DeepEqual(got, []string{"middleware"}) {
		t.Errorf("if: %v, want [middleware]", got)
	}
	if got := f.names(t, Query{Text: "go test ./auth/..."}); len(got) == 0 || got[0] != "nilmap" {
		t.Errorf("go test ./auth/...: %v, want nilmap first", got)
	}
	p, err := parse(Query{Text: "if token == \"\" on auth/middleware.go:42"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(p.scoring()); n != len(p.words) {
		t.Errorf("code query scores %d of its %d words", n, len(p.words))
	}
	p, _ = parse(Query{Text: "what failed when we ran the migrations"})
	var ws []string
	for _, w := range p.scoring() {
		ws = append(ws, w.w.whole)
	}
	if want := []string{"failed", "ran", "migrations"}; !reflect.DeepEqual(ws, want) {
		t.Errorf("question scores %v, want %v", ws, want)
	}
}

func TestDefinitions(t *testing.T) {
	got := definitions([]byte("def generate_html(x):\nfunc (s *Store) Put(k string) {\nundef nothing\n" +
		"export function renderPage() {}\npub fn main() {\nclass Config:\nmyfunc call()\n"))
	want := []string{"generate_html", "put", "main", "config", "renderpage"}
	if !reflect.DeepEqual(sorted(got), sorted(want)) {
		t.Errorf("definitions = %v, want %v", got, want)
	}
}

// TestFailedRunsKeepTheirPlace: a run that failed and one that did not are
// not runs of one command for newestRunsFirst: asked for the command's
// error, the failed run stays above the newer run that succeeded.
func TestFailedRunsKeepTheirPlace(t *testing.T) {
	f := newFixture(t, nil)
	f.add(t,
		entry{name: "failed", project: "r", session: "r1", tool: "bash", kind: memex.KindTool, exit: memex.IntPtr(1),
			input: "python reproduce.py", summary: "bash: python reproduce.py → exit 1",
			content: "ModuleNotFoundError: No module named 'reproduce_app'\n"},
		entry{name: "passed", project: "r", session: "r1", tool: "bash", kind: memex.KindTool, exit: memex.IntPtr(0),
			input: "python reproduce.py", summary: "bash: python reproduce.py → exit 0",
			content: "Operations to perform: apply all migrations\nOK\n"},
	)
	got := f.names(t, Query{Text: "python reproduce.py error", Project: "r", Literal: true})
	if want := []string{"failed", "passed"}; !reflect.DeepEqual(got, want) {
		t.Errorf("hits %v, want %v", got, want)
	}
}

// TestAnswerFoundByItsQuestion: a message that follows a question in its
// session holds the question's last words at a low weight, so that the
// question's words find the answer that shares none of them; the message
// that holds the words itself still ranks first. A message after a
// statement, a message of another session and a tool run take no words
// from the message before.
func TestAnswerFoundByItsQuestion(t *testing.T) {
	f := newFixture(t, nil)
	f.add(t,
		entry{name: "ask", project: "c", session: "c1", kind: memex.KindMessage,
			content: "Melanie: That's impressive work. What motivated you to pursue counseling?"},
		entry{name: "other", project: "c", session: "c2", kind: memex.KindMessage,
			content: "Caroline: The weather was lovely at the lake."},
		entry{name: "answer", project: "c", session: "c1", kind: memex.KindMessage,
			content: "Caroline: My own journey and the support I got made a huge difference."},
		entry{name: "after", project: "c", session: "c1", kind: memex.KindMessage,
			content: "Melanie: So glad to hear that."},
		entry{name: "run", project: "c", session: "c1", tool: "bash", kind: memex.KindTool,
			input: "ls", summary: "bash: ls", content: "notes.txt\n"},
	)
	got := f.names(t, Query{Text: "what motivated Caroline to pursue counseling", Project: "c"})
	if len(got) < 2 || got[0] != "ask" || got[1] != "answer" {
		t.Errorf("question: %v, want ask (its own words), then answer (its question's)", got)
	}
	if got := f.names(t, Query{Text: "motivated counseling", Project: "c"}); !reflect.DeepEqual(got, []string{"ask", "answer"}) {
		t.Errorf("motivated counseling: %v, want [ask answer]: no context across sessions", got)
	}
	if got := f.names(t, Query{Text: "journey difference", Project: "c"}); !reflect.DeepEqual(got, []string{"answer"}) {
		t.Errorf("journey difference: %v, want [answer]: no context after a statement, nor for a tool run", got)
	}
}

func TestLastWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"a b c d", 2, "c d"},
		{"  a  b \n", 5, "a  b"},
		{"one", 3, "one"},
		{"", 3, ""},
		{"x y\tz", 1, "z"},
	} {
		if got := string(lastWords([]byte(c.in), c.n)); got != c.want {
			t.Errorf("lastWords(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
