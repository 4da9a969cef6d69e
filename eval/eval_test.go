package eval

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memex-archive/memex"
	"github.com/memex-archive/memex/archive"
	"github.com/memex-archive/memex/deref"
	"github.com/memex-archive/memex/index"
	"github.com/memex-archive/memex/ingest"
	"github.com/memex-archive/memex/internal/catchup"
	"github.com/memex-archive/memex/internal/testutil"
	"github.com/memex-archive/memex/summarize"
)

func openEnv(t *testing.T) Env {
	t.Helper()
	s, err := archive.Open("", &archive.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ix, err := index.Open("", &index.Options{InMemory: true, Content: s.Body, Entry: s.Get})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return Env{Store: s, Index: ix}
}

// searched resolves p against its session and runs its search, as Budget
// does before assembling the strategies' contexts.
func searched(t *testing.T, env Env, p Probe) *probeCtx {
	t.Helper()
	ctx := context.Background()
	steps, err := loadSession(ctx, env.Store, p.Session)
	if err != nil {
		t.Fatal(err)
	}
	pc, err := resolve(ctx, env.Store, p, steps)
	if err != nil {
		t.Fatal(err)
	}
	if pc.hits, err = search(ctx, env, pc); err != nil {
		t.Fatal(err)
	}
	return pc
}

func catchUp(t *testing.T, env Env) {
	t.Helper()
	if _, err := catchup.CatchUp(context.Background(), env.Store, env.Index); err != nil {
		t.Fatal(err)
	}
}

// addSession archives a small session exercising the three probe rules:
// a failed run re-run with other output, and a file read, edited and read
// again, followed by filler that pushes the evidence back.
func addSession(t *testing.T, env Env, session string) {
	t.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	type ent struct {
		kind           memex.Kind
		input, summary string
		exit           int
		body           string
	}
	filler := strings.Repeat("The agent thinks about the next change and writes it down at length.\n", 40)
	ents := []ent{
		{memex.KindMessage, "", "", 0, "Fix the totals bug in app.py\n"},
		{memex.KindTool, "cat app.py", "bash: cat app.py · exit 0 · read app.py (3 lines)", 0,
			"def main():\n    x = compute_total(values)\n    return x\n"},
		{memex.KindTool, "python run.py", "bash: python run.py · exit 1 · ValueError", 1,
			"Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\nValueError: bad total in compute step 42\n"},
		{memex.KindTool, "sed -i 's/compute_total/fixed_total/' app.py", "bash: sed -i · exit 0 · edited app.py (sed -i)", 0, ""},
		{memex.KindTool, "cat app.py", "bash: cat app.py · exit 0 · read app.py (3 lines)", 0,
			"def main():\n    x = fixed_total(values)\n    return x\n"},
		{memex.KindTool, "python run.py", "bash: python run.py · exit 0 · all totals computed", 0, "all totals computed fine: 17 items\n"},
		{memex.KindReasoning, "", "", 0, filler},
		{memex.KindReasoning, "", "", 0, filler},
		{memex.KindMessage, "", "", 0, "Done.\n"},
	}
	for i, e := range ents {
		me := memex.Entry{Project: "example.com/app", Session: session, Agent: "test", Kind: e.kind,
			Input: e.input, Summary: e.summary, Created: t0.Add(time.Duration(i) * time.Second)}
		if e.kind == memex.KindTool {
			me.Tool = "bash"
			me.Exit = memex.IntPtr(e.exit)
		}
		if _, err := env.Store.Add(ctx, me, strings.NewReader(e.body)); err != nil {
			t.Fatal(err)
		}
	}
}

// checkProbes asserts the derivation's promises against the archive: the
// answer occurs once in its session, before the probe's point, and never
// in the query.
func checkProbes(t *testing.T, env Env, probes []Probe) {
	t.Helper()
	ctx := context.Background()
	for _, p := range probes {
		if strings.Contains(strings.ToLower(p.Query), strings.ToLower(p.Answer)) {
			t.Errorf("%s: query %q contains answer %q", p.ID, p.Query, p.Answer)
		}
		steps, err := loadSession(ctx, env.Store, p.Session)
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, st := range steps {
			all.WriteString(st.text)
		}
		if n := strings.Count(all.String(), p.Answer); n != 1 {
			t.Errorf("%s: answer %q occurs %d times in the session", p.ID, p.Answer, n)
		}
		if _, err := resolve(ctx, env.Store, p, steps); err != nil {
			t.Errorf("%s: %v", p.ID, err)
		}
	}
}

func TestDeriveFindsEachShapeDeterministically(t *testing.T) {
	env := openEnv(t)
	addSession(t, env, "s1")
	addSession(t, env, "s2")
	ctx := context.Background()
	a, err := Derive(ctx, env.Store, DeriveOptions{Project: "example.com/app", Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, p := range a {
		kinds[p.Kind]++
	}
	// Each session gives one probe of each shape.
	if want := map[string]int{KindRerun: 2, KindFailure: 2, KindEdit: 2}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("kinds = %v, want %v\n%v", kinds, want, a)
	}
	for _, p := range a {
		if p.Kind == KindEdit && p.Answer != "x = compute_total(values)" {
			t.Errorf("edit answer = %q, want the line the edit removed", p.Answer)
		}
	}
	checkProbes(t, env, a)
	b, err := Derive(ctx, env.Store, DeriveOptions{Sessions: []string{"s2", "s1"}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("derivation depends on the order sessions are named:\n%v\n%v", a, b)
	}
	c, err := Derive(ctx, env.Store, DeriveOptions{All: true, Seed: 7, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := Derive(ctx, env.Store, DeriveOptions{All: true, Seed: 7, Max: 3})
	if len(c) != 3 || !reflect.DeepEqual(c, d) {
		t.Fatalf("a sample of 3 with one seed: %v then %v", c, d)
	}
	if _, err := Derive(ctx, env.Store, DeriveOptions{}); err == nil {
		t.Fatal("derive with no sessions named succeeded")
	}
}

func TestProbesRoundTrip(t *testing.T) {
	in := []Probe{{ID: "a", Project: "p", Session: "s", At: "3", Query: "q", Answer: "<x> & y", Kind: KindRerun}}
	var sb strings.Builder
	if err := WriteProbes(&sb, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadProbes(strings.NewReader("\n" + sb.String() + "\n"))
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip: %v, %v", out, err)
	}
	if _, err := ReadProbes(strings.NewReader(`{"session":"s","at":"1"}`)); err == nil {
		t.Fatal("a probe without an answer was accepted")
	}
}

func TestBudgetStaysWithinBudget(t *testing.T) {
	env := openEnv(t)
	addSession(t, env, "s1")
	catchUp(t, env)
	ctx := context.Background()
	probes, err := Derive(ctx, env.Store, DeriveOptions{All: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// A step index works as the point too; an answer absent before its
	// point is skipped, not run.
	probes = append(probes, Probe{ID: "by-step", Session: "s1", At: "5", Query: "python run.py", Answer: "bad total in compute step 42"},
		Probe{ID: "later", Session: "s1", At: "2", Query: "python run.py", Answer: "all totals computed fine"})
	budgets := []int{40, 150, 600, 5000}
	outs, skipped, err := Budget(ctx, env, probes, BudgetOptions{Budgets: budgets})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(skipped, []string{"later"}) {
		t.Fatalf("skipped = %v", skipped)
	}
	if want := (len(probes) - 1) * len(budgets) * len(Strategies); len(outs) != want {
		t.Fatalf("%d outcomes, want %d", len(outs), want)
	}
	for _, o := range outs {
		if o.Tokens > o.Budget {
			t.Errorf("%s %s at %d used %d", o.Probe, o.Strategy, o.Budget, o.Tokens)
		}
		// The whole session is ~1,300 tokens: at 5,000 the raw transcript
		// holds every answer.
		if o.Budget == 5000 && o.Strategy == Truncate && !o.Hit {
			t.Errorf("%s: truncate at 5000 missed", o.Probe)
		}
		if o.Budget == 5000 && o.Strategy == Memex && !o.Hit {
			t.Errorf("%s: memex at 5000 missed", o.Probe)
		}
	}
}

// TestMemexShowsTheTopHitWholeWhenItFits: hits are dereferenced one at a
// time in rank order, each with all the budget still free, so a top hit
// that fits comes whole even when more hits follow (an equal split among
// them would cut it to windows and lose the line in its middle).
func TestMemexShowsTheTopHitWholeWhenItFits(t *testing.T) {
	env := openEnv(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var long strings.Builder
	for i := range 60 {
		fmt.Fprintf(&long, "step %d of the widget build went through stage %d\n", i, i*7)
		if i == 30 {
			long.WriteString("checksum of the middle artefact was 7f3a9c\n")
		}
	}
	add := func(i int, input, summary, body string) {
		e := memex.Entry{Project: "p", Session: "s", Agent: "test", Kind: memex.KindTool, Tool: "bash",
			Input: input, Summary: summary, Exit: memex.IntPtr(0), Created: t0.Add(time.Duration(i) * time.Second)}
		if _, err := env.Store.Add(ctx, e, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
	}
	add(0, "make widget", "bash: make widget · exit 0 · widget built", long.String())
	for i := 1; i <= 3; i++ {
		add(i, fmt.Sprintf("echo %d", i), "bash: echo · exit 0", strings.Repeat(fmt.Sprintf("a widget note %d\n", i), 40))
	}
	add(4, "ls", "bash: ls · exit 0", "README\n")
	catchUp(t, env)
	p := Probe{ID: "p1", Project: "p", Session: "s", At: "4", Query: "make widget", Answer: "checksum of the middle artefact was 7f3a9c"}
	pc := searched(t, env, p)
	whole := summarize.CountString(long.String())
	budget := whole + 300
	text, n, err := memexContext(ctx, env, deref.New(env.Store), pc, budget, false, BudgetOptions{SummaryShare: SummaryShare})
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize.CountString(text); got > budget {
		t.Fatalf("used %d of %d", got, budget)
	}
	if !strings.Contains(text, long.String()) || n < 1 {
		t.Errorf("top hit (%d tokens) not whole in a %d-token context of %d derefs:\n%s", whole, budget, n, text)
	}
}

// TestSummaryOfNoBudgetIsEmpty: when the derefs take the whole budget,
// the IndexedSummary gets none and must yield nothing; when deref's
// Context read a zero budget as its default, the context ran over and was
// cut from its end, the derefs first.
// RunBudget reports what Budget measured, and keeps the outcomes, the
// plot and the run where it is asked to, and nothing where it is not.
func TestRunBudgetKeeps(t *testing.T) {
	env := openEnv(t)
	addSession(t, env, "s1")
	catchUp(t, env)
	ctx := context.Background()
	probes, err := Derive(ctx, env.Store, DeriveOptions{All: true, Seed: 1})
	if err != nil || len(probes) == 0 {
		t.Fatalf("%d probes, %v", len(probes), err)
	}
	opts := BudgetOptions{Budgets: []int{150, 600}}
	dir := t.TempDir()
	rep, saved, err := RunBudget(ctx, env, probes, opts, Keep{})
	if err != nil || saved != "" || rep.Probes != len(probes) || !reflect.DeepEqual(rep.Budgets, opts.Budgets) {
		t.Fatalf("nothing kept: saved %q, %+v, %v", saved, rep, err)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Fatalf("nothing kept, yet %d files", len(files))
	}
	keep := Keep{Outcomes: filepath.Join(dir, "o.jsonl"), Plot: filepath.Join(dir, "hit.svg"), SaveDir: filepath.Join(dir, "runs"), Probes: "p.jsonl"}
	rep2, saved, err := RunBudget(ctx, env, probes, opts, keep)
	if err != nil || rep2.Probes != rep.Probes || len(rep2.Cells) != len(rep.Cells) {
		t.Fatalf("%v; %d probes, %d cells; want %d, %d", err, rep2.Probes, len(rep2.Cells), rep.Probes, len(rep.Cells))
	}
	for i, c := range rep2.Cells { // the same hits; the times differ
		if c.Strategy != rep.Cells[i].Strategy || c.Rate != rep.Cells[i].Rate {
			t.Errorf("cell %d: %+v, want %+v", i, c.Rate, rep.Cells[i].Rate)
		}
	}
	outcomes, _ := os.ReadFile(keep.Outcomes)
	plot, _ := os.ReadFile(keep.Plot)
	if n := strings.Count(string(outcomes), "\n"); n != len(probes)*len(opts.Budgets)*len(Strategies) || !strings.HasPrefix(string(plot), "<svg") {
		t.Errorf("%d outcome lines, plot %.20q", n, plot)
	}
	runs, _, err := LoadRuns(keep.SaveDir)
	if err != nil || len(runs) != 1 || filepath.Dir(saved) != keep.SaveDir || runs[0].Probes != "p.jsonl" {
		t.Errorf("saved %q: %+v, %v", saved, runs, err)
	}
}

func TestSummaryOfNoBudgetIsEmpty(t *testing.T) {
	env := openEnv(t)
	addSession(t, env, "s1")
	catchUp(t, env)
	ctx := context.Background()
	steps, err := loadSession(ctx, env.Store, "s1")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := resolve(ctx, env.Store, Probe{ID: "p", Session: "s1", At: "5", Query: "python run.py", Answer: "bad total"}, steps)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{0, -3} {
		text, _, err := summary(ctx, deref.New(env.Store), pc, b)
		if err != nil || text != "" {
			t.Errorf("summary at %d = %q, %v; want nothing", b, text, err)
		}
	}
}

func TestFitHelpersRespectBudget(t *testing.T) {
	text := strings.Repeat("alpha beta gamma delta\n", 50) + "one very long last line " + strings.Repeat("x", 500) + "\n"
	steps := []step{{text: text}}
	for _, b := range []int{0, 1, 5, 50, 100, 10000} {
		if got := summarize.CountString(truncate(steps, b)); got > b {
			t.Errorf("truncate at %d: %d tokens", b, got)
		}
		if got := summarize.CountString(headFit(text, b)); got > b {
			t.Errorf("headFit at %d: %d tokens", b, got)
		}
	}
	if got := truncate(steps, 10000); got != text {
		t.Error("truncate with room for all lost text")
	}
	if got := headFit("a\nb\n", 10000); got != "a\nb\n" {
		t.Errorf("headFit with room for all = %q", got)
	}
}

func TestWilsonMatchesHandComputed(t *testing.T) {
	// Computed by hand from (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n).
	for _, c := range []struct {
		hits, n int
		lo, hi  float64
	}{
		{8, 10, 0.490157, 0.943319},
		{0, 10, 0, 0.277540},
		{10, 10, 0.722460, 1},
		{1, 2, 0.094529, 0.905471},
		{0, 0, 0, 1},
	} {
		lo, hi := Wilson(c.hits, c.n, 1.96)
		if math.Abs(lo-c.lo) > 1e-5 || math.Abs(hi-c.hi) > 1e-5 {
			t.Errorf("Wilson(%d, %d) = [%f, %f], want [%f, %f]", c.hits, c.n, lo, hi, c.lo, c.hi)
		}
	}
}

func TestSummarizeAggregates(t *testing.T) {
	ms := time.Millisecond
	outs := []Outcome{
		{Probe: "a", Strategy: Memex, Budget: 100, Hit: true, Tokens: 90, Derefs: 2, Latency: 2 * ms, StepsBack: 1, TokensBack: 500},
		{Probe: "b", Strategy: Memex, Budget: 100, Hit: false, Tokens: 50, Derefs: 1, Latency: 4 * ms, StepsBack: 30, TokensBack: 9000},
		{Probe: "c", Strategy: Memex, Budget: 100, Hit: true, Tokens: 70, Derefs: 0, Latency: 6 * ms, StepsBack: 30, TokensBack: 8000},
		{Probe: "a", Strategy: Truncate, Budget: 100, Hit: false, Tokens: 100},
	}
	cells := Summarize(outs, []string{Memex, Truncate}, []int{100})
	if len(cells) != 2 {
		t.Fatalf("%d cells", len(cells))
	}
	m := cells[0]
	if m.N != 3 || m.Hits != 2 || math.Abs(m.Rate.Rate-2.0/3) > 1e-9 || m.MeanTokens != 70 || m.MeanDerefs != 1 || m.MeanMillis != 4 {
		t.Fatalf("memex cell = %+v", m)
	}
	// 1-4 steps: a (hit); 20+ steps: b (miss), c (hit).
	if s := m.BySteps; s[0].N != 1 || s[0].Hits != 1 || s[1].N != 0 || s[2].N != 2 || s[2].Hits != 1 {
		t.Fatalf("by steps = %+v", s)
	}
	// <1k: a; >8k: b and c (8,000 is the bucket's lower bound).
	if b := m.ByTokens; b[0].N != 1 || b[3].N != 2 || b[3].Hits != 1 || b[2].N != 0 {
		t.Fatalf("by tokens = %+v", b)
	}
	if tr := cells[1]; tr.N != 1 || tr.Hits != 0 || tr.MeanTokens != 100 {
		t.Fatalf("truncate cell = %+v", tr)
	}
	var sb strings.Builder
	if err := WriteTable(&sb, Report{Probes: 3, Budgets: []int{100}, Strategies: []string{Memex, Truncate}, Cells: cells}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), "66.7%") {
		t.Errorf("table lacks the memex rate:\n%s", sb.String())
	}
	svg := Plot(Report{Budgets: []int{100}, Strategies: []string{Memex, Truncate}, Cells: cells})
	if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "memex") {
		t.Errorf("plot = %q", svg)
	}
}

// TestCorpora derives probes from real trajectories and runs every
// strategy on them: derivation is repeatable, never leaks, and no context
// exceeds its budget.
func TestCorpora(t *testing.T) {
	dir := testutil.Corpora(t)
	if testing.Short() {
		t.Skip("ingests real trajectories")
	}
	env := openEnv(t)
	ctx := context.Background()
	paths := []string{filepath.Join(dir, "swe-agent"), filepath.Join(dir, "mini-swe-agent", "sympy__sympy-23534"),
		filepath.Join(dir, "mini-swe-agent", "django__django-11848")}
	if _, err := ingest.Run(ctx, env.Store, ingest.Options{Format: ingest.Auto, Paths: paths}); err != nil {
		t.Fatal(err)
	}
	catchUp(t, env)
	a, err := Derive(ctx, env.Store, DeriveOptions{All: true, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Derive(ctx, env.Store, DeriveOptions{All: true, Seed: 42})
	if len(a) == 0 || !reflect.DeepEqual(a, b) {
		t.Fatalf("derivation: %d probes, repeatable %v", len(a), reflect.DeepEqual(a, b))
	}
	checkProbes(t, env, a)
	outs, skipped, err := Budget(ctx, env, a, BudgetOptions{Budgets: []int{300, 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) > 0 {
		t.Errorf("derived probes skipped: %v", skipped)
	}
	t.Logf("%d probes, %d outcomes", len(a), len(outs))

	// The committed probes name their points by step, so they resolve
	// against this fresh import of the same transcripts.
	f, err := os.Open(filepath.Join("testdata", "corpora-seed42.probes.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	committed, err := ReadProbes(f)
	if err != nil {
		t.Fatal(err)
	}
	var mine []Probe
	for _, p := range committed {
		if p.Session == "sympy__sympy-23534" || p.Session == "django__django-11848" {
			mine = append(mine, p)
		}
	}
	if len(mine) == 0 {
		t.Fatal("no committed probes for the imported sessions")
	}
	if _, skipped, err := Budget(ctx, env, mine, BudgetOptions{Budgets: []int{1000}}); err != nil || len(skipped) > 0 {
		t.Fatalf("committed probes: skipped %v, %v", skipped, err)
	}
}

func TestSedChanged(t *testing.T) {
	numbered := []string{"   10\tdef f(x):", "   11\t    return symbols(name, **args)", "   12\t    pass"}
	plain := []string{"<returncode>0</returncode>", "<output>", "def f(x):", "    y = old_call(x)", "    pass", "</output>"}
	for _, c := range []struct {
		name, input, summary string
		read                 []string
		want                 []string
	}{
		{"substitution", `sed -i 's/symbols(name, \*\*args)/symbols(name, cls=cls, \*\*args)/' a.py`, "", numbered,
			[]string{"return symbols(name, **args)"}},
		{"addressed substitution elsewhere", `sed -i '12s/symbols/x/' a.py`, "", numbered, nil},
		{"double quotes", `sed -i "s|old_call|new_call|" a.py`, "", plain, []string{"y = old_call(x)"}},
		{"regex pattern", `sed -i 's/old_.*/new/' a.py`, "", plain, nil},
		{"change numbered line", `sed -i '11c\    return 1' a.py`, "", numbered, []string{"return symbols(name, **args)"}},
		{"delete range of a ranged read", `sed -i '41,41d' a.py`, "bash: sed -n '40,42p' a.py · exit 0 · read a.py (lines 40-42): 3 lines", plain,
			[]string{"y = old_call(x)"}},
		{"insert removes nothing", `sed -i '11i\    # note' a.py`, "", numbered, nil},
		{"not sed", `python fix.py`, "", numbered, nil},
	} {
		if got := sedChanged(c.input, c.summary, c.read); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestDeriveReadAndGrep: the read and grep rules, asked for as an agent
// names a structured tool call (by its path, by its pattern), and only
// when asked for: the default rules are those the committed probes used.
func TestDeriveReadAndGrep(t *testing.T) {
	mk := func(tool, input, summary, body string) step {
		e := memex.Entry{Session: "s", Kind: memex.KindTool, Tool: tool, Input: input, Summary: summary, Exit: memex.IntPtr(0)}
		return step{e: e, body: body, text: render(e, body)}
	}
	steps := []step{
		mk("Read", `{"file_path":"/repo/app/settings.py"}`, "Read: /repo/app/settings.py · exit 0 · read /repo/app/settings.py: 3 lines, Python",
			"     1→import os\n     2→DATABASE_URL = os.environ['DATABASE_URL']\n     3→DEBUG = False\n"),
		mk("Grep", `{"pattern":"load_user_settings","path":"src"}`, "Grep: load_user_settings in src · exit 0 · 2 matches",
			"src/settings.py:88:def load_user_settings(path):\nsrc/app.py:12:    configuration = load_user_settings(p)\n"),
		mk("Bash", `{"command":"ls"}`, "Bash: ls · exit 0", "a\nb\n"),
		mk("Bash", `{"command":"pwd"}`, "Bash: pwd · exit 0", "/repo\n"),
	}
	got := deriveSession(steps, 1, 3, AllKinds)
	kinds := map[string]Probe{}
	for _, p := range got {
		kinds[p.Kind] = p
	}
	if p, ok := kinds[KindRead]; !ok || p.Query != "/repo/app/settings.py" ||
		p.Answer != "DATABASE_URL = os.environ['DATABASE_URL']" && p.Answer != "DEBUG = False" {
		t.Errorf("read probe %+v", p)
	}
	if p, ok := kinds[KindGrep]; !ok || p.Query != "load_user_settings" || !strings.Contains(p.Answer, "load_user_settings(") {
		t.Errorf("grep probe %+v", p)
	}
	if got := deriveSession(steps, 1, 3, DefaultKinds); len(got) != 0 {
		t.Errorf("default rules derived %+v", got)
	}
	if q := askedAs(memex.Entry{Input: `{"command":"go test ./...","description":"run"}`}); q != "go test ./..." {
		t.Errorf("askedAs = %q", q)
	}
	if p, ok := grepPattern(memex.Entry{Input: `grep -rn "nil map" ./auth`}); !ok || p != "nil map" {
		t.Errorf("grepPattern = %q %v", p, ok)
	}
}

// TestOrderTiesNewestFirst: hits whose scores differ only in their last
// bits (as one search's sums and the next one's do) are put newest first,
// whatever order they came in; hits of other scores keep their places.
func TestOrderTiesNewestFirst(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := func(s int) memex.ID { return memex.IDFloor(base.Add(time.Duration(s) * time.Second)) }
	tie := 0.9724806640684824
	in := []index.Hit{
		{ID: id(9), Score: 1.5},
		{ID: id(1), Score: tie},
		{ID: id(3), Score: math.Nextafter(tie, 2)},
		{ID: id(2), Score: tie},
		{ID: id(0), Score: 0.5},
	}
	want := []memex.ID{id(9), id(3), id(2), id(1), id(0)}
	for _, perm := range [][]int{{0, 1, 2, 3, 4}, {0, 3, 1, 2, 4}, {0, 2, 3, 1, 4}} {
		hits := make([]index.Hit, len(in))
		for i, p := range perm {
			hits[i] = in[p]
		}
		var got []memex.ID
		for _, h := range orderTies(hits) {
			got = append(got, h.ID)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("order %v: got %v, want %v", perm, got, want)
		}
	}
}

// TestMemexShowsAnOutputOnce: runs of one command that printed the same
// bytes are shown once; the budget they would take again goes to the next
// hit, here the older run whose output differed.
func TestMemexShowsAnOutputOnce(t *testing.T) {
	env := openEnv(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	same := strings.Repeat("python check.py: every widget is in stock and priced\n", 6)
	add := func(i int, body string) {
		e := memex.Entry{Project: "p", Session: "s", Agent: "test", Kind: memex.KindTool, Tool: "bash",
			Input: "python check.py", Summary: "bash: python check.py · exit 0", Exit: memex.IntPtr(0),
			Created: t0.Add(time.Duration(i) * time.Second)}
		if _, err := env.Store.Add(ctx, e, strings.NewReader(body)); err != nil {
			t.Fatal(err)
		}
	}
	add(0, "python check.py: widget 12 out of stock\n"+strings.Repeat("python check.py: widget priced\n", 5))
	for i := 1; i <= 4; i++ {
		add(i, same)
	}
	add(5, "done\n")
	catchUp(t, env)
	pc := searched(t, env, Probe{ID: "p", Project: "p", Session: "s", At: "5", Query: "python check.py", Answer: "widget 12 out of stock"})
	if len(pc.hits) != 5 {
		t.Fatalf("%d hits, want the 5 runs", len(pc.hits))
	}
	// Room for two outputs with their headers, not for five.
	budget := 2*summarize.CountString(same) + 60
	text, n, err := memexContext(ctx, env, deref.New(env.Store), pc, budget, false, BudgetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize.CountString(text); got > budget {
		t.Fatalf("used %d of %d", got, budget)
	}
	if c := strings.Count(text, same); c != 1 || n != 2 || !strings.Contains(text, pc.p.Answer) {
		t.Errorf("%d derefs, the repeated output %d times, answer shown %v:\n%s", n, c, strings.Contains(text, pc.p.Answer), text)
	}
}

// TestMemexPassesOverAnEntryTheQueryHolds: a file search whose whole
// output is the path asked for ranks among the hits for that path, and
// its header and line cost the lines of the file read after it; the agent
// wrote those bytes itself, so memex gives them to the read.
func TestMemexPassesOverAnEntryTheQueryHolds(t *testing.T) {
	env := openEnv(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const path = "/home/dev/shop/src/report_totals.py"
	var file strings.Builder
	for i := range 120 {
		fmt.Fprintf(&file, "%4d→    total_%d = sum(row.amount for row in rows_%d)\n", i+1, i, i)
	}
	add := func(i int, tool, input, body string) memex.ID {
		e := memex.Entry{Project: "p", Session: "s", Agent: "test", Kind: memex.KindTool, Tool: tool,
			Input: input, Summary: tool + ": " + input, Exit: memex.IntPtr(0), Created: t0.Add(time.Duration(i) * time.Second)}
		id, err := env.Store.Add(ctx, e, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return id.ID
	}
	read := add(0, "Read", path, file.String())
	glob := add(1, "Glob", "**/report_totals.py", path+"\n")
	add(2, "Bash", "ls", "README\n")
	catchUp(t, env)
	answer := "total_60 = sum(row.amount for row in rows_60)"
	pc := searched(t, env, Probe{ID: "p", Project: "p", Session: "s", At: "2", Query: path, Answer: answer})
	if len(pc.hits) != 2 {
		t.Fatalf("%d hits, want the read and the search", len(pc.hits))
	}
	// The search first, as it ranks on Claude Code's transcripts (its
	// body is short and all path).
	if pc.hits[0].ID != glob {
		pc.hits[0], pc.hits[1] = pc.hits[1], pc.hits[0]
	}
	// Room for the read's head through the answer with its header and
	// marker, not for the search's header and line besides.
	through := file.String()[:strings.Index(file.String(), answer)+len(answer)+1]
	budget := summarize.CountString(through) + 45
	text, n, err := memexContext(ctx, env, deref.New(env.Store), pc, budget, false, BudgetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize.CountString(text); got > budget {
		t.Fatalf("used %d of %d", got, budget)
	}
	if strings.Contains(text, glob.String()) || !strings.Contains(text, read.String()) || n != 1 || !strings.Contains(text, answer) {
		t.Errorf("%d derefs, search shown %v, answer shown %v:\n%s", n, strings.Contains(text, glob.String()), strings.Contains(text, answer), text)
	}
}

// TestMemexPassesOverALessonOfThePage: a lesson ranks before the failed
// run it cites, and its body is that run's summary line and others; with
// the run on the page, the budget goes to the run's own lines.
func TestMemexPassesOverALessonOfThePage(t *testing.T) {
	env := openEnv(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	add := func(i int, e memex.Entry, body string) memex.ID {
		e.Project, e.Session, e.Agent, e.Created = "p", "s", "test", t0.Add(time.Duration(i)*time.Second)
		id, err := env.Store.Add(ctx, e, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return id.ID
	}
	var out strings.Builder
	for i := range 30 {
		fmt.Fprintf(&out, "checking widget %d of the stock list\n", i)
	}
	out.WriteString("ValueError: widget 12 has no price\n")
	run := add(0, memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "python check.py", Exit: memex.IntPtr(1),
		Summary: "bash: python check.py · exit 1 · ValueError: widget 12 has no price"}, out.String())
	var lesson strings.Builder
	lesson.WriteString("lesson (fixed): python check.py failed: ValueError: widget 12 has no price\n\nevidence (memex show ID):\n")
	for i := range 12 {
		fmt.Fprintf(&lesson, "%s  failed · bash: python check.py · exit 1 · ValueError: widget %d has no price, see the stock list\n", run, i)
	}
	les := add(1, memex.Entry{Kind: memex.KindLesson, Summary: "lesson (fixed): python check.py failed: ValueError",
		Attrs: map[string]string{"status": "fixed", "cites": run.String()}}, lesson.String())
	add(2, memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "ls", Exit: memex.IntPtr(0), Summary: "bash: ls"}, "README\n")
	catchUp(t, env)
	answer := "ValueError: widget 12 has no price"
	pc := searched(t, env, Probe{ID: "p", Project: "p", Session: "s", At: "2", Query: "python check.py error", Answer: answer})
	if len(pc.hits) != 2 || pc.hits[0].ID != les {
		t.Fatalf("hits %v, want the lesson, then the run", pc.hits)
	}
	// Room for the run whole with its header, not for the lesson besides.
	budget := summarize.CountString(out.String()) + 30
	if budget >= summarize.CountString(lesson.String())+30+summarize.CountString(out.String()) {
		t.Fatal("the budget holds both")
	}
	text, n, err := memexContext(ctx, env, deref.New(env.Store), pc, budget, false, BudgetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize.CountString(text); got > budget {
		t.Fatalf("used %d of %d", got, budget)
	}
	if strings.Contains(text, les.String()) || n != 1 || !strings.Contains(text, out.String()) {
		t.Errorf("%d derefs, lesson shown %v, run whole %v:\n%s", n, strings.Contains(text, les.String()), strings.Contains(text, out.String()), text)
	}
}

// TestMemexSharesTheBudgetAmongTiedHits runs one command twice with
// outputs of one size: the search scores the runs alike, and the older
// holds the answer in its last line. Neither fits whole; the newer, first
// among the tied hits, took all the budget before.
func TestMemexSharesTheBudgetAmongTiedHits(t *testing.T) {
	env := openEnv(t)
	ctx := context.Background()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	outputOf := func(failed int) string {
		var out strings.Builder
		for i := range 200 {
			fmt.Fprintf(&out, "scanning item %03d of the stock list\n", i)
		}
		fmt.Fprintf(&out, "check.py: %d failed\n", failed)
		return out.String()
	}
	var runs []memex.ID
	for i, failed := range []int{6, 5} {
		e := memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "python check.py", Exit: memex.IntPtr(1),
			Summary: "bash: python check.py · exit 1", Project: "p", Session: "s", Agent: "test",
			Created: t0.Add(time.Duration(i) * time.Second)}
		id, err := env.Store.Add(ctx, e, strings.NewReader(outputOf(failed)))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, id.ID)
	}
	if _, err := env.Store.Add(ctx, memex.Entry{Kind: memex.KindTool, Tool: "bash", Input: "ls", Exit: memex.IntPtr(0),
		Summary: "bash: ls", Project: "p", Session: "s", Agent: "test", Created: t0.Add(2 * time.Second)},
		strings.NewReader("README\n")); err != nil {
		t.Fatal(err)
	}
	catchUp(t, env)
	pc := searched(t, env, Probe{ID: "p", Project: "p", Session: "s", At: "2", Query: "python check.py",
		Answer: "check.py: 6 failed"})
	if len(pc.hits) != 2 || pc.hits[0].ID != runs[1] || !sameScore(pc.hits[0].Score, pc.hits[1].Score) {
		t.Fatalf("hits %v, want the two runs, newest first, of one score", pc.hits)
	}
	budget := 600
	if summarize.CountString(outputOf(5)) < budget {
		t.Fatal("a run fits whole")
	}
	text, n, err := memexContext(ctx, env, deref.New(env.Store), pc, budget, false, BudgetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize.CountString(text); got > budget {
		t.Fatalf("used %d of %d", got, budget)
	}
	if n != 2 || !strings.Contains(text, "check.py: 6 failed") || !strings.Contains(text, "check.py: 5 failed") {
		t.Errorf("%d derefs, want both runs' last lines:\n%s", n, text)
	}
	// Room for the newer whole: it is shown whole, as any hit that fits.
	budget = summarize.CountString(outputOf(5)) + 40
	if text, _, err = memexContext(ctx, env, deref.New(env.Store), pc, budget, false, BudgetOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, outputOf(5)) {
		t.Errorf("the newer run not whole at %d tokens:\n%s", budget, text)
	}
}
