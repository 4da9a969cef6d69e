package deref_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/summarize"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The archive is what deref reads in production.
var _ deref.Store = (*archive.Store)(nil)

func openStore(tb testing.TB) *archive.Store {
	tb.Helper()
	s, err := archive.Open("", &archive.Options{InMemory: true, NoSync: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// fixedID makes IDs that golden files can name.
func fixedID(n int) memex.ID {
	id := memex.IDFloor(t0.Add(time.Duration(n) * time.Second))
	id[15] = byte(n)
	return id
}

func add(tb testing.TB, s *archive.Store, e memex.Entry, body string) memex.Entry {
	tb.Helper()
	if e.Created.IsZero() {
		e.Created = t0
	}
	if e.Kind == "" {
		e.Kind = memex.KindTool
	}
	out, err := s.Add(context.Background(), e, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// numbered returns n lines "line 0001 ...".
func numbered(n int, f func(i int) string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if f != nil {
			if s := f(i); s != "" {
				b.WriteString(s)
				continue
			}
		}
		fmt.Fprintf(&b, "line %04d of the build log: compiling package number %d\n", i, i)
	}
	return b.String()
}

// check asserts the deref invariants: the text fits the budget and is
// counted exactly, every window is byte-exact at its offsets and appears in
// the content in order, windows and omissions cover the body.
func check(tb testing.TB, res deref.Result, budget int, bodies map[string]string) {
	tb.Helper()
	if res.Used > budget {
		tb.Fatalf("used %d > budget %d", res.Used, budget)
	}
	if n := summarize.CountString(res.Text); n != res.Used {
		tb.Fatalf("used %d, but the text counts %d", res.Used, n)
	}
	for _, it := range res.Items {
		body, ok := bodies[it.ID]
		if !ok {
			tb.Fatalf("item %s not requested", it.ID)
		}
		if !strings.Contains(res.Text, it.Content) {
			tb.Fatalf("item %s content is not in the text", it.ID)
		}
		if it.Binary {
			// Not valid UTF-8: the item shows the note, never the bytes,
			// and claims no window of the body.
			if utf8.ValidString(body) || len(it.Windows) != 0 || strings.Contains(it.Content, body) {
				tb.Fatalf("item %s binary=%v with %d windows", it.ID, it.Binary, len(it.Windows))
			}
			continue
		}
		if it.Complete {
			if it.Content != body || len(it.Omitted) != 0 {
				tb.Fatalf("item %s complete but content differs from body", it.ID)
			}
			continue
		}
		rest := it.Content
		for _, w := range it.Windows {
			if w.Start < 0 || w.End > len(body) || w.Start >= w.End {
				tb.Fatalf("window %+v outside body of %d bytes", w, len(body))
			}
			win := body[w.Start:w.End]
			if !w.Cut {
				if w.Start > 0 && body[w.Start-1] != '\n' {
					tb.Fatalf("window %+v starts inside a line", w)
				}
				if w.End < len(body) && body[w.End-1] != '\n' {
					tb.Fatalf("window %+v ends inside a line", w)
				}
			}
			i := strings.Index(rest, win)
			if i < 0 {
				tb.Fatalf("window %+v (%q) not found in content order", w, win)
			}
			rest = rest[i+len(win):]
		}
		lines := map[int]int{}
		for _, w := range it.Windows {
			for l := w.From; l <= w.To; l++ {
				lines[l]++
			}
		}
		for _, o := range it.Omitted {
			if !strings.Contains(it.Content, fmt.Sprintf("--lines %d:%d]", o.From, o.To)) {
				tb.Fatalf("omission %+v has no marker", o)
			}
			for l := o.From; l <= o.To; l++ {
				lines[l]++
			}
		}
		n := strings.Count(body, "\n")
		if body != "" && !strings.HasSuffix(body, "\n") {
			n++
		}
		for l := 1; l <= n; l++ {
			if lines[l] == 0 {
				tb.Fatalf("line %d neither shown nor marked omitted", l)
			}
		}
	}
}

func TestWholeWhenItFits(t *testing.T) {
	s := openStore(t)
	body := "ok  \texample.com/p\t0.01s\n"
	e := add(t, s, memex.Entry{ID: fixedID(1), Tool: "bash", Input: "go test ./..."}, body)
	res, err := deref.New(s).Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: 200})
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, 200, map[string]string{e.ID.String(): body})
	it := res.Items[0]
	if !it.Complete || it.Content != body || it.Tokens != e.Tokens || it.Summary != e.Summary {
		t.Fatalf("item = %+v", it)
	}
	if len(it.Omitted) != 0 || res.Missing == nil || len(res.Missing) != 0 {
		t.Fatalf("omitted %v missing %v", it.Omitted, res.Missing)
	}
}

func TestEmptyEntry(t *testing.T) {
	s := openStore(t)
	e := add(t, s, memex.Entry{ID: fixedID(31)}, "")
	res, err := deref.New(s).Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: 100})
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, 100, map[string]string{e.ID.String(): ""})
	if it := res.Items[0]; !it.Complete || it.Content != "" {
		t.Fatalf("item = %+v", it)
	}
}

