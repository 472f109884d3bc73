package verdicts

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// gsCells is the number of simulated cells per row of the group-sequential
// tests and benchmark.
const gsCells = 20000

// gsEdge simulates cells with the true mean on an edge, looked at by the
// design (with boundary c(n) and futility f(n)), and returns the rates of
// the two wrong verdicts, pass and fail.
func gsEdge(seed uint64, cells int, edge, cv float64, d results.SeqDesign, c, f func(int) float64) (pass, fail float64) {
	r := rand.New(rand.NewPCG(seed, 11))
	np, nf := 0, 0
	xs := make([]float64, 0, d.Max)
	looks := looks(d)
	for range cells {
		xs = xs[:0]
		for _, n := range looks {
			for len(xs) < n {
				xs = append(xs, edge*(1+cv*r.NormFloat64()))
			}
			dec := seqLook(xs, seqBand, c(n), f(n), n == looks[len(looks)-1])
			if !dec.Stop {
				continue
			}
			switch dec.Verdict {
			case VerdictPass:
				np++
			case VerdictFail:
				nf++
			}
			break
		}
	}
	return float64(np) / float64(cells), float64(nf) / float64(cells)
}

// The group-sequential rule's stated error rate: with the true mean on an
// edge, each wrong verdict has probability at most SeqAlpha = 2.5 %, at
// every CV, for looks at every run (adaptive repeats) and at every second
// run (a budget of foldover block pairs), max 10 and 15.
func TestSimulatedSequentialGroupErrorRateAtEdge(t *testing.T) {
	for _, mx := range []int{10, 15} {
		for _, step := range []int{1, 2} {
			d := results.SeqDesign{Min: 3, Max: mx, Step: step}
			for _, cv := range []float64{0.05, 0.15, 0.25} {
				for _, edge := range []float64{8.5, 11.5} {
					p, f := gsEdge(uint64(1000*cv)+uint64(mx), gsCells/2, edge, cv, d, func(n int) float64 { return boundary(d, n) }, func(n int) float64 { return futility(d, n) })
					t.Logf("max %d, step %d, CV %.0f %%, edge %v: %.2f %% pass, %.2f %% fail", mx, step, 100*cv, edge, 100*p, 100*f)
					if a := allowance(SeqAlpha, gsCells/2); p > a || f > a {
						t.Errorf("max %d, step %d, CV %.0f %%, true mean on the edge %v: %.2f %% pass, %.2f %% fail, bound %.1f %% each",
							mx, step, 100*cv, edge, 100*p, 100*f, 100*SeqAlpha)
					}
				}
			}
		}
	}
}

// The case where the error-rate test must fail: looking after every run
// with the fixed-sample 97.5 % one-sided boundary at each look (no
// spending, no futility) makes far more than 2.5 % wrong verdicts on the
// edge, and the same check catches it.
func TestSequentialGroupNaiveLooksFail(t *testing.T) {
	d := results.SeqDesign{Min: 3, Max: 10, Step: 1}
	naive := func(n int) float64 { return results.TCritical95(n - 1) }
	none := func(int) float64 { return -1 }
	p, f := gsEdge(7, gsCells/2, 8.5, 0.15, d, naive, none)
	if a := allowance(SeqAlpha, gsCells/2); p <= a && f <= a {
		t.Errorf("naive repeated looks: %.2f %% pass, %.2f %% fail on the edge, within %.2f %%: the error test could not catch them", 100*p, 100*f, 100*a)
	}
}

// The calibration is what bounds the error: SeqNominal lies below the
// fixed-sample level and falls as looks are added.
func TestSeqNominalFallsWithLooks(t *testing.T) {
	a10, a15 := SeqNominal(results.SeqDesign{Min: 3, Max: 10, Step: 1}), SeqNominal(results.SeqDesign{Min: 3, Max: 15, Step: 1})
	if !(a10 < SeqAlpha && a15 < a10 && a15 > 0.001) {
		t.Errorf("SeqNominal(3,10) = %.4f, (3,15) = %.4f: want 0.001 < α′(15) < α′(10) < %.3f", a10, a15, SeqAlpha)
	}
}

