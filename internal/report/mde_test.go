package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// TestMDEColumns: compare's and check's text tables (and so compare's
// HTML, which embeds the table, and check's HTML) show each verdict's
// MDE, and compare a cell's shape change with its verdict.
func TestMDEColumns(t *testing.T) {
	s := verdicts.Shape{ShapeChange: verdicts.ShapeChange{Change: -0.48, Verdict: verdicts.NotReproduced, MDE: 0.183}}
	ds := []verdicts.Delta{{Metric: results.MetricThroughput, Experiment: "e", Pair: "p", CellKey: "mtu=9000",
		Base: results.Summarize([]float64{1e9, 1.1e9}), Test: results.Summarize([]float64{5e8, 5.5e8}),
		Change: verdicts.Regressed, MDE: 0.123, Shape: &s}}
	var b bytes.Buffer
	if err := RenderCompare(&b, "a", "b", ds, CompareOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MDE", "12.3 %", "shape", "-48.0 % not reproduced (MDE 18.3 %)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("compare table lacks %q:\n%s", want, b.String())
		}
	}
	outs := []verdicts.Outcome{{Name: "x", Verdict: verdicts.VerdictPass, Checks: []verdicts.Check{{Expectation: "x", Kind: "ratio",
		Verdict: verdicts.VerdictPass, MDE: 0.071}}}}
	b.Reset()
	if err := RenderChecks(&b, "r", outs, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "MDE") || !strings.Contains(b.String(), "7.1 %") {
		t.Errorf("check table lacks the MDE:\n%s", b.String())
	}
}
