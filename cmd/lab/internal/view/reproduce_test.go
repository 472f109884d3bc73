package view

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// TestReproductionText: reproduce's text shows each cell's MDE and each
// shape's paired ratios, change, MDE and verdict, and for an inconclusive
// shape the blocks a 10 % change needs.
func TestReproductionText(t *testing.T) {
	r := &operation.Reproduction{Metric: results.MetricThroughput, ShapeMargin: 0.05,
		Cells: []operation.CellReproduction{{CellKey: "mtu=1500", Equivalence: verdicts.Equivalence{MDE: 0.153, Verdict: verdicts.Inconclusive}}},
		Shapes: []verdicts.Shape{{CellKey: "mtu=9000", Reference: "mtu=1500",
			PublishedShape: verdicts.LogRatio{Blocks: 10, Ratio: 2, Low: 1.9, High: 2.1, Known: true},
			NewShape:       verdicts.LogRatio{Blocks: 10, Ratio: 1.9, Low: 1.7, High: 2.1, Known: true},
			ShapeChange: verdicts.ShapeChange{Change: -0.05, ChangeLow: -0.2, ChangeHigh: 0.1, SE: 0.08, MDE: 0.31,
				BlocksNeeded: 64, Verdict: verdicts.Inconclusive}}}}
	var b bytes.Buffer
	Reproduction(&b, r)
	for _, want := range []string{"MDE 15.3 %", "published 2 [1.9, 2.1] (10 blocks)", "change -5.0 %", "MDE 31.0 %",
		"inconclusive — needs ≈ 64 blocks a run to see 10 %", "within ±5 %"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("reproduce text lacks %q:\n%s", want, b.String())
		}
	}
}
