package results

import "testing"

func TestTOST(t *testing.T) {
	tight := Summarize([]float64{100, 101, 99, 100, 100})
	tests := []struct {
		name   string
		pub    Summary
		new    Summary
		margin float64
		want   Reproduction
	}{
		{"same figures", tight, Summarize([]float64{99, 100, 101, 100, 100}), 0.10, Reproduced},
		{"5 % lower, margin 10 %", tight, Summarize([]float64{95, 96, 94, 95, 95}), 0.10, Reproduced},
		{"5 % lower, margin 2 %", tight, Summarize([]float64{95, 96, 94, 95, 95}), 0.02, NotReproduced},
		{"published ×3", tight.Scale(3), tight, 0.10, NotReproduced},
		{"noisy new run", tight, Summarize([]float64{60, 140, 100}), 0.10, Inconclusive},
		{"one new run", tight, Summarize([]float64{100}), 0.10, Inconclusive},
		{"no new run", tight, Summary{}, 0.10, Inconclusive},
		{"no spread, inside", Summarize([]float64{100, 100}), Summarize([]float64{105, 105}), 0.10, Reproduced},
		{"no spread, outside", Summarize([]float64{100, 100}), Summarize([]float64{120, 120}), 0.10, NotReproduced},
		// ×3 with the CV seen on a loaded 2-core machine (35 %) and 4 runs.
		{"published ×3, noisy, n=4", Summarize([]float64{15, 9, 21, 15}), Summarize([]float64{5, 3, 7, 5}), 0.10, NotReproduced},
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

func TestShapes(t *testing.T) {
	g := func(cell string, xs ...float64) CellGroup {
		return CellGroup{Experiment: "e", Pair: "p", CellKey: cell, ThroughputBps: Summarize(xs)}
	}
	published := []CellGroup{g("mtu=1500", 10, 10.5, 9.5), g("mtu=9000", 20, 21, 19), g("mtu=4000", 10, 11, 9)}
	tests := []struct {
		name string
		new  []CellGroup
		want []string // verdicts of mtu=9000 and mtu=4000
	}{
		{"same shape, other scale", []CellGroup{g("mtu=1500", 5, 5.2, 4.8), g("mtu=9000", 11, 11.5, 10.5), g("mtu=4000", 5, 5.5, 4.5)},
			[]string{ShapeHolds, ShapeNoClaim}},
		{"reversed", []CellGroup{g("mtu=1500", 20, 21, 19), g("mtu=9000", 10, 10.5, 9.5), g("mtu=4000", 5, 5.5, 4.5)},
			[]string{ShapeReversed, ShapeNoClaim}},
		{"noisy", []CellGroup{g("mtu=1500", 5, 15, 10), g("mtu=9000", 5, 30, 15), g("mtu=4000", 5, 5.5, 4.5)},
			[]string{ShapeInconclusive, ShapeNoClaim}},
		{"cell missing", []CellGroup{g("mtu=1500", 10, 10.5, 9.5)}, []string{ShapeInconclusive, ShapeNoClaim}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Shapes(published, tt.new, MetricThroughput)
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
