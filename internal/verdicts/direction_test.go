package verdicts

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// withDirection sets the catalogue's direction of a metric for one test:
// what the guard would believe had a measurement established it.
func withDirection(t *testing.T, key string, d results.Direction) {
	t.Helper()
	i := slices.IndexFunc(results.Metrics, func(m results.Metric) bool { return m.Key == key })
	old := results.Metrics[i].Disturbance
	results.Metrics[i].Disturbance = d
	t.Cleanup(func() { results.Metrics[i].Disturbance = old })
}

// disturbedRuns draws n runs of mean mu and coefficient of variation cv;
// each is disturbed with probability p, which multiplies it by factor,
// and is marked so (Record.Disturbed), as MarkDisturbed marks the runs a
// neighbour shared.
func disturbedRuns(r *rand.Rand, n int, mu, cv, p, factor float64) []results.Record {
	xs := make([]float64, n)
	hit := make([]bool, n)
	for i := range xs {
		xs[i] = mu * (1 + cv*r.NormFloat64())
		if r.Float64() < p {
			xs[i] *= factor
			hit[i] = true
		}
	}
	recs := cellRecs("p", "true", "1500", 0, xs...)
	for i := range recs {
		if hit[i] {
			recs[i].Disturbed = "sim"
		}
	}
	return recs
}

// dirCells is the number of simulated cells per rule (fewer than simCells:
// each disturbed cell is judged twice).
const dirCells = 20000

// TestSimulatedDirectionOfDisturbance: nobody measured that a neighbour
// only slows a run, and on this runner a disturbed run can be faster
// (less contention on the guests' own CPUs than in the quiet runs, or
// the neighbour's load ends mid-run). With disturbed runs 15 % faster:
//
//   - check: the true undisturbed mean on the upper edge of 10 ± 15 %
//     (n = 5, CV 10 %, each run disturbed with probability 1/2). The old
//     rule (a rate entirely above its band fails on disturbed runs, since
//     a neighbour could only have lowered it) fails ~15 % of these cells,
//     a cell that is within its band; the rule now (a disturbed verdict
//     stands only when the undisturbed runs alone give it) ≤ 2.5 %.
//   - compare: base and test alike in truth (n = 10, CV 5 %), each base
//     run disturbed with probability 1/2. The old rule (a regression
//     stands when only the base was disturbed) reports ~50 % of them
//     regressed; the rule now ≤ 2.5 % (one side of Welch's 5 % test).
func TestSimulatedDirectionOfDisturbance(t *testing.T) {
	band := Expectation{Name: "sim", Experiment: "x", Throughput: &Target{Value: 10, Tolerance: 0.15}}
	checkFails := func(seed uint64) float64 {
		r := rand.New(rand.NewPCG(seed, 32))
		fails, cells := 0, 0
		for range dirCells {
			g := results.Group(disturbedRuns(r, 5, 11.5, 0.10, 0.5, 1.15))
			if g[0].Disturbed == 0 {
				continue // the guard has nothing to say about a quiet cell
			}
			cells++
			if Evaluate(g, []Expectation{band})[0].Checks[0].Verdict == VerdictFail {
				fails++
			}
		}
		return float64(fails) / float64(cells)
	}
	compareRegressions := func(seed uint64) float64 {
		r := rand.New(rand.NewPCG(seed, 31))
		regs, cells := 0, 0
		for range dirCells / 4 {
			base := results.Group(disturbedRuns(r, 10, 10, 0.05, 0.5, 1.15))
			test := results.Group(disturbedRuns(r, 10, 10, 0.05, 0, 1))
			if base[0].Disturbed == 0 {
				continue
			}
			cells++
			if Compare(base, test, CompareOptions{})[0].Change == Regressed {
				regs++
			}
		}
		return float64(regs) / float64(cells)
	}
	t.Run("old rule: direction trusted", func(t *testing.T) {
		withDirection(t, results.MetricThroughput, results.OnlyDown)
		check, cmp := checkFails(1), compareRegressions(2)
		t.Logf("wrong verdicts trusting the direction: check fails %.4f, compare regressions %.4f", check, cmp)
		// The case where the old rule must be wrong: it is what the
		// rule now must not repeat.
		if check < 0.10 || cmp < 0.30 {
			t.Errorf("the old rule erred less than expected (check %.4f, compare %.4f): is the simulation still disturbing runs upwards?", check, cmp)
		}
	})
	t.Run("rule now: either way", func(t *testing.T) {
		check, cmp := checkFails(1), compareRegressions(2)
		t.Logf("wrong verdicts now: check fails %.4f, compare regressions %.4f", check, cmp)
		if check > allowance(0.025, dirCells/2) || cmp > allowance(0.025, dirCells/8) {
			t.Errorf("wrong verdicts on disturbed cells: check %.4f, compare %.4f, above 2.5 %%", check, cmp)
		}
	})
}

// A disturbed check or change stands only when the undisturbed runs
// alone give it; what they do not give is inconclusive (too noisy), and
// the reason says which.
func TestDisturbedVerdictHoldsWithoutDisturbedRuns(t *testing.T) {
	mark := func(recs []results.Record, idx ...int) []results.Record {
		out := slices.Clone(recs)
		for _, i := range idx {
			out[i].Disturbed = "CPU pressure 94.0% on the runner"
		}
		return out
	}
	far := Expectation{Name: "x", Experiment: "x", Throughput: &Target{Value: 1, Tolerance: 0.1}}
	near := Expectation{Name: "x", Experiment: "x", Throughput: &Target{Value: 10, Tolerance: 0.1}}
	tests := []struct {
		name   string
		recs   []results.Record
		e      Expectation
		want   Verdict
		reason string
	}{
		{"fail that holds without the disturbed run", mark(cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1, 10.5), 3), far, VerdictFail,
			"with the 1 disturbed run left out"},
		{"pass that holds without the disturbed run", mark(cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1, 10.05), 3), near, VerdictPass,
			"with the 1 disturbed run left out"},
		{"pass made by the disturbed runs", mark(cellRecs("p", "true", "1500", 0, 9.6, 10.4, 10, 10, 10, 10, 10, 10), 2, 3, 4, 5, 6, 7), near, VerdictInconclusive,
			"without them:"},
		{"every run disturbed", mark(cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1), 0, 1, 2), far, VerdictInconclusive,
			"no run is left without them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Evaluate(results.Group(tt.recs), []Expectation{tt.e})[0].Checks[0]
			if c.Verdict != tt.want || !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("%s: %q, want %s saying %q", c.Verdict, c.Reason, tt.want, tt.reason)
			}
		})
	}
	fast, slow := cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1, 10), cellRecs("p", "true", "1500", 0, 4.9, 5, 5.1, 5)
	d := Compare(results.Group(mark(fast, 0)), results.Group(slow), CompareOptions{})[0]
	if d.Change != Regressed || !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.Contains(n, "holds with the disturbed runs left out") }) {
		t.Errorf("a regression the undisturbed runs show: %s %v", d.Change, d.Notes)
	}
	d = Compare(results.Group(mark(cellRecs("p", "true", "1500", 0, 5, 5.1, 9.9, 10), 2, 3)), results.Group(slow), CompareOptions{})[0]
	if d.Change != TooNoisy {
		t.Errorf("a change made by the disturbed runs: %s %v", d.Change, d.Notes)
	}
}