func TestWindowsFindQueryAndEnds(t *testing.T) {
	s := openStore(t)
	body := numbered(400, func(i int) string {
		switch i {
		case 250:
			return "    assert parse(x) == 4  # AssertionError: expected 4, got 3\n"
		case 120:
			return "warning: deprecated flag --old\n"
		}
		return ""
	})
	e := add(t, s, memex.Entry{ID: fixedID(2), Tool: "bash", Input: "make test"}, body)
	for _, budget := range []int{160, 300, 1000} {
		res, err := deref.New(s).Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: budget, Query: "parse"})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		check(t, res, budget, map[string]string{e.ID.String(): body})
		it := res.Items[0]
		if it.Complete {
			t.Fatalf("budget %d: 400 lines cannot be complete", budget)
		}
		if !strings.Contains(it.Content, "assert parse(x) == 4") {
			t.Fatalf("budget %d: the query line is missing:\n%s", budget, it.Content)
		}
		if budget >= 300 && (!strings.Contains(it.Content, "line 0001 ") || !strings.Contains(it.Content, "line 0400 ")) {
			t.Fatalf("budget %d: head or tail missing:\n%s", budget, it.Content)
		}
		if !strings.Contains(it.Content, "[memex: lines ") || !strings.Contains(it.Content, "memex show "+e.ID.String()+" --lines ") {
			t.Fatalf("budget %d: no marker:\n%s", budget, it.Content)
		}
	}
}

// TestMarkerLinesMatchArchive checks that the line range a marker names is
// exactly what `memex show ID --lines A:B` (archive.Lines) returns, and that
// windows plus omitted ranges rebuild the body.
func TestMarkerLinesMatchArchive(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	body := numbered(300, nil)
	e := add(t, s, memex.Entry{ID: fixedID(3)}, body)
	res, err := deref.New(s).Deref(ctx, []string{e.ID.String()}, deref.Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, 400, map[string]string{e.ID.String(): body})
	it := res.Items[0]
	type span struct{ from, to int }
	var parts []struct {
		from int
		text string
	}
	for _, w := range it.Windows {
		parts = append(parts, struct {
			from int
			text string
		}{w.From, body[w.Start:w.End]})
	}
	for _, o := range it.Omitted {
		rc, err := s.Lines(ctx, e.ID, int64(o.From), int64(o.To))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(rc)
		rc.Close()
		parts = append(parts, struct {
			from int
			text string
		}{o.From, b.String()})
	}
	// Sort by first line and join: the body must come back exactly.
	for i := range parts {
		for j := i + 1; j < len(parts); j++ {
			if parts[j].from < parts[i].from {
				parts[i], parts[j] = parts[j], parts[i]
			}
		}
	}
	var got strings.Builder
	for _, p := range parts {
		got.WriteString(p.text)
	}
	if got.String() != body {
		t.Fatalf("windows + archive lines of omitted ranges do not rebuild the body")
	}
}

func TestBudgetTooSmall(t *testing.T) {
	s := openStore(t)
	body := numbered(200, nil)
	e := add(t, s, memex.Entry{ID: fixedID(4), Tool: "bash", Input: "make"}, body)
	r := deref.New(s)
	_, err := r.Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: 10})
	if !errors.Is(err, memex.ErrBudgetTooSmall) {
		t.Fatalf("err = %v, want ErrBudgetTooSmall", err)
	}
	var min int
	if _, serr := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "need at least "):], "need at least %d", &min); serr != nil {
		t.Fatalf("error %q names no minimum: %v", err, serr)
	}
	res, err := r.Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: min})
	if err != nil {
		t.Fatalf("the named minimum %d fails: %v", min, err)
	}
	check(t, res, min, map[string]string{e.ID.String(): body})
	if _, err := r.Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: min - 1}); !errors.Is(err, memex.ErrBudgetTooSmall) {
		t.Fatalf("budget %d below the minimum: err = %v", min-1, err)
	}
}

