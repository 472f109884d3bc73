package verdicts

import (
	"math"

	"github.com/lab-bench/lab/internal/results"
	"gonum.org/v1/gonum/stat/distuv"
)

// Reproduction is the verdict on one cell of a published run measured
// again.
type Reproduction string

// Reproduction verdicts.
const (
	// Reproduced: the 95 % interval of the difference of the means lies
	// within ± the margin (both one-sided tests reject at 2.5 %).
	Reproduced Reproduction = "reproduced"
	// NotReproduced: the 95 % interval lies entirely outside ± the margin.
	NotReproduced Reproduction = "not reproduced"
	// Inconclusive: the interval overlaps an edge of the margin, or a side
	// has fewer than two runs.
	Inconclusive Reproduction = "inconclusive"
	// EnvNotComparable: the runner's state differed between the published
	// run and the new one beyond what Comparable allows ("not comparable:
	// CPU pressure 94% vs 20%"), so the cell is not judged; it counts as
	// inconclusive in the overall verdict.
	EnvNotComparable Reproduction = "not comparable"
)

// Equivalence is the two one-sided tests (TOST) of a new sample against a
// published one: is the difference of their means within ± Margin?
type Equivalence struct {
	Published results.Summary `json:"published"`
	New       results.Summary `json:"new"`
	// Margin is the absolute margin: the relative margin × |published mean|.
	Margin float64 `json:"margin"`
	// Diff is new - published; DiffLow and DiffHigh bound its 95 %
	// interval (TOST), RelDiff is Diff / published mean (0 for a 0 mean).
	Diff     float64 `json:"diff"`
	DiffLow  float64 `json:"diff_low"`
	DiffHigh float64 `json:"diff_high"`
	RelDiff  float64 `json:"rel_diff"`
	// DF is the smaller of the two tests' degrees of freedom (whole).
	DF float64 `json:"df"`
	// PLower is the p-value of the test of H0: Diff ≤ -Margin, PUpper of
	// H0: Diff ≥ Margin; the cell is reproduced when both are < 2.5 %.
	PLower float64 `json:"p_lower"`
	PUpper float64 `json:"p_upper"`
	// MDE is the smallest relative difference from the published mean
	// (a fraction) that the cell would show as not reproduced with 80 %
	// power (cellMDE).
	MDE     float64      `json:"mde"`
	Verdict Reproduction `json:"verdict"`
	Note    string       `json:"note,omitempty"`
}

// TOSTAlpha is the level of each one-sided test of TOST: 2.5 %, so that
// "reproduced" is the 95 % interval inside the margin, the rule lab check
// applies to an expect block's band.
const TOSTAlpha = 0.025

// TOST tests whether the mean of new is within ± margin × the published
// mean (margin a fraction: 0.1 for 10 %), by two one-sided Welch t-tests
// at TOSTAlpha each of the linear combinations Fieller's theorem tests,
//
//	new − (1 + margin)·published < 0   and   new − (1 − margin)·published > 0,
//
// whose variances, v_new + (1 ± margin)²·v_published, hold the published
// mean's own variance as it scales the band; the Welch–Satterthwaite
// degrees of freedom of each are rounded down. With a true mean exactly on
// an edge the cell is reproduced with probability ≤ 2.5 % (simulated
// 0.3–2.4 % over noisy and unbalanced samples, margins 10 and 20 %:
// TestSimulatedEquivalenceTypeI; the rule before, which tested new −
// published against margin × the published mean as if that band were
// known, reproduced up to 4.4 % there); with a true mean inside the margin
// it is not reproduced with probability ≤ 2.5 % a side. DiffLow and
// DiffHigh are published × (the 95 % Fieller interval of new / published
// − 1) — the interval the two tests read — or Welch's interval of the
// difference when Fieller's is unbounded.
func TOST(published, new results.Summary, margin float64) Equivalence {
	e := Equivalence{Published: published, New: new, Margin: math.Abs(margin * published.Mean), PLower: 1, PUpper: 1}
	e.Diff = new.Mean - published.Mean
	e.DiffLow, e.DiffHigh = e.Diff, e.Diff
	if published.Mean != 0 {
		e.RelDiff = e.Diff / published.Mean
	}
	if published.N < 2 || new.N < 2 {
		e.Verdict, e.Note = Inconclusive, "fewer than 2 runs on a side"
		return e
	}
	vp, vn := published.Stdev*published.Stdev/float64(published.N), new.Stdev*new.Stdev/float64(new.N)
	if vp+vn == 0 {
		e.Note = "no spread on either side"
		if math.Abs(e.Diff) < e.Margin {
			e.Verdict, e.PLower, e.PUpper = Reproduced, 0, 0
		} else {
			e.Verdict = NotReproduced
		}
		return e
	}
	up, lo := 1+margin, 1-margin
	// t statistics of new − k·published, their whole degrees of freedom.
	stat := func(k float64) (float64, float64) {
		se := math.Sqrt(vn + k*k*vp)
		return (new.Mean - k*published.Mean) / se, tostDF(vn, k*k*vp, new.N, published.N)
	}
	tUp, dfUp := stat(up)
	tLo, dfLo := stat(lo)
	e.DF = math.Min(dfUp, dfLo)
	e.PUpper = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dfUp}.CDF(tUp)
	e.PLower = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dfLo}.Survival(tLo)
	if rlo, rhi, ok := Fieller(new, published, 1-Level); ok && published.Mean != 0 {
		e.DiffLow, e.DiffHigh = published.Mean*(rlo-1), published.Mean*(rhi-1)
	} else {
		half := results.TCritical(2*TOSTAlpha, welchDF(vp, vn, published.N, new.N)) * math.Sqrt(vp+vn)
		e.DiffLow, e.DiffHigh = e.Diff-half, e.Diff+half
	}
	seRel := 0.0
	if published.Mean != 0 {
		seRel = math.Sqrt(vn+up*up*vp) / math.Abs(published.Mean)
	}
	e.MDE = cellMDE(seRel, int(dfUp), margin)
	switch {
	case e.PLower < TOSTAlpha && e.PUpper < TOSTAlpha:
		e.Verdict = Reproduced
	case tUp > results.TCritical95(int(dfUp)) || tLo < -results.TCritical95(int(dfLo)):
		e.Verdict = NotReproduced
	default:
		e.Verdict = Inconclusive
	}
	return e
}

// cellMDE is the minimum detectable effect of a cell's equivalence test: the
// smallest relative difference from the published mean that is not
// reproduced with 80 % power, margin + (t₀.₉₇₅ + t₀.₈₀)·seRel, for a relative
// standard error seRel at df degrees of freedom.
func cellMDE(seRel float64, df int, margin float64) float64 {
	if seRel == 0 || df < 1 {
		return margin
	}
	return margin + (results.TCritical95(df)+tPower(df))*seRel
}

// tostDF is the degrees of freedom of a TOST statistic: Welch–Satterthwaite's
// for the variance terms wx and wy of samples of nx and ny values, rounded
// down; with fewer than 5 values on a side, min(nx, ny) − 1 (Hsu), because
// the Satterthwaite estimate from 2–3 degrees of freedom a side is itself
// so noisy that its rounded-down value was liberal (n = 10 and 3 at CV 5 %,
// a true mean on the lower edge of ±10 %: reproduced 3.0 %, not ≤ 2.5 %).
func tostDF(wx, wy float64, nx, ny int) float64 {
	if min(nx, ny) < 5 {
		return float64(min(nx, ny) - 1)
	}
	return math.Floor(welchDF(wx, wy, nx, ny))
}
