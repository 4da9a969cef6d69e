package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/memex-archive/memex/eval"
	"github.com/memex-archive/memex/internal/cli"
	"github.com/memex-archive/memex/internal/home"
	"github.com/memex-archive/memex/internal/service"
	"github.com/spf13/cobra"
)

func (a *app) evalCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "eval probes|budget|retrieval|experience",
		Short: "Measure what each context strategy keeps at a token budget",
		Long: `Derive probes from archived sessions and measure, for each probe and budget, whether
the evidence it needs survives in the context that truncation, a summary alone, plain
retrieval and memex (summary + search + deref) assemble; score memex's index on the
LongMemEval and LoCoMo retrieval benchmarks beside BM25 and SQLite FTS5. See docs/eval.md.`,
	}
	c.AddCommand(a.evalProbesCommand(), a.evalBudgetCommand(), a.evalRetrievalCommand(), a.evalExperienceCommand())
	return c
}

func (a *app) evalProbesCommand() *cobra.Command {
	var o eval.DeriveOptions
	var kinds string
	c := &cobra.Command{
		Use:   "probes SESSION...|--project P [--seed N] [--max N]",
		Short: "Derive probes (JSON lines) from archived sessions",
		Long: `Derive probes mechanically from archived sessions: a command re-run with changed
output, a failure followed by more work, a file read then edited. Each probe is one JSON
line {"id","project","session","at","query","answer","kind"}. The same archive, seed and
maximum give the same probes. --project takes every session of the project (a prefix
of the project name at a path boundary; "" with --project takes all sessions).
--kinds adds rules: read (a line of a file read, asked for by its path) and grep (a
line a search of files found, asked for by its pattern). A structured tool call (Claude
Code's Read, Grep, Bash, ...) is asked for by its command, path or pattern.`,
		Example: `  memex eval probes django__django-11848
  memex eval probes --project github.com --seed 7 --max 300 > probes.jsonl
  memex eval probes --project "" --kinds all --seed 42 > claude-code.probes.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 && !c.Flags().Changed("project") {
				return cli.Usagef("eval probes needs a SESSION or --project\nUsage: %s", c.UseLine())
			}
			var err error
			if o.Kinds, err = eval.ParseKinds(kinds); err != nil {
				return cli.Usagef("--kinds: %v", err)
			}
			ctx := c.Context()
			s, err := a.readStore(ctx)
			if err != nil {
				return err
			}
			o.Sessions, o.All = args, o.Project == ""
			ps, err := eval.Derive(ctx, s, o)
			if err != nil {
				return err
			}
			return eval.WriteProbes(a.stdout, ps)
		},
	}
	f := c.Flags()
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the choices among candidates")
	f.IntVar(&o.Max, "max", 0, "keep at most this many probes (a seeded sample; 0 keeps all)")
	f.Var(projectValue{&o.Project}, "project", "derive from every session of this project")
	f.StringVar(&kinds, "kinds", strings.Join(eval.DefaultKinds, ","), "rules to derive with, comma-separated: "+strings.Join(eval.AllKinds, ", ")+", or all")
	return c
}

type evalBudgetOptions struct {
	probes   string
	budgets  string
	json     bool
	plot     string
	outcomes string
	share    float64
	quiet    bool
	save     bool
	saveDir  string
}

func (a *app) evalBudgetCommand() *cobra.Command {
	var o evalBudgetOptions
	c := &cobra.Command{
		Use:   "budget --probes FILE [--budgets 1000,2000,4000,8000] [--json] [--plot out.svg]",
		Short: "Hit rate of each context strategy per budget",
		Long: `For every probe and budget, assemble the context each strategy hands the agent from
what existed before the probe's point, and count a hit when the answer appears in it
exactly. Strategies: truncate (latest raw transcript), summary (IndexedSummary alone),
rag (search hits' raw content), memex (search, then deref of the hits in rank order,
each whole when it fits in what is left, else its windows, hits of one score sharing
what is left, with brief headers and markers, until the budget is spent; the
IndexedSummary gets what the derefs leave),
memex-pick (the same,
picking entries from the summary's lines instead of searching). A context over its
budget fails the run.

Prints per strategy and budget the hit rate with its 95% Wilson interval, mean tokens,
derefs and latency, then hit rates by how far back the evidence lies.

--save keeps the run (its report, the probe file's name and the time) as a JSON file
in $MEMEX_HOME/eval, --save-dir DIR in a folder of your own; memex serve's viewer
shows the saved runs with their plots at /eval (serve --eval-dir DIR for a folder).`,
		Example: `  memex eval budget --probes eval/testdata/corpora-seed42.probes.jsonl
  memex eval budget --probes p.jsonl --budgets 500,1000 --json --plot hit.svg
  memex eval budget --probes p.jsonl --save     # then memex serve, and open /eval`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return a.runEvalBudget(c, o) },
	}
	f := c.Flags()
	f.StringVar(&o.probes, "probes", "", "probe file (JSON lines; - for stdin)")
	f.StringVar(&o.budgets, "budgets", "1000,2000,4000,8000", "comma-separated token budgets")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	f.StringVar(&o.plot, "plot", "", "write an SVG plot of hit rate against budget to this file")
	f.StringVar(&o.outcomes, "outcomes", "", "write every probe's outcome per strategy and budget (JSON lines) to this file")
	f.Float64Var(&o.share, "summary-share", eval.SummaryShare, "memex: part of the budget set aside for the IndexedSummary before the derefs (0: none; it takes what the derefs leave)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&o.save, "save", false, "keep the run in $MEMEX_HOME/eval, for the viewer's eval page")
	f.StringVar(&o.saveDir, "save-dir", "", "keep the run in this folder (as --save does in the home)")
	return c
}

func (a *app) runEvalBudget(c *cobra.Command, o evalBudgetOptions) error {
	if o.probes == "" {
		return cli.Usagef("eval budget needs --probes FILE\nUsage: %s", c.UseLine())
	}
	budgets, err := cli.PositiveInts("--budgets", o.budgets)
	if err != nil {
		return err
	}
	if o.share < 0 || o.share >= 1 {
		return cli.Usagef("--summary-share wants a number from 0 up to 1")
	}
	in, err := cli.Input([]string{o.probes}, a.stdin) // - is stdin
	if err != nil {
		return cli.Usagef("--probes: %v", err)
	}
	defer in.Close()
	probes, err := eval.ReadProbes(in)
	if err != nil {
		return err
	}
	if len(probes) == 0 {
		return fmt.Errorf("eval budget: %s holds no probes (memex eval probes derives them from archived sessions)", o.probes)
	}
	ctx := c.Context()
	// What a search reads: the index brought up to date, or as it is
	// when the store's disk is full.
	h, err := a.open(ctx, home.Options{MustExist: true, OnFull: a.fullNotice})
	if err != nil {
		return err
	}
	ix, err := service.CaughtUp(ctx, h, a.log)
	if err != nil {
		return err
	}
	opts := eval.BudgetOptions{Budgets: budgets, SummaryShare: o.share, Progress: cli.Counter(a.stderr, "eval", o.quiet || o.json)}
	keep := eval.Keep{Outcomes: o.outcomes, Plot: o.plot, SaveDir: o.saveDir, Probes: o.probes}
	if o.save && keep.SaveDir == "" {
		keep.SaveDir = eval.RunsDir(a.home)
	}
	rep, saved, err := eval.RunBudget(ctx, eval.Env{Store: h.Store, Index: ix}, probes, opts, keep)
	if err != nil {
		return err
	}
	if saved != "" {
		fmt.Fprintf(a.stderr, "memex: run saved in %s\n", saved)
	}
	if o.json {
		return cli.WriteJSON(a.stdout, rep)
	}
	fmt.Fprintf(a.stdout, "%d probes\n\n", rep.Probes)
	return eval.WriteTable(a.stdout, rep)
}

type evalRetrievalOptions struct {
	format string
	ks     string
	budget int
	json   bool
	quiet  bool
}

func (a *app) evalRetrievalCommand() *cobra.Command {
	var o evalRetrievalOptions
	c := &cobra.Command{
		Use:   "retrieval --format longmemeval|locomo FILE [--k 1,5,10] [--budget N] [--json]",
		Short: "Score memex's index on LongMemEval or LoCoMo beside BM25 and FTS5",
		Long: `Archive each question's haystack into its own project of a temporary in-memory store
(sessions and turns keep their dataset ids as aliases), ask the question of memex's
index, of a plain BM25 index of the raw turns (bleve's default mapping) and of SQLite
FTS5 over the raw turns (its default tokenizer, the question's words OR-ed, ranked by
bm25), and report recall_any@k, recall_all@k and nDCG@k at session and at turn level
for each, plus the
share of questions whose evidence turns fit in --budget tokens. memex's sessions are
its own session ranking (a session by its best turn times the share of the question's
words its turns hold together), BM25's and FTS5's by their best turn. Questions without
evidence (LongMemEval's abstention questions) are counted and skipped. The store under
--home is not touched.`,
		Example: `  memex eval retrieval --format longmemeval longmemeval_s.json --k 1,5,10
  memex eval retrieval --format locomo locomo10.json --budget 2000 --json`,
		Args: cli.NeedOneArg("eval retrieval takes one FILE"),
		RunE: func(c *cobra.Command, args []string) error {
			if o.format != eval.LongMemEval && o.format != eval.LoCoMo {
				return cli.Usagef("--format %q: want longmemeval or locomo", o.format)
			}
			ks, err := cli.PositiveInts("--k", o.ks)
			if err != nil {
				return err
			}
			if o.budget <= 0 {
				return cli.Usagef("--budget must be a positive number of tokens")
			}
			f, err := os.Open(args[0])
			if err != nil {
				return cli.Usagef("%v", err)
			}
			defer f.Close()
			// The file is read one haystack at a time: progress is the
			// share of its bytes read.
			var progress func(read, size int64)
			if bar := cli.Progress(a.stderr, "retrieval (MB read)", o.quiet || o.json); bar != nil {
				progress = func(read, size int64) { bar(read>>20, size>>20) }
			}
			rep, err := eval.RetrievalScanFile(c.Context(), f, o.format, eval.RetrievalOptions{Ks: ks, Budget: o.budget}, progress)
			if err != nil {
				return err
			}
			return cli.Output(a.stdout, o.json, rep, eval.WriteRetrievalTable)
		},
	}
	f := c.Flags()
	f.StringVar(&o.format, "format", "", "longmemeval or locomo")
	f.StringVar(&o.ks, "k", "1,5,10", "cut-offs, comma-separated")
	f.IntVar(&o.budget, "budget", 1000, "tokens the evidence must fit in")
	f.BoolVar(&o.json, "json", false, "print the report as JSON")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar")
	return c
}