// A short entry shown whole can cost less than its best line with the
// markers of the lines that leaves out: a budget that holds it whole is
// enough, and the minimum named is no more than that.
func TestShortEntryFitsWholeBelowItsLeastWindow(t *testing.T) {
	s := openStore(t)
	for i, body := range []string{
		"package qa\n\nfunc A() int {\n\treturn 1\n}\n",
		// One line longer than the 32 tokens the least window cuts it to.
		strings.Repeat("alpha beta gamma delta ", 10) + "\n",
	} {
		e := add(t, s, memex.Entry{ID: fixedID(6 + i), Tool: "bash", Input: "cat a.go"}, body)
		r := deref.New(s)
		res, err := r.Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: 1000})
		if err != nil || len(res.Items) != 1 || !res.Items[0].Complete {
			t.Fatalf("deref at 1000: %+v, %v", res, err)
		}
		whole := res.Used
		res, err = r.Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: whole + 1})
		if err != nil {
			t.Fatalf("a budget of %d holds the entry whole (%d tokens): %v", whole+1, whole, err)
		}
		check(t, res, whole+1, map[string]string{e.ID.String(): body})
		if !res.Items[0].Complete {
			t.Fatalf("not whole at %d: %+v", whole+1, res.Items[0])
		}
	}
}

func TestHugeLineIsCut(t *testing.T) {
	s := openStore(t)
	long := strings.Repeat("abc def ghi ", 20000) + "NEEDLE here " + strings.Repeat("xyz ", 5000)
	body := "first line\n" + long + "\nlast line\n"
	e := add(t, s, memex.Entry{ID: fixedID(5)}, body)
	res, err := deref.New(s).Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: 300, Query: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, 300, map[string]string{e.ID.String(): body})
	it := res.Items[0]
	var cut *deref.Window
	for i := range it.Windows {
		if it.Windows[i].Cut {
			cut = &it.Windows[i]
		}
	}
	if cut == nil || cut.From != 2 {
		t.Fatalf("no cut window on line 2: %+v", it.Windows)
	}
	if !strings.Contains(body[cut.Start:cut.End], "NEEDLE") {
		t.Fatalf("the cut piece misses the query match: %q", body[cut.Start:cut.End])
	}
	if !strings.Contains(it.Content, "[memex: line 2 cut: bytes ") {
		t.Fatalf("no cut marker:\n%s", it.Content)
	}
}

func TestSharedBudget(t *testing.T) {
	s := openStore(t)
	small := "PASS\nok  \texample.com/a\t0.01s\n"
	big := numbered(500, func(i int) string {
		if i == 333 {
			return "--- FAIL: TestBig (0.00s)\n"
		}
		return ""
	})
	big2 := numbered(500, nil)
	a := add(t, s, memex.Entry{ID: fixedID(6)}, small)
	b := add(t, s, memex.Entry{ID: fixedID(7)}, big)
	c := add(t, s, memex.Entry{ID: fixedID(8)}, big2)
	bodies := map[string]string{a.ID.String(): small, b.ID.String(): big, c.ID.String(): big2}
	res, err := deref.New(s).Deref(context.Background(), []string{a.ID.String(), b.ID.String(), c.ID.String()}, deref.Options{Budget: 900})
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, 900, bodies)
	if len(res.Items) != 3 || res.Items[0].ID != a.ID.String() || res.Items[2].ID != c.ID.String() {
		t.Fatalf("items out of request order")
	}
	if !res.Items[0].Complete {
		t.Fatalf("the small entry should come back whole")
	}
	if !strings.Contains(res.Items[1].Content, "--- FAIL: TestBig") {
		t.Fatalf("the failing line of the second entry is missing")
	}
	t1 := summarize.CountString(res.Items[1].Content)
	t2 := summarize.CountString(res.Items[2].Content)
	if t1 < 150 || t2 < 150 {
		t.Fatalf("the two large entries should share the rest: %d and %d tokens", t1, t2)
	}
}

