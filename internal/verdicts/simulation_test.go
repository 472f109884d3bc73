package verdicts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// The simulations check the error rates the rules' doc comments promise,
// with a fixed seed so that they are deterministic. Each rate is an
// estimate from a finite number of simulated cells: a rule whose true
// rate is exactly the bound (2.5 % at a band edge is exact for normal
// runs) shows it within binomial noise, so the tests allow three standard
// errors above the bound — they catch a wrong rule (the old mean-only rule
// passed 7 % at 20 % below nominal; interval arithmetic on ratios and an
// uncorrected compare are far off), not the luck of a seed.

// simCells is the number of simulated cells per scenario.
const simCells = 50000

// allowance is the bound plus three binomial standard errors at n trials.
func allowance(bound float64, n int) float64 {
	return bound + 3*math.Sqrt(bound*(1-bound)/float64(n))
}

// sample draws n normal runs with mean mu and coefficient of variation cv.
func sample(r *rand.Rand, n int, mu, cv float64) results.Summary {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = mu * (1 + cv*r.NormFloat64())
	}
	return results.Summarize(xs)
}

// groupOf wraps a throughput summary (in Gb/s) as a cell group.
func groupOf(key string, s results.Summary) results.CellGroup {
	return results.CellGroup{Experiment: "x", Pair: "p", CellKey: key, N: s.N,
		Cell: []results.CellValue{{Name: "k", Value: key}}, ThroughputBps: s.Scale(1e9)}
}

func TestSimulatedFalsePassAtBandEdge(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 1))
	tests := []struct {
		name      string
		n         int
		cv, truth float64 // truth: the true mean as a fraction of nominal
		bound     float64
	}{
		// Exactly on the lower and upper edges of 10 ± 15 %.
		{"lower edge, n=5, CV 10%", 5, 0.10, 0.85, 0.025},
		{"upper edge, n=5, CV 10%", 5, 0.10, 1.15, 0.025},
		{"lower edge, n=3, CV 5%", 3, 0.05, 0.85, 0.025},
		// The case: 20 % below nominal passed 7.4 % of the time.
		{"20% below nominal, n=5, CV 10%", 5, 0.10, 0.80, 0.025},
	}
	e := Expectation{Name: "sim", Experiment: "x", Throughput: &Target{Value: 10, Tolerance: 0.15}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			passes := 0
			for range simCells {
				if checkThroughput(e, groupOf("a", sample(r, tt.n, 10*tt.truth, tt.cv))).Verdict == VerdictPass {
					passes++
				}
			}
			rate := float64(passes) / simCells
			t.Logf("false pass rate %.4f (%d of %d cells)", rate, passes, simCells)
			if rate > allowance(tt.bound, simCells) {
				t.Errorf("false pass rate %.4f above %.3f", rate, tt.bound)
			}
		})
	}
}

// TestSimulatedFalseFailInsideBand: a true mean at the band's centre or
// just inside an edge fails at most 2.5 % of the time.
func TestSimulatedFalseFailInsideBand(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2))
	e := Expectation{Name: "sim", Experiment: "x", Throughput: &Target{Value: 10, Tolerance: 0.15}}
	fails := 0
	for range simCells {
		if checkThroughput(e, groupOf("a", sample(r, 5, 8.5, 0.10))).Verdict == VerdictFail {
			fails++
		}
	}
	rate := float64(fails) / simCells
	t.Logf("false fail rate on the edge %.4f (%d of %d)", rate, fails, simCells)
	if rate > allowance(0.025, simCells) {
		t.Errorf("false fail rate %.4f", rate)
	}
}

func TestSimulatedFalsePassAtRatioThreshold(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	tests := []struct {
		name          string
		nOf, nOver    int
		cvOf, cvOver  float64
		ratio, atLeas float64
	}{
		{"n=5 both, CV 10%", 5, 5, 0.10, 0.10, 2.5, 2.5},
		{"n=3 both, CV 5%/15%", 3, 3, 0.05, 0.15, 2.5, 2.5},
		{"n=5/10, CV 20%/5%", 5, 10, 0.20, 0.05, 1.1, 1.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := RatioTarget{AtLeast: tt.atLeas}
			passes, unbounded := 0, 0
			for range simCells {
				over := sample(r, tt.nOver, 4, tt.cvOver)
				of := sample(r, tt.nOf, 4*tt.ratio, tt.cvOf)
				c := judgeRatio(Check{}, of, over, target)
				if c.Verdict == VerdictPass {
					passes++
				}
				if c.Low == c.High {
					unbounded++
				}
			}
			rate := float64(passes) / simCells
			t.Logf("false pass rate %.4f (%d of %d; %d unbounded)", rate, passes, simCells, unbounded)
			if rate > allowance(0.025, simCells) {
				t.Errorf("false pass rate %.4f above 0.025", rate)
			}
		})
	}
}

