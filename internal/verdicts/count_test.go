package verdicts

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// countRecs makes one record per count of a cell "c" of run id.
func countRecs(id string, counts ...int64) []results.Record {
	var recs []results.Record
	for i, n := range counts {
		r := results.Record{RunID: id, Experiment: "x", Pair: "p", CellKey: "c", Repeat: i + 1}
		r.Metrics.ThroughputBps, r.Metrics.Retransmits = 9e9, n
		recs = append(recs, r)
	}
	return recs
}

func TestCountRule(t *testing.T) {
	pooled := results.PoolRuns(map[string][]results.Record{"a": countRecs("a", 1, 0, 0), "b": countRecs("b", 1, 0, 0), "c": countRecs("c", 1, 0, 0)})
	tests := []struct {
		name   string
		recs   []results.Record
		max    float64
		want   Verdict
		reason string
	}{
		{"5/0/0 refutes a mean of 0", countRecs("a", 5, 0, 0), 0, VerdictFail, "1 of 3 runs counted retransmits (5 in all)"},
		{"1/1/0 refutes a mean of 0", countRecs("a", 1, 1, 0), 0, VerdictFail, "2 of 3 runs counted"},
		{"0/0/0 passes a maximum of 0", countRecs("a", 0, 0, 0), 0, VerdictPass, "none of 3 runs"},
		{"three applies of 1/0/0 pooled refute a mean of 0", pooled, 0, VerdictFail, "3 of 9 runs counted retransmits (3 in all)"},
		{"6/5/7 over a maximum of 2 fails", countRecs("a", 6, 5, 7), 2, VerdictFail, "entirely above the maximum 2"},
		{"0/1/2 within a maximum of 10 passes", countRecs("a", 0, 1, 2), 10, VerdictPass, "within the maximum 10"},
		{"2/3/1 against a maximum of 2 straddles", countRecs("a", 2, 3, 1), 2, VerdictInconclusive, "straddles the maximum 2"},
		{"one run of 3 against a maximum of 2", countRecs("a", 3), 2, VerdictInconclusive, "1 run"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Expectation{Name: tt.name, Experiment: "x", Retransmits: &Target{Value: tt.max}}
			c := Evaluate(results.Group(tt.recs), []Expectation{e})[0].Checks[0]
			if c.Verdict != tt.want || !strings.Contains(c.Reason, tt.reason) {
				t.Errorf("%s: %q, want %s: …%s…", c.Verdict, c.Reason, tt.want, tt.reason)
			}
		})
	}
}

// TestCountBoundsExact: the Poisson interval of a total matches the
// chi-square–Poisson (Garwood) values of a table (Ulm 1990: k = 3 gives
// [0.619, 8.767]; k = 0 gives [0, 3.689]).
func TestCountBoundsExact(t *testing.T) {
	for _, tc := range []struct{ total, lo, hi float64 }{{3, 0.6187, 8.7673}, {0, 0, 3.6889}, {10, 4.7954, 18.3904}} {
		// Equal counts: dispersion 0, so no widening.
		lo, hi := CountBounds(results.CountSample{Runs: 1, Total: tc.total})
		if math.Abs(lo-tc.lo) > 1e-3 || math.Abs(hi-tc.hi) > 1e-3 {
			t.Errorf("k=%v: [%v, %v], want [%v, %v]", tc.total, lo, hi, tc.lo, tc.hi)
		}
	}
}

// negBinomial draws a negative binomial count of mean mu and dispersion
// (variance / mean) d > 1: a Poisson whose mean is gamma distributed.
func negBinomial(r *rand.Rand, mu, d float64) float64 {
	shape := mu / (d - 1)
	return poisson(r, gammaDraw(r, shape)*(d-1))
}

