package verdicts

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestWelchT checks against values computed independently in Python
// (statistics.variance for t and df, Simpson integration of Student's t
// density for p).
func TestWelchT(t *testing.T) {
	x := results.Summarize([]float64{19.1, 20.3, 20.6, 19.9, 20.4}) // mean 20.06
	y := results.Summarize([]float64{21.2, 22.0, 21.7, 21.9, 22.3})
	tt, df, p := WelchT(x, y)
	if math.Abs(tt-5.457528) > 1e-5 || math.Abs(df-7.092552) > 1e-5 || math.Abs(p-0.00090751) > 1e-7 {
		t.Errorf("t=%v df=%v p=%v", tt, df, p)
	}
	if _, _, p := WelchT(results.Summarize([]float64{1, 1}), results.Summarize([]float64{1, 1})); p != 1 {
		t.Errorf("identical constant samples: p=%v", p)
	}
}

func TestCompare(t *testing.T) {
	g := func(cell string, xs ...float64) results.CellGroup {
		return results.CellGroup{Experiment: "e", Pair: "p", CellKey: cell, ThroughputBps: results.Summarize(xs), N: len(xs)}
	}
	base := []results.CellGroup{g("up", 10, 10.2, 9.9), g("down", 10, 10.2, 9.9), g("same", 10, 10.01, 9.99),
		g("noisy", 5, 10, 15), g("single", 10), g("gone", 1, 2)}
	test := []results.CellGroup{g("up", 12, 12.1, 11.9), g("down", 8, 8.1, 7.9), g("same", 10.005, 9.995, 10),
		g("noisy", 6, 12, 18), g("single", 10, 11), g("new", 1, 2)}
	want := map[string]Change{"up": Improved, "down": Regressed, "same": NoChange, "noisy": TooNoisy,
		"single": Missing, "gone": Missing, "new": Missing}
	ds := Compare(base, test, CompareOptions{})
	if len(ds) != len(want) {
		t.Fatalf("%d deltas", len(ds))
	}
	for _, d := range ds {
		if d.Change != want[d.CellKey] {
			t.Errorf("%s: %s (p=%.3g, diff [%g, %g]), want %s", d.CellKey, d.Change, d.P, d.DiffLow, d.DiffHigh, want[d.CellKey])
		}
	}
}

// TestCompareDegenerate: constant cells, single runs, zero means, failed
// runs and a change below the threshold give finite JSON and sane verdicts.
func TestCompareDegenerate(t *testing.T) {
	g := func(cell string, failed int, xs ...float64) results.CellGroup {
		return results.CellGroup{Experiment: "e", Pair: "p", CellKey: cell, ThroughputBps: results.Summarize(xs), N: len(xs), Failed: failed}
	}
	var base, test []results.CellGroup
	base = append(base, g("constant", 0, 5, 5, 5), g("constant-same", 0, 5, 5), g("zero", 0, 0, 0, 0),
		g("from-zero", 0, 0, 0), g("one", 0, 7), g("small", 0, 100, 100.01, 99.99, 100, 100.005, 99.995),
		g("failed", 2, 10, 10.1, 9.9))
	test = append(test, g("constant", 0, 4, 4, 4), g("constant-same", 0, 5, 5), g("zero", 0, 0, 0, 0),
		g("from-zero", 0, 1, 1.01, 0.99), g("one", 0, 7), g("small", 0, 99.7, 99.71, 99.69, 99.7, 99.705, 99.695),
		g("failed", 0, 10, 10.1, 9.9))
	want := map[string]Change{"constant": Regressed, "constant-same": NoChange, "zero": NoChange,
		"from-zero": Improved, "one": Missing, "small": NoChange, "failed": Incomplete}
	ds := Compare(base, test, CompareOptions{Threshold: 0.02})
	for _, d := range ds {
		if d.Change != want[d.CellKey] {
			t.Errorf("%s: %s (p=%g adj %g, diff %g [%g, %g]) notes %v, want %s", d.CellKey, d.Change, d.P, d.PAdjusted,
				d.Diff, d.DiffLow, d.DiffHigh, d.Notes, want[d.CellKey])
		}
	}
	if d := ds[0]; !strings.Contains(strings.Join(d.Notes, ";"), "no spread") {
		t.Errorf("constant cell notes %v", d.Notes)
	}
	if _, err := json.Marshal(ds); err != nil {
		t.Errorf("JSON: %v", err)
	}
	// Without a threshold the −0.3 % change would be a regression.
	ds = Compare(base[5:6], test[5:6], CompareOptions{Threshold: 0.001})
	if ds[0].Change != Regressed {
		t.Errorf("small change with a 0.1 %% threshold: %s", ds[0].Change)
	}
}

func TestHolmProperties(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005, math.NaN()})
	want := []float64{0.04, 0.09, 0.09, 0.025, 1} // m = 5: 0.005×5, 0.01×4, 0.03×3, max(0.04×2, 0.09), 1
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("Holm = %v, want %v", got, want)
			break
		}
	}
	if len(Holm(nil)) != 0 {
		t.Error("Holm(nil) not empty")
	}
}

// TestBenjaminiHochberg: the adjusted p-values statsmodels 0.13.5 gives
// (multipletests(ps, method="fdr_bh"), with the NaN as 1), in ps's order.
func TestBenjaminiHochberg(t *testing.T) {
	ps := []float64{0.01, 0.04, 0.03, 0.005, 0.5, 0.04, math.NaN()}
	want := []float64{0.035, 0.056, 0.056, 0.035, 0.5833333333333334, 0.056, 1}
	got := BenjaminiHochberg(ps)
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("BH(%v) = %v, want %v", ps, got, want)
			break
		}
	}
	if len(BenjaminiHochberg(nil)) != 0 {
		t.Error("BH of no p-values")
	}
}