// TestSimulatedCompareFamilyWise: two runs of 64 cells without any real
// change; the share of comparisons reporting at least one regressed cell
// (and at least one change of either kind) stays ≤ 5 %, with the default
// threshold and with a threshold so small that Holm alone decides.
func TestSimulatedCompareFamilyWise(t *testing.T) {
	const comparisons, cells = 2000, 64
	r := rand.New(rand.NewPCG(11, 4))
	for _, threshold := range []float64{DefaultThreshold, 1e-6} {
		regressed, changed := 0, 0
		base, test := make([]results.CellGroup, cells), make([]results.CellGroup, cells)
		for range comparisons {
			for i := range cells {
				key := string(rune('A'+i%26)) + string(rune('a'+i/26))
				base[i] = groupOf(key, sample(r, 5, 10, 0.05))
				test[i] = groupOf(key, sample(r, 5, 10, 0.05))
			}
			anyReg, anyChange := false, false
			for _, d := range Compare(base, test, CompareOptions{Threshold: threshold}) {
				anyReg = anyReg || d.Change == Regressed
				anyChange = anyChange || d.Change == Regressed || d.Change == Improved
			}
			if anyReg {
				regressed++
			}
			if anyChange {
				changed++
			}
		}
		rr, rc := float64(regressed)/comparisons, float64(changed)/comparisons
		t.Logf("threshold %g: %d cells × %d comparisons: any regressed %.4f, any change %.4f", threshold, cells, comparisons, rr, rc)
		if rc > allowance(Alpha, comparisons) {
			t.Errorf("threshold %g: family-wise false change rate %.4f above %.2f", threshold, rc, Alpha)
		}
	}
}

// poisson draws a Poisson count with mean mu (Knuth; fine for small mu).
func poisson(r *rand.Rand, mu float64) float64 {
	limit, k, p := math.Exp(-mu), 0.0, r.Float64()
	for p > limit {
		k++
		p *= r.Float64()
	}
	return k
}

// TestSimulatedCountFalseFail: retransmits whose true mean is exactly the
// maximum fail at most 2.5 % of the time (Poisson and a heavier-tailed
// mixture), for few and many runs.
func TestSimulatedCountFalseFail(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 5))
	tests := []struct {
		name string
		n    int
		max  float64
		draw func() float64
	}{
		{"Poisson mean 2, n=5", 5, 2, func() float64 { return poisson(r, 2) }},
		{"Poisson mean 2, n=40", 40, 2, func() float64 { return poisson(r, 2) }},
		{"Poisson mean 0.5, n=10", 10, 0.5, func() float64 { return poisson(r, 0.5) }},
		// Mean 3: 0 with probability 0.7, else Poisson(10).
		{"zero-inflated mean 3, n=10", 10, 3, func() float64 {
			if r.Float64() < 0.7 {
				return 0
			}
			return poisson(r, 10)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Expectation{Name: "sim", Experiment: "x", Retransmits: &Target{Value: tt.max}}
			const cells = 20000
			fails := 0
			xs := make([]float64, tt.n)
			for range cells {
				for i := range xs {
					xs[i] = tt.draw()
				}
				g := results.CellGroup{N: tt.n, Retransmits: results.Summarize(xs).Clamp(0, math.Inf(1))}
				if checkCount(e, g).Verdict == VerdictFail {
					fails++
				}
			}
			rate := float64(fails) / cells
			t.Logf("false fail rate %.4f (%d of %d)", rate, fails, cells)
			if rate > allowance(0.025, cells) {
				t.Errorf("false fail rate %.4f above 0.025", rate)
			}
		})
	}
}