func TestMissingAndAliases(t *testing.T) {
	s := openStore(t)
	body := "hello\n"
	e := add(t, s, memex.Entry{ID: fixedID(9), Aliases: []string{"toolu_01ABC"}, Project: "p"}, body)
	add(t, s, memex.Entry{ID: fixedID(10), Aliases: []string{"dup"}, Project: "p1"}, "one\n")
	add(t, s, memex.Entry{ID: fixedID(11), Aliases: []string{"dup"}, Project: "p2"}, "two\n")
	r := deref.New(s)
	res, err := r.Deref(context.Background(), []string{"toolu_01ABC", "01JDZZZZZZZZZZZZZZZZZZZZZZ", "nope", "dup"}, deref.Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	check(t, res, 300, map[string]string{e.ID.String(): body})
	if len(res.Items) != 1 || res.Items[0].ID != e.ID.String() || !res.Items[0].Complete {
		t.Fatalf("items = %+v", res.Items)
	}
	want := []string{"01JDZZZZZZZZZZZZZZZZZZZZZZ", "nope", "dup"}
	if fmt.Sprint(res.Missing) != fmt.Sprint(want) {
		t.Fatalf("missing = %v, want %v", res.Missing, want)
	}
	if !strings.Contains(res.Text, `[memex: "dup" names several entries`) || !strings.Contains(res.Text, `[memex: "nope" not found]`) {
		t.Fatalf("text lacks the missing lines:\n%s", res.Text)
	}
	res, err = r.Deref(context.Background(), []string{"dup"}, deref.Options{Budget: 300, Project: "p2"})
	if err != nil || len(res.Items) != 1 || res.Items[0].Content != "two\n" {
		t.Fatalf("project should narrow the alias: %+v %v", res, err)
	}
	if _, _, err := r.Show(context.Background(), "nope", 100, ""); !errors.Is(err, memex.ErrNotFound) {
		t.Fatalf("show of an unknown ref: %v", err)
	}
	it, _, err := r.Show(context.Background(), "toolu_01ABC", 100, "")
	if err != nil || it.Content != body {
		t.Fatalf("show by alias: %+v %v", it, err)
	}
	// Show prints no header, so none is counted: a body of n tokens shows
	// whole in n, and the least budget named is the body's own.
	n := summarize.CountString(body)
	it, res, err = r.Show(context.Background(), "toolu_01ABC", n, "")
	if err != nil || it.Content != body || res.Used > n {
		t.Fatalf("show in %d tokens: %+v %+v %v", n, it, res, err)
	}
	_, _, err = r.Show(context.Background(), "toolu_01ABC", 1, "")
	if !errors.Is(err, memex.ErrBudgetTooSmall) || !strings.Contains(err.Error(), "a budget of 1 token is too small") {
		t.Fatalf("show in 1 token: %v", err)
	}
}

// TestGolden renders fixed entries and compares with testdata/*.golden.
func TestGolden(t *testing.T) {
	s := openStore(t)
	r := deref.New(s)
	ctx := context.Background()
	log := numbered(120, func(i int) string {
		switch i {
		case 1:
			return "=== RUN   TestParse\n"
		case 77:
			return "    parse_test.go:42: Parse(\"1+2\") = 4, want 3\n"
		case 78:
			return "--- FAIL: TestParse (0.00s)\n"
		case 120:
			return "FAIL\texample.com/calc\t0.004s\n"
		}
		return ""
	})
	a := add(t, s, memex.Entry{ID: fixedID(20), Tool: "bash", Input: "go test ./calc", Exit: memex.IntPtr(1)}, log)
	b := add(t, s, memex.Entry{ID: fixedID(21), Tool: "bash", Input: "git diff --stat"}, " calc/parse.go | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n")
	cases := []struct {
		name string
		refs []string
		opts deref.Options
	}{
		{"single_query", []string{a.ID.String()}, deref.Options{Budget: 250, Query: "parse want"}},
		{"single_no_query", []string{a.ID.String()}, deref.Options{Budget: 250}},
		{"two_entries_missing", []string{b.ID.String(), a.ID.String(), "ctx_code_404"}, deref.Options{Budget: 300}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := r.Deref(ctx, c.refs, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			check(t, res, c.opts.Budget, map[string]string{a.ID.String(): log, b.ID.String(): " calc/parse.go | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n"})
			got := fmt.Sprintf("budget %d, used %d\n%s", res.Budget, res.Used, res.Text)
			golden(t, filepath.Join("testdata", "deref_"+c.name+".golden"), got)
		})
	}
}

func golden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./deref -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s changed:\n--- got\n%s\n--- want\n%s", file, got, want)
	}
}