// Wherever the rule stops, GroupSeqVerdict — what lab check applies to the
// runs recorded, including runs made after the stop (the rest of a
// budget's blocks) — says the same.
func TestSequentialGroupCheckAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	stops := map[Verdict]int{}
	for range 5000 {
		mu := 6 + 8*r.Float64()
		cv := 0.02 + 0.3*r.Float64()
		d := results.SeqDesign{Min: 3, Max: 12, Step: 1 + r.IntN(2)}
		var xs []float64
		var stop SeqDecision
		for _, n := range looks(d) {
			for len(xs) < n {
				xs = append(xs, mu*(1+cv*r.NormFloat64()))
			}
			if stop = GroupSeqLook(xs, seqBand, d, n == looks(d)[len(looks(d))-1]); stop.Stop {
				break
			}
		}
		stops[stop.Verdict]++
		for extra := r.IntN(4); extra > 0; extra-- {
			xs = append(xs, mu*(1+cv*r.NormFloat64()))
		}
		if got, _ := GroupSeqVerdict(xs, seqBand, d); got != stop {
			t.Fatalf("runs %v, design %+v: the stop said %s (%s), the replay %s (%s)", xs, d, stop.Verdict, stop.Reason, got.Verdict, got.Reason)
		}
	}
	for _, v := range []Verdict{VerdictPass, VerdictFail, VerdictInconclusive} {
		if stops[v] == 0 {
			t.Errorf("no cell stopped %s: %v", v, stops)
		}
	}
}

// gsScore simulates the design against the known truth (its own verdict).
func gsScore(cells int, mu, cv float64, right Verdict, d results.SeqDesign) seqScore {
	r := rand.New(rand.NewPCG(1, 23))
	var sc seqScore
	xs := make([]float64, 0, d.Max)
	looks := looks(d)
	for range cells {
		xs = xs[:0]
		var dec SeqDecision
		for _, n := range looks {
			for len(xs) < n {
				xs = append(xs, mu*(1+cv*r.NormFloat64()))
			}
			if dec = GroupSeqLook(xs, seqBand, d, n == looks[len(looks)-1]); dec.Stop {
				break
			}
		}
		sc.score(dec.Verdict, right, len(xs))
	}
	return sc
}

// gsTarget is issue 32's goal for one CV: the runs averaged over the three
// true means at most this many times a fixed repeat of 10.
func gsTarget(cv float64) float64 {
	if cv <= 0.05 {
		return 0.45
	}
	return 0.8
}

// gsRow is one CV of the comparison: the ratios per truth, their average,
// and the scores.
type gsRow struct {
	fixed, seq [3]seqScore
	ratio      [3]float64
	avg        float64
}

func gsCompare(cells int, cv float64, d results.SeqDesign) gsRow {
	var row gsRow
	for k, tr := range seqTruths {
		row.fixed[k], _ = simulateSeq(1, cells, tr.mean, cv, tr.right, 10, 10, 10)
		row.seq[k] = gsScore(cells, tr.mean, cv, tr.right, d)
		row.ratio[k] = row.seq[k].meanRuns() / row.fixed[k].meanRuns()
		row.avg += row.ratio[k] / 3
	}
	return row
}

// met says whether the row meets the goal: the average within the CV's
// target and no truth above 1.0 × the fixed 10.
func (r gsRow) met(cv float64) bool {
	return r.avg <= gsTarget(cv) && max(r.ratio[0], r.ratio[1], r.ratio[2]) <= 1
}

