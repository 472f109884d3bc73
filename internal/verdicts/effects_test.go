package verdicts

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// effectsReference is testdata/effects/reference.json, written once by
// testdata/effects/effects_reference.py (numpy's least squares, scipy's F
// and t distributions) from testdata/effects/records.json, the recorded
// runs of two published bundles. The test needs only the JSON files.
type effectsReference struct {
	Generator string `json:"generator"`
	Datasets  []struct {
		Name       string `json:"name"`
		Experiment string `json:"experiment"`
		Drop       []struct {
			CellKey string `json:"cell_key"`
			Repeat  int    `json:"repeat"`
		} `json:"drop"`
		Metrics []MetricEffects `json:"metrics"`
	} `json:"datasets"`
}

func loadEffectsInput(t *testing.T) []results.Record {
	t.Helper()
	b, err := os.ReadFile("testdata/effects/records.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []results.Record
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestEffectsReference compares every estimate, standard error, interval,
// F and p of lab's model with the reference's, within 1e-9 relative (of
// the metric's grand mean for values that are near zero).
func TestEffectsReference(t *testing.T) {
	b, err := os.ReadFile("testdata/effects/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref effectsReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	recs := loadEffectsInput(t)
	worst := 0.0
	for _, ds := range ref.Datasets {
		sel := slices.DeleteFunc(slices.Clone(recs), func(r results.Record) bool {
			if r.Experiment != ds.Experiment {
				return true
			}
			for _, d := range ds.Drop {
				if d.CellKey == r.CellKey && d.Repeat == r.Repeat {
					return true
				}
			}
			return false
		})
		for _, want := range ds.Metrics {
			got := Effects(sel, want.Metric)
			if len(got) != 1 || len(got[0].Metrics) != 1 {
				t.Fatalf("%s %s: %d fits, want 1", ds.Name, want.Metric, len(got))
			}
			worst = math.Max(worst, compareFit(t, ds.Name+" "+want.Metric, got[0].Metrics[0], want))
		}
	}
	t.Logf("largest relative difference from %s: %.2g", ref.Generator, worst)
}

func compareFit(t *testing.T, name string, got, want MetricEffects) float64 {
	t.Helper()
	if got.N != want.N || got.Rank != want.Rank || got.DF != want.DF || len(got.Terms) != len(want.Terms) {
		t.Fatalf("%s: n, rank, df, terms = %d %d %d %d, want %d %d %d %d", name, got.N, got.Rank, got.DF, len(got.Terms),
			want.N, want.Rank, want.DF, len(want.Terms))
	}
	scale := math.Abs(want.Mean.Value)
	worst := 0.0
	near := func(what string, g, w, floor float64) {
		d := math.Abs(g-w) / math.Max(math.Max(math.Abs(g), math.Abs(w)), floor)
		worst = math.Max(worst, d)
		if d > 1e-9 {
			t.Errorf("%s %s = %.15g, reference %.15g (relative %.2g)", name, what, g, w, d)
		}
	}
	est := func(what string, g, w Estimate) {
		if !g.Estimable || !g.Known {
			t.Errorf("%s %s: estimable %v, interval known %v", name, what, g.Estimable, g.Known)
		}
		if !slices.Equal(g.Levels, w.Levels) {
			t.Errorf("%s %s: levels %q, want %q", name, what, g.Levels, w.Levels)
		}
		near(what+" value", g.Value, w.Value, scale)
		near(what+" se", g.SE, w.SE, scale)
		near(what+" ci95_low", g.CI95Low, w.CI95Low, scale)
		near(what+" ci95_high", g.CI95High, w.CI95High, scale)
	}
	near("residual sd", got.ResidualSD, want.ResidualSD, scale)
	est("mean", got.Mean, want.Mean)
	for i, w := range want.Terms {
		g := got.Terms[i]
		tn := g.TermName()
		if !slices.Equal(g.Factors, w.Factors) || len(g.Levels) != len(w.Levels) || (g.Contrast == nil) != (w.Contrast == nil) {
			t.Fatalf("%s term %d: %q with %d levels, want %q with %d", name, i, g.Factors, len(g.Levels), w.Factors, len(w.Levels))
		}
		for j := range w.Levels {
			est(tn+" level "+w.Levels[j].Levels[0], g.Levels[j], w.Levels[j])
		}
		if w.Contrast != nil {
			est(tn+" contrast", *g.Contrast, *w.Contrast)
		}
		if !g.Tested || g.DFTerm != w.DFTerm {
			t.Errorf("%s %s: tested %v on %d df, want %d", name, tn, g.Tested, g.DFTerm, w.DFTerm)
		}
		near(tn+" F", g.F, w.F, 1e-12)
		near(tn+" p", g.P, w.P, 1e-12)
	}
	return worst
}

// TestEffectsIncomplete drops a cell of a 2 × 3 design: the model's
// six coefficients rest on five cells, so the interaction and the main
// effects (means over every cell) cannot be told, and say so; a cell
// with one run each and no residual left gives estimates without
// intervals. Every result encodes as JSON.
func TestEffectsIncomplete(t *testing.T) {
	recs := slices.DeleteFunc(loadEffectsInput(t), func(r results.Record) bool {
		return r.Experiment != "firewall" || r.CellKey == "mtu=9000,firewall=stateless"
	})
	fe := Effects(recs, results.MetricThroughput)[0]
	if fe.Cells != 5 || len(fe.Factors) != 2 || len(fe.Factors[1].Levels) != 3 {
		t.Fatalf("cells %d, factors %+v", fe.Cells, fe.Factors)
	}
	m := fe.Metrics[0]
	if m.Rank != 5 || m.Mean.Estimable {
		t.Errorf("rank %d, mean estimable %v: want 5, false", m.Rank, m.Mean.Estimable)
	}
	for _, tm := range m.Terms {
		if tm.Tested || slices.ContainsFunc(tm.Levels, func(e Estimate) bool { return e.Estimable }) {
			t.Errorf("%s: tested %v, levels %+v: want nothing estimable", tm.TermName(), tm.Tested, tm.Levels)
		}
	}
	// One run per cell: 6 runs, 6 coefficients, no residual.
	var once []results.Record
	for _, r := range loadEffectsInput(t) {
		if r.Experiment == "firewall" && r.Repeat == 1 && !r.Warmup {
			once = append(once, r)
		}
	}
	m = Effects(once, results.MetricThroughput)[0].Metrics[0]
	if m.DF != 0 || !m.Mean.Estimable || m.Mean.Known || m.Terms[0].Tested {
		t.Errorf("df %d, mean %+v, tested %v: want 0, estimable without interval, untested", m.DF, m.Mean, m.Terms[0].Tested)
	}
	for _, fe := range [][]FactorEffects{Effects(recs, ""), Effects(once, "")} {
		if _, err := json.Marshal(fe); err != nil {
			t.Error(err)
		}
	}
}

// TestEffectsLeavesOut checks that failed, disturbed and warm-up runs are
// not in the fit but counted.
func TestEffectsLeavesOut(t *testing.T) {
	recs := slices.DeleteFunc(loadEffectsInput(t), func(r results.Record) bool { return r.Experiment != "mtu-gro" })
	recs[0].Error = "iperf3: connection refused"
	recs[1].Disturbed = "server steal 40 %"
	recs = append(recs, results.Record{Experiment: "mtu-gro", Pair: "veth", Cell: recs[2].Cell, CellKey: recs[2].CellKey, Warmup: true})
	fe := Effects(recs, results.MetricThroughput)[0]
	if fe.Failed != 1 || fe.Disturbed != 1 || fe.Runs != 38 || fe.Metrics[0].N != 38 {
		t.Errorf("failed %d disturbed %d runs %d n %d: want 1 1 38 38", fe.Failed, fe.Disturbed, fe.Runs, fe.Metrics[0].N)
	}
}

// TestSimulatedEffectsCoverage simulates a 2 × 3 design (mtu × firewall, 4
// repeats, normal noise of sd 1) with known effects — mtu contrast +2,
// firewall deviations +1, 0, −1, no interaction — balanced and with up to
// half of each cell's runs dropped at random (unbalanced), and counts
// how often the 95 % intervals cover the true values and the
// interaction's F test rejects (its true value is 0). Seeded: 2,000
// trials per design; each rate is 95 % (5 % for the F test) ± 1.5 points.
func TestSimulatedEffectsCoverage(t *testing.T) {
	mtus, fws := []string{"1500", "9000"}, []string{"off", "stateless", "stateful"}
	dev := []float64{1, 0, -1}
	for _, unbalanced := range []bool{false, true} {
		r := rand.New(rand.NewPCG(23, 4))
		const trials = 2000
		var mtuOK, fwOK, ixOK, ixReject int
		for range trials {
			var recs []results.Record
			for i, m := range mtus {
				for j, f := range fws {
					keep := 4
					if unbalanced {
						keep = 2 + r.IntN(3)
					}
					for rep := 1; rep <= keep; rep++ {
						v := 10 + 2*(float64(i)-0.5) + dev[j] + r.NormFloat64()
						recs = append(recs, results.Record{Experiment: "e", Pair: "p", CellIndex: i*3 + j, Repeat: rep,
							Cell: []results.CellValue{{Name: "mtu", Value: m}, {Name: "firewall", Value: f}}, CellKey: "mtu=" + m + ",firewall=" + f,
							Metrics: bench.Sample{ThroughputBps: v}})
					}
				}
			}
			me := Effects(recs, results.MetricThroughput)[0].Metrics[0]
			covers := func(e Estimate, v float64) bool { return e.CI95Low <= v && v <= e.CI95High }
			if covers(*me.Terms[0].Contrast, 2) {
				mtuOK++
			}
			if covers(me.Terms[1].Levels[0], 1) {
				fwOK++
			}
			if covers(me.Terms[2].Levels[0], 0) {
				ixOK++
			}
			if me.Terms[2].Tested && me.Terms[2].P < 0.05 {
				ixReject++
			}
		}
		for _, c := range []struct {
			what  string
			count int
			want  float64
		}{{"mtu contrast coverage", mtuOK, 0.95}, {"firewall=off coverage", fwOK, 0.95},
			{"interaction coverage", ixOK, 0.95}, {"interaction F false rejection", ixReject, 0.05}} {
			rate := float64(c.count) / trials
			t.Logf("unbalanced %v: %s %.3f", unbalanced, c.what, rate)
			if math.Abs(rate-c.want) > 0.015 {
				t.Errorf("unbalanced %v: %s %.3f, want %.2f ± 0.015", unbalanced, c.what, rate, c.want)
			}
		}
	}
}

// TestEffectsHugeValues fits values whose squares overflow float64 (the
// fit is scaled by a power of two) and a run whose value is +Inf (left
// out): the estimates are finite and the result encodes as JSON.
func TestEffectsHugeValues(t *testing.T) {
	var recs []results.Record
	for i, m := range []string{"1500", "9000"} {
		for rep := 1; rep <= 3; rep++ {
			recs = append(recs, results.Record{Experiment: "e", Pair: "p", CellIndex: i, Repeat: rep, Cell: []results.CellValue{{Name: "mtu", Value: m}},
				CellKey: "mtu=" + m, Metrics: bench.Sample{ThroughputBps: 1e300 * float64(1+i+rep)}})
		}
	}
	recs = append(recs, results.Record{Experiment: "e", Pair: "p", Repeat: 4, Cell: recs[0].Cell, CellKey: recs[0].CellKey,
		Metrics: bench.Sample{ThroughputBps: math.Inf(1)}})
	fe := Effects(recs, results.MetricThroughput)
	me := fe[0].Metrics[0]
	if c := me.Terms[0].Contrast; me.N != 6 || !c.Known || math.Abs(c.Value-1e300)/1e300 > 1e-12 || !me.Terms[0].Tested {
		t.Errorf("n %d, contrast %+v, tested %v: want 6, 1e300 with an interval, tested", me.N, c, me.Terms[0].Tested)
	}
	if _, err := json.Marshal(fe); err != nil {
		t.Error(err)
	}
}