// TestJSONContract pins the --json shape: exactly the fields of the
// contract, omitted and missing as arrays even when empty.
func TestJSONContract(t *testing.T) {
	s := openStore(t)
	e := add(t, s, memex.Entry{ID: fixedID(30)}, numbered(200, nil))
	res, err := deref.New(s).Deref(context.Background(), []string{e.ID.String(), "nope"}, deref.Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	json.Unmarshal(b, &top)
	keys := func(m map[string]json.RawMessage) string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return strings.Join(ks, ",")
	}
	if got := keys(top); got != "budget,items,missing,used" {
		t.Fatalf("top-level keys %s", got)
	}
	var items []map[string]json.RawMessage
	json.Unmarshal(top["items"], &items)
	if got := keys(items[0]); got != "complete,content,id,omitted,summary,tokens" {
		t.Fatalf("item keys %s", got)
	}
	var om []map[string]json.RawMessage
	json.Unmarshal(items[0]["omitted"], &om)
	if len(om) == 0 || keys(om[0]) != "from,to,tokens" {
		t.Fatalf("omitted %s", items[0]["omitted"])
	}
	if string(top["missing"]) != `["nope"]` {
		t.Fatalf("missing %s", top["missing"])
	}
	whole, err := deref.New(s).Deref(context.Background(), []string{e.ID.String()}, deref.Options{Budget: 100000})
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(whole)
	if !strings.Contains(string(b), `"omitted":[]`) || !strings.Contains(string(b), `"missing":[]`) || !strings.Contains(string(b), `"complete":true`) {
		t.Fatalf("empty lists must be arrays: %s", b[:min(len(b), 300)])
	}
}

// TestBriefLeavesOutSummaryAndShow: a brief deref's header holds the ID
// alone (no summary, lines or tokens), its markers name the lines omitted
// but not the show command, and the room saved goes to the body: the same
// windows at least, within the same budget.
func TestBriefLeavesOutSummaryAndShow(t *testing.T) {
	s := openStore(t)
	body := numbered(400, func(i int) string {
		if i == 250 {
			return "    assert parse(x) == 4  # AssertionError: expected 4, got 3\n"
		}
		return ""
	})
	e := add(t, s, memex.Entry{ID: fixedID(2), Tool: "bash", Input: "make test",
		Summary: "bash: make test · exit 1 · AssertionError: expected 4, got 3"}, body)
	r := deref.New(s)
	ctx := context.Background()
	full, err := r.Deref(ctx, []string{e.ID.String()}, deref.Options{Budget: 500, Query: "parse"})
	if err != nil {
		t.Fatal(err)
	}
	brief, err := r.Deref(ctx, []string{e.ID.String()}, deref.Options{Budget: 500, Query: "parse", Brief: true})
	if err != nil {
		t.Fatal(err)
	}
	if brief.Used > 500 || brief.Used != summarize.CountString(brief.Text) {
		t.Errorf("brief used %d of 500, text counts %d", brief.Used, summarize.CountString(brief.Text))
	}
	for _, o := range brief.Items[0].Omitted {
		if !strings.Contains(brief.Text, fmt.Sprintf("[memex: lines %d-%d omitted (", o.From, o.To)) {
			t.Errorf("omission %+v has no marker:\n%s", o, brief.Text)
		}
	}
	head, _, _ := strings.Cut(brief.Text, "\n")
	if want := "[memex " + e.ID.String() + "]"; head != want {
		t.Errorf("brief header %q, want %q", head, want)
	}
	if strings.Contains(brief.Text, "memex show") || !strings.Contains(brief.Text, "omitted (") {
		t.Errorf("brief markers:\n%s", brief.Text)
	}
	if fh, _, _ := strings.Cut(full.Text, "\n"); !strings.Contains(fh, "] bash: make test") {
		t.Errorf("full header %q lacks the summary", fh)
	}
	if b, f := len(brief.Items[0].Windows), len(full.Items[0].Windows); b == 0 || shownLines(brief.Items[0]) < shownLines(full.Items[0]) {
		t.Errorf("brief shows %d lines in %d windows, full %d in %d", shownLines(brief.Items[0]), b, shownLines(full.Items[0]), f)
	}
}

