package changepoint

import (
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// Stats compares the two sides of a change point.
type Stats struct {
	// NBefore and NAfter are the sides' sizes; MeanBefore, MeanAfter,
	// SDBefore and SDAfter their means and sample standard deviations.
	NBefore    int     `json:"n_before"`
	NAfter     int     `json:"n_after"`
	MeanBefore float64 `json:"mean_before"`
	MeanAfter  float64 `json:"mean_after"`
	SDBefore   float64 `json:"sd_before"`
	SDAfter    float64 `json:"sd_after"`
	// P is Student's pooled two-sample t-test's two-sided p-value.
	P float64 `json:"p"`
	// Diff is MeanAfter − MeanBefore, and DiffLow, DiffHigh its 95 %
	// confidence interval (pooled variance, NBefore+NAfter−2 degrees of
	// freedom).
	Diff     float64 `json:"diff"`
	DiffLow  float64 `json:"diff_low"`
	DiffHigh float64 `json:"diff_high"`
}

// Relative is Diff over MeanBefore with its interval likewise scaled (the
// mean before's own uncertainty is not carried); ok is false when the
// mean before is 0.
func (s Stats) Relative() (rel, low, high float64, ok bool) {
	if s.MeanBefore == 0 {
		return 0, 0, 0, false
	}
	m := math.Abs(s.MeanBefore)
	return s.Diff / m, s.DiffLow / m, s.DiffHigh / m, true
}

// Compare computes the Stats of before and after (each at least one
// value; with two values in all, P is 1).
func Compare(before, after []float64) Stats {
	m1, v1 := meanVar(before)
	m2, v2 := meanVar(after)
	s := Stats{NBefore: len(before), NAfter: len(after), MeanBefore: m1, MeanAfter: m2,
		SDBefore: math.Sqrt(v1), SDAfter: math.Sqrt(v2), Diff: m2 - m1, P: 1}
	s.DiffLow, s.DiffHigh = s.Diff, s.Diff
	df := float64(len(before) + len(after) - 2)
	if df < 1 {
		return s
	}
	pooled := (float64(len(before)-1)*v1 + float64(len(after)-1)*v2) / df
	se := math.Sqrt(pooled * (1/float64(len(before)) + 1/float64(len(after))))
	if se == 0 {
		if s.Diff != 0 {
			s.P = 0
		}
		return s
	}
	t := s.Diff / se
	s.P = mathext.RegIncBeta(df/2, 0.5, df/(df+t*t))
	half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975) * se
	s.DiffLow, s.DiffHigh = s.Diff-half, s.Diff+half
	return s
}

// meanVar is x's mean and sample variance (0 for one value).
func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}
