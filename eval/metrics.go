package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"
)

// Wilson returns the Wilson score interval of hits successes in n trials at
// the normal quantile z (1.96 for 95%). n zero gives [0, 1].
func Wilson(hits, n int, z float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	p := float64(hits) / float64(n)
	fn := float64(n)
	den := 1 + z*z/fn
	centre := (p + z*z/(2*fn)) / den
	half := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// Rate is a hit rate with its 95% Wilson interval.
type Rate struct {
	N    int     `json:"n"`
	Hits int     `json:"hits"`
	Rate float64 `json:"rate"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
}

func newRate(hits, n int) Rate {
	r := Rate{N: n, Hits: hits}
	if n > 0 {
		r.Rate = float64(hits) / float64(n)
	}
	r.Lo, r.Hi = Wilson(hits, n, 1.96)
	return r
}

// Bucket is a hit rate among the probes whose evidence lies within a range
// of distance: [Min, Max) steps or tokens back; Max zero is unbounded.
type Bucket struct {
	Label string `json:"label"`
	Min   int    `json:"min"`
	Max   int    `json:"max"`
	Rate
}

// Distance buckets of the breakdown.
var (
	StepBuckets  = []Bucket{{Label: "1-4 steps", Min: 1, Max: 5}, {Label: "5-19 steps", Min: 5, Max: 20}, {Label: "20+ steps", Min: 20}}
	TokenBuckets = []Bucket{{Label: "<1k tok", Min: 0, Max: 1000}, {Label: "1k-4k tok", Min: 1000, Max: 4000},
		{Label: "4k-8k tok", Min: 4000, Max: 8000}, {Label: ">8k tok", Min: 8000}}
)

// Cell sums up one strategy at one budget.
type Cell struct {
	Strategy   string   `json:"strategy"`
	Budget     int      `json:"budget"`
	Rate                // hit rate over every probe
	MeanTokens float64  `json:"mean_tokens"`
	MeanDerefs float64  `json:"mean_derefs"`
	MeanMillis float64  `json:"mean_latency_ms"`
	BySteps    []Bucket `json:"by_steps"`
	ByTokens   []Bucket `json:"by_tokens"`
}

// Report is the result of a budget run.
type Report struct {
	Probes     int      `json:"probes"`
	Skipped    []string `json:"skipped"`
	Budgets    []int    `json:"budgets"`
	Strategies []string `json:"strategies"`
	Cells      []Cell   `json:"cells"`
}

// NewReport is the report of a budget run of probes (those skipped
// named in skipped, as Budget returns them) at budgets, every strategy's
// outcomes summed up per budget.
func NewReport(probes int, outs []Outcome, skipped []string, budgets []int) Report {
	if skipped == nil {
		skipped = []string{}
	}
	return Report{Probes: probes - len(skipped), Skipped: skipped, Budgets: budgets, Strategies: Strategies,
		Cells: Summarize(outs, Strategies, budgets)}
}

// WriteOutcomes writes every outcome as a JSON line.
func WriteOutcomes(w io.Writer, outs []Outcome) error {
	enc := json.NewEncoder(w)
	for _, out := range outs {
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return nil
}

// Summarize aggregates outcomes per strategy and budget, in the order of
// strategies and budgets given.
func Summarize(outs []Outcome, strategies []string, budgets []int) []Cell {
	var cells []Cell
	for _, s := range strategies {
		for _, b := range budgets {
			var hits, n, tok, der int
			var lat time.Duration
			steps := append([]Bucket(nil), StepBuckets...)
			toks := append([]Bucket(nil), TokenBuckets...)
			sh := make([][2]int, len(steps))
			th := make([][2]int, len(toks))
			for _, o := range outs {
				if o.Strategy != s || o.Budget != b {
					continue
				}
				n++
				tok += o.Tokens
				der += o.Derefs
				lat += o.Latency
				hit := 0
				if o.Hit {
					hits++
					hit = 1
				}
				for i, bk := range steps {
					if o.StepsBack >= bk.Min && (bk.Max == 0 || o.StepsBack < bk.Max) {
						sh[i][0] += hit
						sh[i][1]++
					}
				}
				for i, bk := range toks {
					if o.TokensBack >= bk.Min && (bk.Max == 0 || o.TokensBack < bk.Max) {
						th[i][0] += hit
						th[i][1]++
					}
				}
			}
			c := Cell{Strategy: s, Budget: b, Rate: newRate(hits, n)}
			if n > 0 {
				c.MeanTokens = float64(tok) / float64(n)
				c.MeanDerefs = float64(der) / float64(n)
				c.MeanMillis = float64(lat.Microseconds()) / 1000 / float64(n)
			}
			for i := range steps {
				steps[i].Rate = newRate(sh[i][0], sh[i][1])
			}
			for i := range toks {
				toks[i].Rate = newRate(th[i][0], th[i][1])
			}
			c.BySteps, c.ByTokens = steps, toks
			cells = append(cells, c)
		}
	}
	return cells
}

// WriteTable prints the report as plain-text tables: the overall figures,
// then hit rates by distance in steps and in tokens.
func WriteTable(w io.Writer, rep Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "strategy\tbudget\thit rate\t95%% CI\tmean tokens\tderefs\tlatency ms\t\n")
	for _, c := range rep.Cells {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f-%.1f%%\t%.0f\t%.2f\t%.2f\t\n", c.Strategy, c.Budget,
			100*c.Rate.Rate, 100*c.Lo, 100*c.Hi, c.MeanTokens, c.MeanDerefs, c.MeanMillis)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, by := range []struct {
		name string
		get  func(Cell) []Bucket
	}{{"steps back", func(c Cell) []Bucket { return c.BySteps }}, {"tokens back", func(c Cell) []Bucket { return c.ByTokens }}} {
		if len(rep.Cells) == 0 {
			break
		}
		fmt.Fprintf(w, "\nhit rate by evidence distance (%s)\n", by.name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		hdr := []string{"strategy", "budget"}
		for _, b := range by.get(rep.Cells[0]) {
			hdr = append(hdr, fmt.Sprintf("%s (n=%d)", b.Label, b.N))
		}
		fmt.Fprintf(tw, "%s\t\n", strings.Join(hdr, "\t"))
		for _, c := range rep.Cells {
			row := []string{c.Strategy, fmt.Sprint(c.Budget)}
			for _, b := range by.get(c) {
				row = append(row, fmt.Sprintf("%.1f%%", 100*b.Rate.Rate))
			}
			fmt.Fprintf(tw, "%s\t\n", strings.Join(row, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, "\n%d probes skipped (answer not found before their point)\n", len(rep.Skipped))
	}
	return nil
}