func shownLines(it deref.Item) int {
	n := 0
	for _, l := range strings.Split(it.Content, "\n") {
		if strings.HasPrefix(l, "line ") {
			n++
		}
	}
	return n
}

// TestBinaryIsANote: an entry that is not valid UTF-8 is read as one line
// that says what it is and how to save it, never as its raw bytes; a text
// entry beside it still reads whole.
func TestBinaryIsANote(t *testing.T) {
	s := openStore(t)
	bin := add(t, s, memex.Entry{ID: fixedID(1), Tool: "cat"}, "\x7fELF\x02\x01\x01\x00\x00\xff\xfe binary\n\x00\x00")
	txt := add(t, s, memex.Entry{ID: fixedID(2), Tool: "bash"}, "plain text\n")
	res, err := deref.New(s).Deref(context.Background(), []string{bin.ID.String(), txt.ID.String()}, deref.Options{Budget: 400})
	if err != nil {
		t.Fatal(err)
	}
	note := "[memex: binary content (21 bytes) not shown; memex show " + bin.ID.String() + " > FILE saves it]\n"
	if !utf8.ValidString(res.Text) || strings.Contains(res.Text, "\x00") || !strings.Contains(res.Text, note) {
		t.Fatalf("text: %q", res.Text)
	}
	if it := res.Items[0]; !it.Binary || it.Complete || it.Content != note {
		t.Fatalf("binary item: %+v", it)
	}
	if it := res.Items[1]; it.Binary || !it.Complete || it.Content != "plain text\n" {
		t.Fatalf("text item: %+v", it)
	}
	if res.Used > 400 {
		t.Fatalf("used %d of 400", res.Used)
	}
}

// binaryBody is n bytes that are not valid UTF-8, the same every run.
func binaryBody(n int) string {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	b[0] = 0xff
	return string(b)
}

// decodeBase64Item splits a base64 item's content into the bytes its
// lines encode and its marker line ("" when none).
func decodeBase64Item(t *testing.T, content string) ([]byte, string) {
	t.Helper()
	var enc strings.Builder
	marker := ""
	for _, l := range strings.SplitAfter(content, "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "[memex: "):
			if marker != "" {
				t.Fatalf("two markers in %q", content)
			}
			marker = l
		case marker != "":
			t.Fatalf("a line after the marker in %q", content)
		default:
			if len(l) > 77 {
				t.Fatalf("base64 line of %d columns", len(l)-1)
			}
			enc.WriteString(strings.TrimSuffix(l, "\n"))
		}
	}
	b, err := base64.StdEncoding.DecodeString(enc.String())
	if err != nil {
		t.Fatalf("content is not base64 lines: %v\n%s", err, content)
	}
	return b, marker
}

