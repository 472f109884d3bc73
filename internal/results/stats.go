package results

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Summary describes a sample of measurements. The standard deviation is the
// sample one (n-1); the 95 % confidence interval of the mean uses Student's
// t distribution (two-sided). An interval needs two values: with N < 2,
// Known is false and CI95Low = CI95High = Mean (Stdev 0). With N = 0 every
// field is zero. No field is ever NaN or infinite, so a Summary always
// encodes as JSON (see Overflow).
type Summary struct {
	N        int     `json:"n"`
	Mean     float64 `json:"mean"`
	Stdev    float64 `json:"stdev"`
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	CI95Low  float64 `json:"ci95_low"`
	CI95High float64 `json:"ci95_high"`
	// Known says whether the confidence interval could be computed (N ≥ 2).
	Known bool `json:"ci_known"`
	// Overflow says the values are too large for float64 arithmetic: the
	// spread (and so the interval) could not be computed, Known is false
	// (Summarize).
	Overflow bool `json:"overflow,omitempty"`
}

// Summarize computes the Summary of xs. Values so large that their sum or
// squared deviations overflow float64 are summarised again scaled by the
// largest magnitude; when the spread still overflows (Overflow), the
// summary keeps what is finite and has no interval (Known false), so that
// it always encodes as JSON and a verdict can say what happened.
func Summarize(xs []float64) Summary {
	s := summarize(xs, 1)
	if s.finite() {
		return s
	}
	scale := 0.0
	for _, x := range xs {
		scale = math.Max(scale, math.Abs(x))
	}
	if scale == 0 || math.IsInf(scale, 0) || math.IsNaN(scale) {
		scale = 1
	}
	s = summarize(xs, scale)
	if s.finite() {
		return s
	}
	s.Overflow = true
	if !isFinite(s.Mean) {
		s.Mean = math.Copysign(math.MaxFloat64, s.Mean)
	}
	s.Stdev, s.CI95Low, s.CI95High, s.Known = 0, s.Mean, s.Mean, false
	return s
}

// isFinite reports whether v is neither infinite nor NaN.
func isFinite(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }

// finite reports whether every float field of s is finite.
func (s Summary) finite() bool {
	return isFinite(s.Mean) && isFinite(s.Stdev) && isFinite(s.Min) && isFinite(s.Max) && isFinite(s.CI95Low) && isFinite(s.CI95High)
}

// summarize is Summarize of xs / scale, scaled back.
func summarize(xs []float64, scale float64) Summary {
	s := Summary{N: len(xs)}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = xs[0], xs[0]
	sum := 0.0
	for _, x := range xs {
		sum += x / scale
		s.Min = math.Min(s.Min, x)
		s.Max = math.Max(s.Max, x)
	}
	mean := sum / float64(s.N)
	s.Mean = mean * scale
	s.CI95Low, s.CI95High = s.Mean, s.Mean
	if s.N < 2 {
		return s
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x/scale - mean) * (x/scale - mean)
	}
	sd := math.Sqrt(ss / float64(s.N-1))
	half := TCritical95(s.N-1) * sd / math.Sqrt(float64(s.N))
	s.Stdev = sd * scale
	s.CI95Low, s.CI95High = (mean-half)*scale, (mean+half)*scale
	s.Known = true
	return s
}

// HalfWidth is half the width of the confidence interval (0 when unknown).
func (s Summary) HalfWidth() float64 { return (s.CI95High - s.CI95Low) / 2 }

// Scale returns the summary of the sample multiplied by f > 0 (units).
func (s Summary) Scale(f float64) Summary {
	s.Mean *= f
	s.Stdev *= f
	s.Min *= f
	s.Max *= f
	s.CI95Low *= f
	s.CI95High *= f
	return s
}

// TCritical95 is the two-sided 95 % critical value of Student's t
// distribution with df degrees of freedom (t such that P(|T| > t) = 0.05).
// df < 1 gives NaN.
func TCritical95(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df < len(t95Table()) {
		return t95Table()[df]
	}
	return TCritical(0.05, float64(df))
}

// t95Table holds TCritical95 for small degrees of freedom (index = df),
// computed once: gonum's quantile inverts the incomplete beta function
// iteratively, and every summary needs one.
var t95Table = sync.OnceValue(func() []float64 {
	t := make([]float64, 257)
	t[0] = math.NaN()
	for df := 1; df < len(t); df++ {
		t[df] = TCritical(0.05, float64(df))
	}
	return t
})

// TCritical is the two-sided critical value of Student's t with df > 0
// (fractional) degrees of freedom at level alpha: the 1 - alpha/2 quantile.
func TCritical(alpha, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - alpha/2)
}

// NoisyRatio is the confidence-interval half-width, relative to the mean,
// above which a cell is flagged noisy in reports, checks and comparisons.
const NoisyRatio = 0.10

// Noisy reports whether the 95 % CI half-width exceeds NoisyRatio of the
// mean (never for fewer than two values or a mean ≤ 0).
func (s Summary) Noisy() bool {
	return s.Known && s.Mean > 0 && s.HalfWidth() > NoisyRatio*s.Mean
}

// Clamp limits the mean, extremes and confidence bounds to [lo, hi], the
// values the quantity can physically take (throughput and counts ≥ 0, CPU
// busy share 0–100 %): a t-interval of a small, skewed sample can reach
// beyond them, and the true mean cannot. Stdev is left as computed.
func (s Summary) Clamp(lo, hi float64) Summary {
	c := func(v float64) float64 { return math.Max(lo, math.Min(hi, v)) }
	s.Mean, s.Min, s.Max = c(s.Mean), c(s.Min), c(s.Max)
	s.CI95Low, s.CI95High = c(s.CI95Low), c(s.CI95High)
	return s
}
