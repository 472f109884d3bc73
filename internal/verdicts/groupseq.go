package verdicts

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/lab-bench/lab/internal/results"
)

// The group-sequential band rule: adaptive repeats and budgets that stop
// on the verdict, and the verdict `lab check` gives their runs.
//
// A cell's runs are looked at after n = min, min+step, … runs up to max
// (step is the plan's stopping unit: 1 for adaptive repeats, the runs per
// block or per pair of blocks for a budget). For each edge e of the band
// the look computes Student's t of the distance of the mean inside it,
// T_e = (mean − lo)/se or (hi − mean)/se, se = s/√n, and
//
//   - fails when some T_e ≤ −c_n (the mean is beyond an edge);
//   - passes when every T_e ≥ c_n;
//   - stops inconclusive (futile) when some |T_e| ≤ f_n — the mean sits
//     too near an edge for more runs to decide — or at the last look.
//
// c_n is the one-sided Student t quantile at a nominal level α′ that is
// the same at every look (Pocock-type boundaries on the t scale), with
// n − 1 degrees of freedom; α′ is calibrated (SeqNominal) so that with the
// true mean exactly on an edge the probability that T_e crosses c_n at any
// look from min to max is SeqAlpha. That probability depends on the runs
// only through (x − edge)/σ — Student's t is pivotal — so one seeded
// simulation of normal runs gives it for every spread, band and mean, and
// it bounds each wrong verdict on an edge: a false pass needs T_e ≥ c_n
// at some look, a false fail T_e ≤ −c_n (symmetric). Stopping earlier for
// any reason — a futile stop, a budget spent, fewer looks (every other
// block of a foldover) — only removes looks, so the bound holds for every
// truncation and subset of the looks; f_n never raises it (non-binding
// futility). With normal runs, then: each wrong verdict on an edge ≤ 2.5 %.
//
// f_n = SeqFutility × c_n × ((n − min)/(max − min))^½ grows from 0 at the
// first look to SeqFutility·c at the last; it trades power inside and
// outside the band for fewer runs on the edge, never error.
//
// The verdict is the first look's that decides: `lab check` replays the
// looks on the recorded runs in their order, so it says what the stop
// said, whatever runs came after it.
const (
	SeqAlpha    = 0.025
	SeqFutility = 0.5
)

// looks lists the run counts the design looks at.
func looks(d results.SeqDesign) []int {
	step := max(d.Step, 1)
	var ns []int
	for n := d.Min; n <= d.Max; n += step {
		ns = append(ns, n)
	}
	return ns
}

// seqPaths is the number of null paths SeqNominal simulates.
const seqPaths = 40000

// boundaries is a design's calibrated level and its c_n by n.
type boundaries struct {
	nominal float64
	c       []float64
}

var boundaryCache sync.Map // SeqDesign → *boundaries

// bounds returns the design's calibrated boundaries, computed once per
// design.
func bounds(d results.SeqDesign) *boundaries {
	d.Step = max(d.Step, 1)
	if b, ok := boundaryCache.Load(d); ok {
		return b.(*boundaries)
	}
	b := &boundaries{nominal: calibrate(d), c: make([]float64, d.Max+1)}
	for n := range b.c {
		b.c[n] = math.NaN()
		if n >= 2 {
			b.c[n] = results.TCritical(2*b.nominal, float64(n-1))
		}
	}
	boundaryCache.Store(d, b)
	return b
}

