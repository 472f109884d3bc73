package results

import "math"

// Summary describes a sample of measurements. The standard deviation is the
// sample one (n-1); the 95 % confidence interval of the mean uses Student's
// t distribution (two-sided). An interval needs two values: with N < 2,
// Known is false and CI95Low = CI95High = Mean (Stdev 0). With N = 0 every
// field is zero. No field is ever NaN, so a Summary always encodes as JSON.
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
}

// Summarize computes the Summary of xs.
func Summarize(xs []float64) Summary {
	s := Summary{N: len(xs)}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = xs[0], xs[0]
	sum := 0.0
	for _, x := range xs {
		sum += x
		s.Min = math.Min(s.Min, x)
		s.Max = math.Max(s.Max, x)
	}
	s.Mean = sum / float64(s.N)
	s.CI95Low, s.CI95High = s.Mean, s.Mean
	if s.N < 2 {
		return s
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.Stdev = math.Sqrt(ss / float64(s.N-1))
	half := TCritical95(s.N-1) * s.Stdev / math.Sqrt(float64(s.N))
	s.CI95Low, s.CI95High = s.Mean-half, s.Mean+half
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
// distribution with df degrees of freedom (t such that P(|T| > t) = 0.05),
// found by bisection on the distribution function. df < 1 gives NaN.
func TCritical95(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	lo, hi := 0.0, 100.0 // t(1) = 12.706
	for range 200 {
		mid := (lo + hi) / 2
		if tTwoSidedP(mid, float64(df)) > 0.05 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tTwoSidedP is P(|T| > t) for Student's t with v degrees of freedom:
// I_{v/(v+t²)}(v/2, 1/2).
func tTwoSidedP(t, v float64) float64 {
	return regIncBeta(v/(v+t*t), v/2, 0.5)
}

// regIncBeta is the regularised incomplete beta function I_x(a, b),
// evaluated by its continued fraction (modified Lentz; Numerical Recipes
// §6.4), using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where it converges
// faster.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

func betaCF(x, a, b float64) float64 {
	const tiny = 1e-300
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/clamp(1-(a+b)*x/(a+1))
	h := d
	for m := 1.0; m <= 300; m++ {
		// even step
		num := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		h *= d * c
		// odd step
		num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return h
}
