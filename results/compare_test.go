package results

import (
	"math"
	"testing"
)

// TestWelchT checks against values computed independently in Python
// (statistics.variance for t and df, Simpson integration of Student's t
// density for p).
func TestWelchT(t *testing.T) {
	x := Summarize([]float64{19.1, 20.3, 20.6, 19.9, 20.4}) // mean 20.06
	y := Summarize([]float64{21.2, 22.0, 21.7, 21.9, 22.3})
	tt, df, p := WelchT(x, y)
	if math.Abs(tt-5.457528) > 1e-5 || math.Abs(df-7.092552) > 1e-5 || math.Abs(p-0.00090751) > 1e-7 {
		t.Errorf("t=%v df=%v p=%v", tt, df, p)
	}
	if _, _, p := WelchT(Summarize([]float64{1, 1}), Summarize([]float64{1, 1})); p != 1 {
		t.Errorf("identical constant samples: p=%v", p)
	}
}

func TestCompare(t *testing.T) {
	g := func(cell string, xs ...float64) CellGroup {
		return CellGroup{Experiment: "e", Pair: "p", CellKey: cell, ThroughputBps: Summarize(xs), N: len(xs)}
	}
	base := []CellGroup{g("up", 10, 10.2, 9.9), g("down", 10, 10.2, 9.9), g("same", 10, 10.01, 9.99),
		g("noisy", 5, 10, 15), g("single", 10), g("gone", 1, 2)}
	test := []CellGroup{g("up", 12, 12.1, 11.9), g("down", 8, 8.1, 7.9), g("same", 10.005, 9.995, 10),
		g("noisy", 6, 12, 18), g("single", 10, 11), g("new", 1, 2)}
	want := map[string]Change{"up": Improved, "down": Regressed, "same": NoChange, "noisy": TooNoisy,
		"single": Missing, "gone": Missing, "new": Missing}
	ds := Compare(base, test)
	if len(ds) != len(want) {
		t.Fatalf("%d deltas", len(ds))
	}
	for _, d := range ds {
		if d.Change != want[d.CellKey] {
			t.Errorf("%s: %s (p=%.3g, diff [%g, %g]), want %s", d.CellKey, d.Change, d.P, d.DiffLow, d.DiffHigh, want[d.CellKey])
		}
	}
}