// gammaDraw draws Gamma(shape, 1) (Marsaglia–Tsang; shape < 1 boosted).
func gammaDraw(r *rand.Rand, shape float64) float64 {
	if shape < 1 {
		return gammaDraw(r, shape+1) * math.Pow(r.Float64(), 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		if u := r.Float64(); math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// TestSimulatedCountRule: with the true mean exactly the maximum m, the
// count rule fails (false fail) and passes (false pass) each at most
// 2.5 % of the time — Poisson counts at several means and run counts, and
// over-dispersed (negative binomial) counts; with m = 0 and a true mean
// of 0 it never fails. Strongly over-dispersed counts with few runs pass
// more often (passBound): most of their runs count nothing, which no
// count test can tell from a low mean. Fixed seed; the rates are in the
// README.
func TestSimulatedCountRule(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 1))
	pois := func(mu float64) func() float64 { return func() float64 { return poisson(r, mu) } }
	nb := func(mu, d float64) func() float64 { return func() float64 { return negBinomial(r, mu, d) } }
	tests := []struct {
		name      string
		n         int
		m         float64
		draw      func() float64
		passBound float64
	}{
		{"Poisson mean 0 at max 0, n=3", 3, 0, pois(0), 1},
		{"Poisson mean 1, n=3", 3, 1, pois(1), 0.025},
		{"Poisson mean 1, n=10", 10, 1, pois(1), 0.025},
		{"Poisson mean 5, n=5", 5, 5, pois(5), 0.025},
		{"Poisson mean 20, n=10", 10, 20, pois(20), 0.025},
		{"negative binomial mean 5 dispersion 4, n=5", 5, 5, nb(5, 4), 0.05},
		{"negative binomial mean 5 dispersion 4, n=10", 10, 5, nb(5, 4), 0.025},
		{"negative binomial mean 2 dispersion 10, n=10", 10, 2, nb(2, 10), 0.10},
	}
	const cells = 8000
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := Expectation{Name: "sim", Experiment: "x", Retransmits: &Target{Value: tt.m}}
			fails, passes := 0, 0
			for range cells {
				var cs results.CountSample
				for range tt.n {
					cs.Add(tt.draw())
				}
				switch checkCount(e, results.CellGroup{N: tt.n, RetransmitCounts: cs}).Verdict {
				case VerdictFail:
					fails++
				case VerdictPass:
					passes++
				}
			}
			ff, fp := float64(fails)/cells, float64(passes)/cells
			t.Logf("false fail %.4f, false pass %.4f (%d cells)", ff, fp, cells)
			if ff > allowance(0.025, cells) {
				t.Errorf("false fail rate %.4f above 0.025", ff)
			}
			if fp > allowance(tt.passBound, cells) {
				t.Errorf("false pass rate %.4f above %.3f", fp, tt.passBound)
			}
		})
	}
}

// TestSimulatedPooledCounts: three applies of three Poisson runs each,
// pooled (PoolRuns) and checked against max = m with the true mean
// exactly m, fail and pass each ≤ 2.5 % of the time: the pooled check
// reads every run's count, not each apply's rounded mean.
func TestSimulatedPooledCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 2))
	const cells = 3000
	for _, m := range []float64{0.3, 2} {
		e := Expectation{Name: "sim", Experiment: "x", Retransmits: &Target{Value: m}}
		fails, passes := 0, 0
		for range cells {
			runs := map[string][]results.Record{}
			for _, id := range []string{"a", "b", "c"} {
				runs[id] = countRecs(id, int64(poisson(r, m)), int64(poisson(r, m)), int64(poisson(r, m)))
			}
			switch Evaluate(results.Group(results.PoolRuns(runs)), []Expectation{e})[0].Checks[0].Verdict {
			case VerdictFail:
				fails++
			case VerdictPass:
				passes++
			}
		}
		ff, fp := float64(fails)/cells, float64(passes)/cells
		t.Logf("max %v: false fail %.4f, false pass %.4f (%d pooled cells of 3 × 3 runs)", m, ff, fp, cells)
		if ff > allowance(0.025, cells) || fp > allowance(0.025, cells) {
			t.Errorf("max %v: false fail %.4f, false pass %.4f: want ≤ 0.025", m, ff, fp)
		}
	}
}