// calibrate finds SeqNominal by bisection on α′ over fixed null paths
// looked at where the design looks.
func calibrate(d results.SeqDesign) float64 {
	ns := looks(d)
	if d.Min < 2 || len(ns) == 0 {
		return math.NaN()
	}
	looks := len(ns)
	ts := make([]float64, seqPaths*looks) // t statistic of path p at look k
	r := rand.New(rand.NewPCG(32, uint64(d.Min)<<32|uint64(d.Max)<<16|uint64(d.Step)))
	for p := 0; p < seqPaths; p++ {
		sum, sq, k := 0.0, 0.0, 0
		for n := 1; n <= ns[looks-1]; n++ {
			x := r.NormFloat64()
			sum += x
			sq += x * x
			if n == ns[k] {
				m := sum / float64(n)
				v := (sq - float64(n)*m*m) / float64(n-1)
				ts[p*looks+k] = m / math.Sqrt(v/float64(n))
				k++
			}
		}
	}
	target := SeqAlpha - 2*math.Sqrt(SeqAlpha*(1-SeqAlpha)/seqPaths)
	crossRate := func(a float64) float64 {
		c := make([]float64, looks)
		for k := range c {
			c[k] = results.TCritical(2*a, float64(ns[k]-1))
		}
		hit := 0
		for p := 0; p < seqPaths; p++ {
			for k, ck := range c {
				if ts[p*looks+k] >= ck {
					hit++
					break
				}
			}
		}
		return float64(hit) / seqPaths
	}
	lo, hi := 1e-6, SeqAlpha
	for range 40 {
		mid := math.Sqrt(lo * hi)
		if crossRate(mid) <= target {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// boundary is c_n for the design at n runs.
func boundary(d results.SeqDesign, n int) float64 {
	b := bounds(d)
	if n < len(b.c) {
		return b.c[n]
	}
	return results.TCritical(2*b.nominal, float64(n-1))
}

// futility is f_n for the design at n runs.
func futility(d results.SeqDesign, n int) float64 {
	if d.Max == d.Min {
		return 0
	}
	return SeqFutility * boundary(d, n) * math.Sqrt(float64(n-d.Min)/float64(d.Max-d.Min))
}

// GroupSeqLook applies one look of the rule to the first n runs xs (in the
// target's unit). last says no look follows (max reached, or the runs
// stop for another reason): undecided then stops inconclusive.
func GroupSeqLook(xs []float64, t Target, d results.SeqDesign, last bool) SeqDecision {
	if len(xs) < 2 {
		return SeqDecision{}
	}
	return seqLook(xs, t, boundary(d, len(xs)), futility(d, len(xs)), last)
}

// seqLook is a look with boundary c and futility bound f.
func seqLook(xs []float64, t Target, c, f float64, last bool) SeqDecision {
	n := len(xs)
	s := results.Summarize(xs)
	lo, hi := t.Value*(1-t.Tolerance), t.Value*(1+t.Tolerance)
	se := s.Stdev / math.Sqrt(float64(n))
	if se == 0 {
		se = math.SmallestNonzeroFloat64
	}
	tl, th := (s.Mean-lo)/se, (hi-s.Mean)/se
	band := fmt.Sprintf("[%s, %s]", num(lo), num(hi))
	by := func(t float64) string {
		if s.Stdev == 0 {
			return "with no spread"
		}
		return fmt.Sprintf("%.1f standard errors (boundary %.2f)", t, c)
	}
	switch {
	case tl <= -c || th <= -c:
		return SeqDecision{true, VerdictFail, fmt.Sprintf("fail after %d runs: mean %s %s outside %s", n, num(s.Mean), by(math.Max(-tl, -th)), band)}
	case tl >= c && th >= c:
		return SeqDecision{true, VerdictPass, fmt.Sprintf("pass after %d runs: mean %s %s inside %s", n, num(s.Mean), by(math.Min(tl, th)), band)}
	case math.Min(math.Abs(tl), math.Abs(th)) <= f:
		return SeqDecision{true, VerdictInconclusive, fmt.Sprintf("futile after %d runs: mean %s is within %.2f standard errors of an edge of %s",
			n, num(s.Mean), f, band)}
	case last:
		return SeqDecision{true, VerdictInconclusive, fmt.Sprintf("undecided at the last look (%d runs): mean %s is not %.2f standard errors from both edges of %s",
			n, num(s.Mean), c, band)}
	}
	return SeqDecision{}
}

// GroupSeqFirst replays the design's looks on the runs xs in the order
// they ran and returns the first look's decision that stops, and the runs
// it stopped at; ok is false when no look made so far stops (the runs may
// go on).
func GroupSeqFirst(xs []float64, t Target, d results.SeqDesign) (dec SeqDecision, n int, ok bool) {
	for _, n := range looks(d) {
		if n > len(xs) {
			break
		}
		if dec := GroupSeqLook(xs[:n], t, d, false); dec.Stop {
			return dec, n, true
		}
	}
	return SeqDecision{}, 0, false
}

// GroupSeqVerdict replays the design's looks on the runs xs in the order
// they ran and returns the first look's decision that stops, and the runs
// it stopped at; with no stop (fewer runs than the first look, or runs
// that ended early) the last look made is judged as the last.
func GroupSeqVerdict(xs []float64, t Target, d results.SeqDesign) (SeqDecision, int) {
	looks := looks(d)
	made := 0
	for _, n := range looks {
		if n > len(xs) {
			break
		}
		made = n
	}
	for _, n := range looks {
		if n > made {
			break
		}
		if dec := GroupSeqLook(xs[:n], t, d, n == made); dec.Stop {
			return dec, n
		}
	}
	return SeqDecision{Verdict: VerdictInconclusive, Reason: fmt.Sprintf("%d runs: fewer than the first look's %d", len(xs), d.Min)}, len(xs)
}