// TestBinaryAsBase64: with Options.Base64 a binary entry reads as the
// base64 of its bytes from the start, within the budget: whole when it
// fits, else cut at a line with one marker that says which bytes were
// left out and how to get them; a text entry beside it reads as ever.
func TestBinaryAsBase64(t *testing.T) {
	s := openStore(t)
	body := binaryBody(5000)
	bin := add(t, s, memex.Entry{ID: fixedID(1), Tool: "cat"}, body)
	txt := add(t, s, memex.Entry{ID: fixedID(2), Tool: "bash"}, "plain text\n")
	ctx := context.Background()
	r := deref.New(s)
	for _, budget := range []int{150, 400, 1500} {
		res, err := r.Deref(ctx, []string{bin.ID.String(), txt.ID.String()}, deref.Options{Budget: budget, Base64: true})
		if err != nil {
			t.Fatalf("budget %d: %v", budget, err)
		}
		if res.Used > budget || !utf8.ValidString(res.Text) {
			t.Fatalf("budget %d: used %d, text %q", budget, res.Used, res.Text)
		}
		it := res.Items[0]
		if !it.Binary || it.Encoding != "base64" || it.Complete {
			t.Fatalf("budget %d: item %+v", budget, it)
		}
		got, marker := decodeBase64Item(t, it.Content)
		if !strings.HasPrefix(body, string(got)) {
			t.Fatalf("budget %d: the lines are not the entry's first bytes", budget)
		}
		want := fmt.Sprintf("bytes %s-5,000 of 5,000 not shown; memex show %s > FILE saves all]\n",
			summarize.Commas(len(got)+1), bin.ID)
		if !strings.HasSuffix(marker, want) {
			t.Fatalf("budget %d: marker %q, want it to end %q", budget, marker, want)
		}
		if len(it.Omitted) != 1 || it.Omitted[0].To != (5000+56)/57 || it.Omitted[0].From != len(got)/57+1 || it.Omitted[0].Tokens <= 0 {
			t.Fatalf("budget %d: omitted %+v", budget, it.Omitted)
		}
		if !strings.Contains(res.Text, "base64 of 5,000 bytes\n") {
			t.Fatalf("budget %d: header does not say base64: %q", budget, res.Text)
		}
		if it := res.Items[1]; it.Binary || it.Encoding != "" || !it.Complete || it.Content != "plain text\n" {
			t.Fatalf("budget %d: text item %+v", budget, it)
		}
		if budget == 150 && len(got) != 0 {
			t.Fatalf("budget 150: %d bytes shown, want the header and marker alone", len(got))
		}
		if budget == 1500 && len(got) < 1000 {
			t.Fatalf("budget 1500: only %d bytes shown", len(got))
		}
	}
	res, err := r.Deref(ctx, []string{bin.ID.String()}, deref.Options{Budget: 20000, Base64: true})
	if err != nil {
		t.Fatal(err)
	}
	it := res.Items[0]
	got, marker := decodeBase64Item(t, it.Content)
	if string(got) != body || marker != "" || !it.Complete || len(it.Omitted) != 0 {
		t.Fatalf("budget 20000: %d of 5000 bytes, marker %q, item %+v", len(got), marker, it.Omitted)
	}
}

// countingStore counts the look-ups a read makes of the archive.
type countingStore struct {
	*archive.Store
	resolves, gets int
}

func (c *countingStore) Resolve(ctx context.Context, ref, project string) (memex.ID, error) {
	c.resolves++
	return c.Store.Resolve(ctx, ref, project)
}

func (c *countingStore) Get(ctx context.Context, id memex.ID) (memex.Entry, error) {
	c.gets++
	return c.Store.Get(ctx, id)
}

// TestShowReadsTheEntryOnce: a budgeted show resolves its reference and
// reads the entry's metadata once, whether it shows it whole or in windows,
// and says how many credentials were replaced in it.
func TestShowReadsTheEntryOnce(t *testing.T) {
	s := openStore(t)
	e := add(t, s, memex.Entry{Aliases: []string{"log"}, Redacted: 2}, numbered(400, nil))
	for _, budget := range []int{100000, 300} {
		c := &countingStore{Store: s}
		it, _, err := deref.New(c).Show(context.Background(), "log", budget, "")
		if err != nil {
			t.Fatal(err)
		}
		if it.ID != e.ID.String() || it.Complete != (budget == 100000) {
			t.Fatalf("budget %d: item %s, complete %v", budget, it.ID, it.Complete)
		}
		if c.resolves != 1 || c.gets != 1 {
			t.Errorf("budget %d: %d resolves and %d gets of the entry, want 1 each", budget, c.resolves, c.gets)
		}
		if it.Redacted != 2 {
			t.Errorf("budget %d: redacted %d, want 2", budget, it.Redacted)
		}
	}
}

// TestShowHugeBudget: a budget near the largest int shows the entry whole;
// adding the header's tokens to it must not wrap around to a budget too
// small.
func TestShowHugeBudget(t *testing.T) {
	s := openStore(t)
	body := numbered(50, nil)
	add(t, s, memex.Entry{Aliases: []string{"log"}}, body)
	it, res, err := deref.New(s).Show(context.Background(), "log", math.MaxInt, "")
	if err != nil || it.Content != body || !it.Complete || res.Budget != math.MaxInt {
		t.Fatalf("show in %d tokens: complete %v, budget %d, %v", math.MaxInt, it.Complete, res.Budget, err)
	}
}
