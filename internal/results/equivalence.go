package results

import (
	"math"

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
	Published Summary `json:"published"`
	New       Summary `json:"new"`
	// Margin is the absolute margin: the relative margin × |published mean|.
	Margin float64 `json:"margin"`
	// Diff is new - published; DiffLow and DiffHigh bound its 95 %
	// interval (Welch), RelDiff is Diff / published mean (0 for a 0 mean).
	Diff     float64 `json:"diff"`
	DiffLow  float64 `json:"diff_low"`
	DiffHigh float64 `json:"diff_high"`
	RelDiff  float64 `json:"rel_diff"`
	DF       float64 `json:"df"`
	// PLower is the p-value of the test of H0: Diff ≤ -Margin, PUpper of
	// H0: Diff ≥ Margin; the cell is reproduced when both are < 2.5 %.
	PLower  float64      `json:"p_lower"`
	PUpper  float64      `json:"p_upper"`
	Verdict Reproduction `json:"verdict"`
	Note    string       `json:"note,omitempty"`
}

// TOSTAlpha is the level of each one-sided test of TOST: 2.5 %, so that
// "reproduced" is the 95 % interval inside the margin, the rule lab check
// applies to an expect block's band.
const TOSTAlpha = 0.025

// TOST tests whether the mean of new is within ± margin × |mean of
// published| of the published mean, by two one-sided Welch t-tests at
// TOSTAlpha each. With a true difference exactly on the margin the cell is
// reproduced with probability ≤ 2.5 %; with a true difference inside the
// margin it is not reproduced with probability ≤ 2.5 %. margin is a
// fraction (0.1 for 10 %).
func TOST(published, new Summary, margin float64) Equivalence {
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
	vx, vy := published.Stdev*published.Stdev/float64(published.N), new.Stdev*new.Stdev/float64(new.N)
	se := math.Sqrt(vx + vy)
	if se == 0 {
		e.Note = "no spread on either side"
		if math.Abs(e.Diff) < e.Margin {
			e.Verdict, e.PLower, e.PUpper = Reproduced, 0, 0
		} else {
			e.Verdict = NotReproduced
		}
		return e
	}
	e.DF = welchDF(vx, vy, published.N, new.N)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.DF}
	e.PLower = t.Survival((e.Diff + e.Margin) / se)
	e.PUpper = t.CDF((e.Diff - e.Margin) / se)
	half := tCritical(2*TOSTAlpha, e.DF) * se
	e.DiffLow, e.DiffHigh = e.Diff-half, e.Diff+half
	switch {
	case e.PLower < TOSTAlpha && e.PUpper < TOSTAlpha:
		e.Verdict = Reproduced
	case e.DiffLow > e.Margin || e.DiffHigh < -e.Margin:
		e.Verdict = NotReproduced
	default:
		e.Verdict = Inconclusive
	}
	return e
}
