package eval

import (
	"fmt"
	"math"
	"strings"
)

// plotColors gives each strategy a colour, in Strategies order.
var plotColors = []string{"#d62728", "#7f7f7f", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd"}

// Plot renders the report's hit rate against budget as a self-contained
// SVG: one line per strategy, budgets on a log scale, the 95% interval as
// a bar at each point.
func Plot(rep Report) string {
	const (
		w, h                 = 640, 400
		left, right, top, bt = 60, 130, 20, 50
	)
	pw, ph := float64(w-left-right), float64(h-top-bt)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range rep.Budgets {
		lo, hi = math.Min(lo, math.Log(float64(b))), math.Max(hi, math.Log(float64(b)))
	}
	x := func(b int) float64 {
		if hi == lo {
			return float64(left) + pw/2
		}
		return float64(left) + pw*(math.Log(float64(b))-lo)/(hi-lo)
	}
	y := func(r float64) float64 { return float64(top) + ph*(1-r) }
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&sb, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	for _, r := range []float64{0, 0.25, 0.5, 0.75, 1} {
		fmt.Fprintf(&sb, `<line x1="%d" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y(r), float64(left)+pw, y(r))
		fmt.Fprintf(&sb, `<text x="%d" y="%.1f" text-anchor="end">%.0f%%</text>`+"\n", left-6, y(r)+4, 100*r)
	}
	for _, b := range rep.Budgets {
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" text-anchor="middle">%d</text>`+"\n", x(b), h-bt+18, b)
	}
	fmt.Fprintf(&sb, `<text x="%.1f" y="%d" text-anchor="middle">budget (tokens)</text>`+"\n", float64(left)+pw/2, h-12)
	fmt.Fprintf(&sb, `<text x="14" y="%.1f" text-anchor="middle" transform="rotate(-90 14 %.1f)">hit rate</text>`+"\n", y(0.5), y(0.5))
	for si, s := range rep.Strategies {
		col := plotColors[si%len(plotColors)]
		var pts []string
		for _, c := range rep.Cells {
			if c.Strategy != s {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(c.Budget), y(c.Rate.Rate)))
			fmt.Fprintf(&sb, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-opacity="0.5"/>`+"\n",
				x(c.Budget), y(c.Lo), x(c.Budget), y(c.Hi), col)
			fmt.Fprintf(&sb, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(c.Budget), y(c.Rate.Rate), col)
		}
		fmt.Fprintf(&sb, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(pts, " "), col)
		ly := top + 16*si + 8
		fmt.Fprintf(&sb, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", w-right+10, ly, w-right+30, ly, col)
		fmt.Fprintf(&sb, `<text x="%d" y="%d">%s</text>`+"\n", w-right+36, ly+4, s)
	}
	sb.WriteString("</svg>\n")
	return sb.String()
}
