package verdicts

import (
	"fmt"
	"math"

	"github.com/lab-bench/lab/internal/results"
	"gonum.org/v1/gonum/mathext"
)

// checkCount checks a per-run count (retransmits) against a maximum mean m,
// with a test made for counts rather than a t-interval (which, bounded
// below by 0, can never refute m = 0):
//
//   - m = 0: fail as soon as one run counted an event (a mean of 0 allows
//     none, so a false fail is impossible); pass when ≥ 2 runs counted
//     none. (A pass cannot bound a small true mean μ > 0: n runs all count
//     0 with probability e^(−nμ) for Poisson counts — 2.5 % at μ = 3.7/n.)
//   - m > 0: the exact Poisson 95 % interval of the mean (CountBounds) over
//     the total count of all runs: fail when its lower bound is above m,
//     pass when its upper bound is ≤ m and no run counted more than m
//     (bursty counts hide their dispersion in a few runs; a run above m
//     shows one), inconclusive otherwise. For
//     Poisson counts with the true mean exactly m, each wrong verdict has
//     probability ≤ 2.5 %; bursty counts widen the interval by their
//     measured dispersion (quasi-Poisson), which keeps a false fail near
//     2.5 % (simulated in simulation_test.go: see README, Verdicts).
//   - one run with m > 0 is inconclusive (no dispersion can be measured).
func checkCount(e Expectation, g results.CellGroup) Check {
	s := g.Retransmits
	c := newCheck(e, g, "retransmits", s)
	c.Measured = summaryText(s, 0)
	cs := g.RetransmitCounts
	if cs.Runs == 0 {
		cs = results.CountsFromSummary(s)
	}
	limit := e.Retransmits.Value
	if cs.Runs > 0 {
		c.Value = cs.Total / float64(cs.Runs)
	}
	c.Low, c.High = c.Value, c.Value
	switch {
	case g.N == 0 || cs.Runs == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no successful run"
	case limit <= 0 && cs.Positive == cs.Runs:
		c.Verdict = VerdictFail
		c.Reason = fmt.Sprintf("every one of %d runs exceeded the maximum (fewest: %s)", cs.Runs, num(s.Min))
	case limit <= 0 && cs.Total > 0:
		c.Verdict = VerdictFail
		c.Reason = fmt.Sprintf("%d of %d runs counted retransmits (%s in all) where the maximum is 0: one event refutes a mean of 0",
			max(cs.Positive, 1), cs.Runs, num(cs.Total))
	case cs.Runs < 2:
		c.Verdict, c.Reason = VerdictInconclusive, "1 run: no confidence interval (set repeat ≥ 2)"
	case limit <= 0:
		c.Verdict, c.Reason = VerdictPass, fmt.Sprintf("none of %d runs counted a single one", cs.Runs)
	default:
		c = judgeCount(c, cs, limit)
	}
	return incomplete(c, g)
}

// judgeCount is checkCount's rule for a maximum m > 0 over ≥ 2 runs.
func judgeCount(c Check, cs results.CountSample, m float64) Check {
	lo, hi := CountBounds(cs)
	c.Low, c.High = lo, hi
	ci := fmt.Sprintf("%s in %d runs: exact Poisson 95%% CI of the mean [%s, %s]", num(cs.Total), cs.Runs, num(lo), num(hi))
	if phi := cs.Dispersion(); phi > 1 {
		ci += fmt.Sprintf(" (widened for dispersion ×%s)", num(phi))
	}
	switch {
	case lo > m:
		c.Verdict, c.Reason = VerdictFail, fmt.Sprintf("%s entirely above the maximum %s", ci, num(m))
	case hi <= m && cs.Max <= m:
		c.Verdict, c.Reason = VerdictPass, fmt.Sprintf("%s within the maximum %s, and so is every run", ci, num(m))
	case hi <= m:
		c.Verdict = VerdictInconclusive
		c.Reason = fmt.Sprintf("%s within the maximum %s, but a run counted %s: bursts this large can hide a higher mean", ci, num(m), num(cs.Max))
	default:
		c.Verdict, c.Reason = VerdictInconclusive, fmt.Sprintf("%s straddles the maximum %s", ci, num(m))
	}
	return c
}

// CountBounds is the two-sided 95 % interval of the mean count per run:
// the exact (Garwood) Poisson interval of the total k over n runs, from
// the chi-square–Poisson relation
//
//	low = χ²(0.025; 2k) / 2n,  high = χ²(0.975; 2k+2) / 2n,
//
// widened for over-dispersion (quasi-Poisson): with dispersion φ > 1 the
// total is read as k/φ events over n/φ runs. Each side errs with
// probability ≤ 2.5 % for Poisson counts (the interval is exact, so
// conservative for a discrete count).
func CountBounds(c results.CountSample) (lo, hi float64) {
	if c.Runs == 0 {
		return 0, math.Inf(1)
	}
	phi := c.Dispersion()
	k, n := c.Total/phi, float64(c.Runs)/phi
	a := (1 - Level) / 2
	if k > 0 {
		lo = mathext.GammaIncRegInv(k, a) / n
	}
	hi = mathext.GammaIncRegInv(k+1, 1-a) / n
	return lo, hi
}
