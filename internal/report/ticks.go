package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks marks a linear axis at round numbers (1, 2, 2.5 or 5 times a
// power of ten) four to seven times, labelled with as few decimals as
// the step needs ("0", "50", … "250"; "0", "2.5", "5"). gonum's default
// marked a latency lab's throughput axis twice, "0.00" and "250.00"
// (issue 35). Half-steps get unlabelled minor ticks. Up to, when not 0,
// caps the labelled ticks (a CPU axis drawn to 110 % for the bars'
// labels is marked to 100 %).
type niceTicks struct{ upTo float64 }

// Ticks implements plot.Ticker.
func (n niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return plot.DefaultTicks{}.Ticks(lo, hi)
	}
	step := niceStep((hi - lo) / 6)
	dec := decimals(step)
	if n.upTo != 0 {
		hi = math.Min(hi, n.upTo)
	}
	var ticks []plot.Tick
	eps := step * 1e-9
	for k := math.Ceil((lo - eps) / (step / 2)); k*step/2 <= hi+eps; k++ {
		v := k * step / 2
		if math.Mod(k, 2) != 0 {
			ticks = append(ticks, plot.Tick{Value: v})
			continue
		}
		label := strconv.FormatFloat(v, 'f', dec, 64)
		if v > -eps && v < eps {
			v, label = 0, "0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

// niceStep is the least of 1, 2, 2.5 and 5 times a power of ten that is
// at least x.
func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// decimals is how many decimals print step exactly (2.5 → 1, 0.25 → 2).
func decimals(step float64) int {
	for d := 0; d < 12; d++ {
		s := step * math.Pow(10, float64(d))
		if math.Abs(s-math.Round(s)) < 1e-6*s {
			return d
		}
	}
	return 12
}
