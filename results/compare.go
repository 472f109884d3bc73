package results

import (
	"math"
)

// Change is the verdict of comparing one cell between two runs.
type Change string

// Changes. NoChange needs evidence: the 95 % interval of the difference
// lies within ±Equivalence of the base mean; a difference that is neither
// significant nor that small is TooNoisy.
const (
	Improved  Change = "improved"
	Regressed Change = "regressed"
	NoChange  Change = "no change"
	TooNoisy  Change = "too noisy"
	// Missing: the cell is in only one of the runs, or has < 2 runs.
	Missing Change = "missing"
)

// Equivalence is the relative difference (of the base mean) below which a
// whole confidence interval counts as "no change".
const Equivalence = 0.05

// Alpha is the significance level of the comparison's t-test.
const Alpha = 0.05

// Delta compares one cell's throughput between a base and a test run.
type Delta struct {
	Experiment string      `json:"experiment"`
	Pair       string      `json:"pair"`
	Cell       []CellValue `json:"cell"`
	CellKey    string      `json:"cell_key"`
	Base       Summary     `json:"base_bps"`
	Test       Summary     `json:"test_bps"`
	// Diff is test - base in bits per second, with the 95 % interval of
	// the difference (Welch); RelDiff is Diff / base mean.
	Diff     float64 `json:"diff_bps"`
	DiffLow  float64 `json:"diff_low_bps"`
	DiffHigh float64 `json:"diff_high_bps"`
	RelDiff  float64 `json:"rel_diff"`
	// T, DF and P are Welch's t statistic, its degrees of freedom and the
	// two-sided p-value.
	T      float64 `json:"t"`
	DF     float64 `json:"df"`
	P      float64 `json:"p"`
	Change Change  `json:"change"`
}

// Compare matches the cells of two runs (experiment, pair, cell key) in
// the base run's order, then cells only in the test run, and compares
// their throughput with Welch's unequal-variance t-test.
func Compare(base, test []CellGroup) []Delta {
	type key struct{ exp, pair, cell string }
	k := func(g CellGroup) key { return key{g.Experiment, g.Pair, g.CellKey} }
	tests := map[key]CellGroup{}
	for _, g := range test {
		tests[k(g)] = g
	}
	var out []Delta
	seen := map[key]bool{}
	for _, b := range base {
		seen[k(b)] = true
		t, ok := tests[k(b)]
		if !ok {
			out = append(out, Delta{Experiment: b.Experiment, Pair: b.Pair, Cell: b.Cell, CellKey: b.CellKey,
				Base: b.ThroughputBps, Change: Missing})
			continue
		}
		out = append(out, compareCell(b, t))
	}
	for _, t := range test {
		if !seen[k(t)] {
			out = append(out, Delta{Experiment: t.Experiment, Pair: t.Pair, Cell: t.Cell, CellKey: t.CellKey,
				Test: t.ThroughputBps, Change: Missing})
		}
	}
	return out
}

func compareCell(b, t CellGroup) Delta {
	d := Delta{Experiment: b.Experiment, Pair: b.Pair, Cell: b.Cell, CellKey: b.CellKey,
		Base: b.ThroughputBps, Test: t.ThroughputBps}
	x, y := d.Base, d.Test
	d.Diff = y.Mean - x.Mean
	if x.Mean != 0 {
		d.RelDiff = d.Diff / x.Mean
	}
	if x.N < 2 || y.N < 2 {
		d.Change = Missing
		return d
	}
	d.T, d.DF, d.P = WelchT(x, y)
	half := 0.0
	if d.DF > 0 {
		half = tCritical(0.05, d.DF) * math.Sqrt(x.Stdev*x.Stdev/float64(x.N)+y.Stdev*y.Stdev/float64(y.N))
	}
	d.DiffLow, d.DiffHigh = d.Diff-half, d.Diff+half
	band := Equivalence * math.Abs(x.Mean)
	switch {
	case d.P < Alpha && d.Diff > 0:
		d.Change = Improved
	case d.P < Alpha && d.Diff < 0:
		d.Change = Regressed
	case d.DiffLow >= -band && d.DiffHigh <= band:
		d.Change = NoChange
	default:
		d.Change = TooNoisy
	}
	return d
}

// WelchT is Welch's t-test of two samples given as summaries: the t
// statistic of mean(y) - mean(x), the Welch–Satterthwaite degrees of
// freedom and the two-sided p-value. Two samples without spread give
// p = 1 when their means are equal and p = 0 otherwise.
func WelchT(x, y Summary) (t, df, p float64) {
	vx, vy := x.Stdev*x.Stdev/float64(x.N), y.Stdev*y.Stdev/float64(y.N)
	se := math.Sqrt(vx + vy)
	if se == 0 {
		if x.Mean == y.Mean {
			return 0, 0, 1
		}
		return math.Copysign(math.Inf(1), y.Mean-x.Mean), 0, 0
	}
	t = (y.Mean - x.Mean) / se
	df = (vx + vy) * (vx + vy) / (vx*vx/float64(x.N-1) + vy*vy/float64(y.N-1))
	return t, df, tTwoSidedP(math.Abs(t), df)
}
