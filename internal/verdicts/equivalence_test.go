package verdicts

import (
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

func TestTOST(t *testing.T) {
	tight := results.Summarize([]float64{100, 101, 99, 100, 100})
	tests := []struct {
		name   string
		pub    results.Summary
		new    results.Summary
		margin float64
		want   Reproduction
	}{
		{"same figures", tight, results.Summarize([]float64{99, 100, 101, 100, 100}), 0.10, Reproduced},
		{"5 % lower, margin 10 %", tight, results.Summarize([]float64{95, 96, 94, 95, 95}), 0.10, Reproduced},
		{"5 % lower, margin 2 %", tight, results.Summarize([]float64{95, 96, 94, 95, 95}), 0.02, NotReproduced},
		{"published ×3", tight.Scale(3), tight, 0.10, NotReproduced},
		{"noisy new run", tight, results.Summarize([]float64{60, 140, 100}), 0.10, Inconclusive},
		{"one new run", tight, results.Summarize([]float64{100}), 0.10, Inconclusive},
		{"no new run", tight, results.Summary{}, 0.10, Inconclusive},
		{"no spread, inside", results.Summarize([]float64{100, 100}), results.Summarize([]float64{105, 105}), 0.10, Reproduced},
		{"no spread, outside", results.Summarize([]float64{100, 100}), results.Summarize([]float64{120, 120}), 0.10, NotReproduced},
		// ×3 with the CV seen on a loaded 2-core machine (35 %) and 4 runs.
		{"published ×3, noisy, n=4", results.Summarize([]float64{15, 9, 21, 15}), results.Summarize([]float64{5, 3, 7, 5}), 0.10, NotReproduced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := TOST(tt.pub, tt.new, tt.margin)
			if e.Verdict != tt.want {
				t.Errorf("verdict %s, want %s: %+v", e.Verdict, tt.want, e)
			}
			if e.Verdict == Reproduced && (e.DiffLow < -e.Margin || e.DiffHigh > e.Margin) {
				t.Errorf("reproduced with the interval [%g, %g] outside ±%g", e.DiffLow, e.DiffHigh, e.Margin)
			}
		})
	}
}

// shapeGroups groups hand-made runs: cell → throughput per block.
func shapeGroups(run string, cells map[string][]float64, order ...string) []results.CellGroup {
	var recs []results.Record
	for _, c := range order {
		for b, v := range cells[c] {
			r := results.Record{RunID: run, Experiment: "e", Pair: "p", CellKey: c, Repeat: b + 1}
			r.Metrics.ThroughputBps = v
			if v < 0 {
				r.Error = "failed"
			}
			recs = append(recs, r)
		}
	}
	return results.Group(recs)
}

func TestShapes(t *testing.T) {
	cells := []string{"mtu=1500", "mtu=9000", "mtu=4000"}
	published := shapeGroups("pub", map[string][]float64{
		"mtu=1500": {10, 10.5, 9.5, 10.2}, "mtu=9000": {20, 21, 19, 20.4}, "mtu=4000": {10, 10.5, 9.5, 10.2}}, cells...)
	tests := []struct {
		name string
		new  map[string][]float64
		want []Reproduction // verdicts of mtu=9000 and mtu=4000
	}{
		// Halved throughput everywhere: the shape holds, block by block.
		{"same shape, other scale", map[string][]float64{
			"mtu=1500": {5, 5.25, 4.75, 5.1}, "mtu=9000": {10, 10.5, 9.5, 10.2}, "mtu=4000": {5, 5.25, 4.75, 5.1}},
			[]Reproduction{Reproduced, Reproduced}},
		// Noisy blocks, but common to the block's cells: pairing removes it.
		{"block noise cancels", map[string][]float64{
			"mtu=1500": {5, 15, 10, 8}, "mtu=9000": {10, 30, 20, 16}, "mtu=4000": {5, 15, 10, 8}},
			[]Reproduction{Reproduced, Reproduced}},
		{"reversed", map[string][]float64{
			"mtu=1500": {20, 21, 19, 20.4}, "mtu=9000": {10, 10.5, 9.5, 10.2}, "mtu=4000": {20, 21, 19, 20.4}},
			[]Reproduction{NotReproduced, Reproduced}},
		// The new mtu=4000 is 40 % below its reference: a magnitude change
		// the old side-of-1 rule could not see (no claim).
		{"one cell lower", map[string][]float64{
			"mtu=1500": {10, 10.5, 9.5, 10.2}, "mtu=9000": {20, 21, 19, 20.4}, "mtu=4000": {6, 6.3, 5.7, 6.12}},
			[]Reproduction{Reproduced, NotReproduced}},
		{"noisy ratios", map[string][]float64{
			"mtu=1500": {10, 10.5, 9.5, 10.2}, "mtu=9000": {10, 30, 15, 25}, "mtu=4000": {10, 10.5, 9.5, 10.2}},
			[]Reproduction{Inconclusive, Reproduced}},
		// A failed reference run leaves its block out of every shape.
		{"failed run skipped", map[string][]float64{
			"mtu=1500": {-1, 10.5, 9.5, 10.2}, "mtu=9000": {1, 21, 19, 20.4}, "mtu=4000": {1, 10.5, 9.5, 10.2}},
			[]Reproduction{Reproduced, Reproduced}},
		{"cell missing", map[string][]float64{"mtu=1500": {10, 10.5, 9.5, 10.2}}, []Reproduction{Inconclusive, Inconclusive}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Shapes(published, shapeGroups("new", tt.new, cells...), ShapeOptions{Margin: DefaultShapeMargin})
			if len(got) != 2 {
				t.Fatalf("%d shapes, want 2: %+v", len(got), got)
			}
			for i, s := range got {
				if s.Verdict != tt.want[i] || s.Reference != "mtu=1500" {
					t.Errorf("%s / %s: %s, want %s (%+v)", s.CellKey, s.Reference, s.Verdict, tt.want[i], s)
				}
			}
		})
	}
}