// The goal of issue 32 §5 holds with min 3, max 10: averaged over a true
// mean inside, on the edge and outside 10 ± 15 %, at most 0.45 × a fixed
// 10's runs at CV 5 % and 0.8 × at CV 15 % and 25 %, no truth above 1.0 ×
// (the edge errors are TestSimulatedSequentialGroupErrorRateAtEdge's).
func TestSimulatedSequentialGroupMeetsGoal(t *testing.T) {
	d := results.SeqDesign{Min: 3, Max: 10, Step: 1}
	for _, cv := range []float64{0.05, 0.15, 0.25} {
		if r := gsCompare(gsCells/4, cv, d); !r.met(cv) {
			t.Errorf("CV %.0f %%: runs %.2f / %.2f / %.2f × the fixed 10 (average %.2f, target %.2f)", 100*cv, r.ratio[0], r.ratio[1], r.ratio[2], r.avg, gsTarget(cv))
		}
	}
}

// BenchmarkSequentialVerdict prints, for the group-sequential rule (min 3,
// max 10 and 15, looks every run and every second run) at CV 5/15/25 %,
// the runs, right and wrong of the rule and of a fixed repeat = 10 for a
// true mean inside, on the edge and outside 10 ± 15 %, each wrong verdict
// on the edge per side, and per row whether issue 32's goal is MET.
// Seeded: the table is the same on every machine; the load average is
// printed only because make bench prints one beside every benchmark.
func BenchmarkSequentialVerdict(b *testing.B) {
	load, _ := os.ReadFile("/proc/loadavg")
	for range b.N {
		fmt.Printf("group-sequential band rule vs fixed repeat = 10; band 10 ± 15 %%; %d cells per row; load %s\n", gsCells, strings.TrimSpace(string(load)))
		fmt.Println("goal: runs averaged over inside/edge/outside ≤ 0.45× (CV 5 %) or ≤ 0.8× (CV 15, 25 %), no truth > 1.0×, edge errors ≤ 2.5 % per side")
		fmt.Printf("%-9s %-4s | %-20s | %-20s | %-20s | %-5s | %-13s | %s\n", "design", "CV", "inside runs right", "edge runs wrong", "outside runs right", "avg", "edge pass/fail", "goal")
		met := 0
		for _, d := range []results.SeqDesign{{Min: 3, Max: 10, Step: 1}, {Min: 3, Max: 15, Step: 1}, {Min: 4, Max: 10, Step: 2}, {Min: 4, Max: 16, Step: 2}} {
			for _, cv := range []float64{0.05, 0.15, 0.25} {
				r := gsCompare(gsCells, cv, d)
				p, f := gsEdge(9, gsCells, 8.5, cv, d, func(n int) float64 { return boundary(d, n) }, func(n int) float64 { return futility(d, n) })
				verdict := "NOT met"
				if r.met(cv) && p <= SeqAlpha && f <= SeqAlpha {
					verdict, met = "MET", met+1
				}
				cell := func(k int, rate float64, fixedRate float64) string {
					return fmt.Sprintf("%.2f× %4.1f/%4.1f%%", r.ratio[k], 100*rate, 100*fixedRate)
				}
				fmt.Printf("%d–%d/%-4d %3.0f%% | %-20s | %-20s | %-20s | %.2f× | %5.2f/%5.2f%% | %s\n", d.Min, d.Max, d.Step, 100*cv,
					cell(0, r.seq[0].rightRate(), r.fixed[0].rightRate()), cell(1, r.seq[1].wrongRate(), r.fixed[1].wrongRate()),
					cell(2, r.seq[2].rightRate(), r.fixed[2].rightRate()), r.avg, 100*p, 100*f, verdict)
			}
		}
		b.ReportMetric(float64(met), "rows-met/12")
	}
}

// SeqNominal is the nominal one-sided level α′ per look of the design's
// boundaries: the largest level at
// which, over seqPaths seeded standard normal paths, the share of paths
// whose t statistic crosses its boundary at some look is at most SeqAlpha
// less two binomial standard errors (so that the true rate is below
// SeqAlpha with about 97.7 % confidence, not only the simulated one).
// Computed once per design.
func SeqNominal(d results.SeqDesign) float64 {
	return bounds(d).nominal
}
