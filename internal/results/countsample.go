package results

import "math"

// CountSample is a per-run count (retransmits) over a cell's runs, kept
// as totals so that pooling applies (PoolRuns) loses nothing to rounding:
// verdicts' count rule reads these, not the mean.
type CountSample struct {
	// Runs is the number of runs counted, Total the sum of their counts
	// and SumSq the sum of their squares (for the dispersion).
	Runs  int     `json:"runs"`
	Total float64 `json:"total"`
	SumSq float64 `json:"sum_sq"`
	// Positive is the number of runs that counted at least one event,
	// Max the largest count of a run.
	Positive int     `json:"positive"`
	Max      float64 `json:"max"`
}

// Add counts one run's count x.
func (c *CountSample) Add(x float64) {
	c.Runs++
	c.Total += x
	c.SumSq += x * x
	if x > 0 {
		c.Positive++
	}
	c.Max = math.Max(c.Max, x)
}

// merge adds the runs of o.
func (c *CountSample) merge(o CountSample) {
	c.Runs += o.Runs
	c.Total += o.Total
	c.SumSq += o.SumSq
	c.Positive += o.Positive
	c.Max = math.Max(c.Max, o.Max)
}

// CountsFromSummary rebuilds the totals of a summary of whole counts (a
// group built by hand, without CountSample): Positive is unknown there,
// so it is taken as every run when the smallest count is above 0 and as
// one run when only the largest is.
func CountsFromSummary(s Summary) CountSample {
	n := float64(s.N)
	c := CountSample{Runs: s.N, Total: math.Round(s.Mean * n), SumSq: float64(s.N-1)*s.Stdev*s.Stdev + n*s.Mean*s.Mean, Max: s.Max}
	switch {
	case s.Min > 0:
		c.Positive = s.N
	case s.Max > 0:
		c.Positive = 1
	}
	return c
}

// Dispersion is the factor by which the count interval is widened: the
// counts' variance-to-mean ratio (a Poisson count has 1, bursty
// retransmits more), times (t/z)² — the t quantile at n−1 degrees of
// freedom over the normal one, for the ratio being estimated from n runs,
// as a t-interval widens a z-interval — and at least 1. It is 1 with
// fewer than two runs or no event.
func (c CountSample) Dispersion() float64 {
	if c.Runs < 2 || c.Total <= 0 {
		return 1
	}
	n := float64(c.Runs)
	mean := c.Total / n
	v := (c.SumSq - c.Total*c.Total/n) / (n - 1)
	tz := TCritical95(c.Runs-1) / 1.959963984540054
	return math.Max(1, v/mean*tz*tz)
}