// TestSimulatedFiellerCoverage: the 95 % Fieller interval with
// Welch–Satterthwaite degrees of freedom covers the true ratio of the
// means 94–96 % of the time from n = 5 runs per cell (balanced and
// unbalanced noise); n = 3 is logged, not held to it. An unbounded
// interval covers everything and counts as covering.
func TestSimulatedFiellerCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 6))
	const cells = 20000
	for _, tt := range []struct {
		n            int
		cvOf, cvOver float64
	}{{3, 0.10, 0.10}, {3, 0.05, 0.15}, {5, 0.10, 0.10}, {5, 0.05, 0.15}, {10, 0.10, 0.10}, {10, 0.05, 0.15}} {
		covered, unbounded := 0, 0
		for range cells {
			of, over := sample(r, tt.n, 10, tt.cvOf), sample(r, tt.n, 4, tt.cvOver)
			lo, hi, ok := Fieller(of, over, 0.05)
			switch {
			case !ok:
				unbounded++
				covered++
			case lo <= 2.5 && 2.5 <= hi:
				covered++
			}
		}
		rate := float64(covered) / cells
		t.Logf("n=%d, CV %.0f%%/%.0f%%: coverage %.4f (%d unbounded of %d)", tt.n, 100*tt.cvOf, 100*tt.cvOver, rate, unbounded, cells)
		if tt.n >= 5 && (rate < 0.94 || rate > 0.96) {
			t.Errorf("n=%d, CV %.0f%%/%.0f%%: coverage %.4f outside [0.94, 0.96]", tt.n, 100*tt.cvOf, 100*tt.cvOver, rate)
		}
	}
}

// TestSimulatedFalseFailNarrowBand: the band rule's false-fail bound is
// 2.5 % per edge, so up to 5 % in all when the band is narrow next to the
// noise — a true mean at the centre of 10 ± 0.1 % with n = 5 at CV 10 %
// fails when the CI lies wholly below the band (≤ 2.5 %) or wholly above
// it (≤ 2.5 %). The test holds the rate under 5 % and shows it is well
// above 2.5 % (so the README's "up to 5 %" is the true bound, not a
// loose one); a band wide next to the noise keeps the far edge's share
// near 0 and the 2.5 % bound (TestSimulatedFalseFailInsideBand).
func TestSimulatedFalseFailNarrowBand(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 7))
	e := Expectation{Name: "sim", Experiment: "x", Throughput: &Target{Value: 10, Tolerance: 0.001}}
	low, high := 0, 0
	for range simCells {
		c := checkThroughput(e, groupOf("a", sample(r, 5, 10, 0.10)))
		switch {
		case c.Verdict != VerdictFail:
		case strings.Contains(c.Reason, "below"):
			low++
		default:
			high++
		}
	}
	rate := float64(low+high) / simCells
	t.Logf("narrow band, true mean at its centre: false fail %.4f (%d below, %d above, of %d)", rate, low, high, simCells)
	if rate > allowance(0.05, simCells) {
		t.Errorf("false fail rate %.4f above 5 %%", rate)
	}
	if rate < 0.04 {
		t.Errorf("false fail rate %.4f: the narrow-band case no longer reaches the documented 5 %% bound", rate)
	}
}

// TestSimulatedCompareAdjustPower: 32 cells, of which one (then eight)
// really lost 10 % (n = 5 per side, CV 5 %): how often compare reports a
// real cell regressed under Holm and under Benjamini–Hochberg, and how
// often an unchanged cell is reported changed (Holm bounds any such
// cell, the family-wise error; BH the false share of the reported cells,
// whose mean is the false discovery rate). Each stays ≤ Alpha; BH's
// power is never below Holm's, and clearly above it with eight.
func TestSimulatedCompareAdjustPower(t *testing.T) {
	for _, real := range []int{1, 8} {
		t.Run(fmt.Sprintf("%d real of 32", real), func(t *testing.T) {
			holm, bh := simulateAdjust(t, real, AdjustHolm), simulateAdjust(t, real, AdjustBH)
			if bh < holm || (real > 1 && bh < holm+0.05) {
				t.Errorf("BH's power %.4f not above Holm's %.4f", bh, holm)
			}
		})
	}
}

