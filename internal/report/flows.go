package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// aggregateLines are the sums of the concurrent cells' flows (one line
// per experiment and cell, in the groups' order), for the table and
// markdown formats: "firewall mtu=1500: c1 + c2 = 9.89 ± 0.05 Gb/s (n 3);
// clients started ≤ 4 ms apart (bound 100 ms)". None when no cell ran
// concurrent flows.
func aggregateLines(groups []results.CellGroup) []string {
	var out []string
	seen := map[*results.Aggregate]bool{}
	for _, g := range groups {
		a := g.Aggregate
		if a == nil || seen[a] {
			continue
		}
		seen[a] = true
		cell := g.CellKey
		if cell == "" {
			cell = "(single cell)"
		}
		line := fmt.Sprintf("%s %s: %s = %s Gb/s (n %d); clients started ≤ %s ms apart (bound %s ms)",
			g.Experiment, cell, strings.Join(a.Pairs, " + "), throughput(a.ThroughputBps), a.N,
			strconv.FormatFloat(math.Ceil(a.MaxSkewMs*10)/10, 'f', 1, 64), strconv.FormatFloat(a.SkewBoundMs, 'f', 0, 64))
		if a.OverBound > 0 {
			line += fmt.Sprintf(", %d repeat(s) above it", a.OverBound)
		}
		out = append(out, line)
	}
	return out
}

// aggregateHeading introduces aggregateLines.
const aggregateHeading = "concurrent flows, summed per repeat (mean ± 95 % CI half-width over the repeats in which every flow succeeded):"