// simulateAdjust runs 2 000 comparisons of 32 cells whose first real
// cells lost 10 % and returns the power (the share of real cells found
// regressed), checking the error rate the adjustment bounds.
func simulateAdjust(t *testing.T, real int, adjust string) float64 {
	const comparisons, cells = 2000, 32
	r := rand.New(rand.NewPCG(11, 8))
	found, anyFalse, fdp := 0, 0, 0.0
	base, test := make([]results.CellGroup, cells), make([]results.CellGroup, cells)
	for range comparisons {
		for i := range cells {
			key := string(rune('A'+i%26)) + string(rune('a'+i/26))
			truth := 10.0
			if i < real {
				truth = 9 // a real change: −10 %
			}
			base[i] = groupOf(key, sample(r, 5, 10, 0.05))
			test[i] = groupOf(key, sample(r, 5, truth, 0.05))
		}
		reported, wrong := 0, 0
		for i, d := range Compare(base, test, CompareOptions{Adjust: adjust}) {
			if d.Change != Regressed && d.Change != Improved {
				continue
			}
			reported++
			if i < real && d.Change == Regressed {
				found++
			} else {
				wrong++
			}
		}
		if wrong > 0 {
			anyFalse++
			fdp += float64(wrong) / float64(reported)
		}
	}
	power := float64(found) / float64(comparisons*real)
	fwer, fdr := float64(anyFalse)/comparisons, fdp/comparisons
	t.Logf("%s: power %.4f per real cell; family-wise false change %.4f, false discovery rate %.4f", adjust, power, fwer, fdr)
	if fdr > allowance(Alpha, comparisons) || (adjust == AdjustHolm && fwer > allowance(Alpha, comparisons)) {
		t.Errorf("%s: FWER %.4f, FDR %.4f above %.2f", adjust, fwer, fdr, Alpha)
	}
	return power
}

// TestSimulatedDisturbedVerdictsThatStand: the verdicts the noise guard
// keeps on disturbed runs (disturbed) keep their error rate. With the
// undisturbed true mean exactly on the band's upper edge, a throughput
// cell whose runs are each disturbed with probability 1/2 — a disturbed
// run slowed by a random 0–40 % — fails "entirely above" at most 2.5 % of
// the time; so does a latency cell on the lower edge whose disturbed runs
// are raised by 0–70 %. A slowdown only moves the interval away from the
// edge it could wrongly cross.
func TestSimulatedDisturbedVerdictsThatStand(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 9))
	runs := func(mu, cv float64, slow func() float64) []float64 {
		xs := make([]float64, 5)
		for i := range xs {
			xs[i] = mu * (1 + cv*r.NormFloat64())
			if r.IntN(2) == 0 {
				xs[i] *= slow()
			}
		}
		return xs
	}
	tests := []struct {
		name string
		e    Expectation
		recs func() []results.Record
	}{
		{"throughput on the upper edge", Expectation{Name: "sim", Experiment: "x", Throughput: &Target{Value: 10, Tolerance: 0.15}},
			func() []results.Record {
				recs := cellRecs("p", "true", "1500", 0, runs(11.5, 0.10, func() float64 { return 1 - 0.4*r.Float64() })...)
				recs[0].Disturbed = "sim"
				return recs
			}},
		{"latency on the lower edge", Expectation{Name: "sim", Experiment: "x", Metrics: []MetricTarget{{Metric: results.MetricLatencyMean, Value: 100, Tolerance: 0.15}}},
			func() []results.Record {
				recs := cellRecs("p", "true", "1500", 0, 1, 1, 1, 1, 1)
				for i, us := range runs(85, 0.10, func() float64 { return 1 + 0.7*r.Float64() }) {
					recs[i].Metrics.Latency = &bench.LatencySample{MeanUs: us}
				}
				recs[0].Disturbed = "sim"
				return recs
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fails := 0
			for range simCells {
				if c := Evaluate(results.Group(tt.recs()), []Expectation{tt.e})[0].Checks[0]; c.Verdict == VerdictFail {
					fails++
				}
			}
			rate := float64(fails) / simCells
			t.Logf("false fail rate on disturbed runs %.4f (%d of %d)", rate, fails, simCells)
			if rate > allowance(0.025, simCells) {
				t.Errorf("false fail rate %.4f above 2.5 %%", rate)
			}
		})
	}
}
