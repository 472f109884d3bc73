package changepoint

import (
	"math/rand/v2"
	"testing"
)

// simulate is the share of reps seeded series of n values — normal noise
// of relative standard deviation cv around 100, shifted by shift (−0.1:
// 10 % lower) from index at on — in which Detect finds a change point
// (any, for shift 0; one within two values of at otherwise).
func simulate(seed uint64, reps, n, at int, cv, shift float64) float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	hits := 0
	for range reps {
		x := make([]float64, n)
		for i := range x {
			mu := 100.0
			if shift != 0 && i >= at {
				mu *= 1 + shift
			}
			x[i] = mu + rng.NormFloat64()*100*cv
		}
		for _, c := range Detect(x, Options{}) {
			if shift == 0 || c.Index >= at-2 && c.Index <= at+2 {
				hits++
				break
			}
		}
	}
	return float64(hits) / float64(reps)
}

// TestSimulatedRates states, on seeded simulated series of 30 applies
// (the per-apply value's noise: CV 5, 10 and 25 %; an apply's value is
// the mean of its repeats, so 5 repeats at a run-to-run CV of 25 % give
// about 11 %), Detect's false-alarm rate on A/A series (no shift) and its
// power to find a 10 % and a 20 % shift 20 applies in (10 after it;
// found: a change point within two applies of it). It fails when the
// false-alarm rate exceeds 5 % or a 20 % shift at CV 10 % is found less
// than 80 % of the time.
func TestSimulatedRates(t *testing.T) {
	const reps, n, at = 1000, 30, 20
	for _, cv := range []float64{0.05, 0.10, 0.25} {
		fa := simulate(1, reps, n, at, cv, 0)
		p10 := simulate(2, reps, n, at, cv, -0.10)
		p20 := simulate(3, reps, n, at, cv, -0.20)
		t.Logf("CV %2.0f %%: A/A false alarms %.1f %%; power: 10 %% shift %.1f %%, 20 %% shift %.1f %% (%d series of %d applies, shift at %d)",
			100*cv, 100*fa, 100*p10, 100*p20, reps, n, at)
		if fa > 0.05 {
			t.Errorf("CV %.0f %%: false-alarm rate %.1f %% > 5 %%", 100*cv, 100*fa)
		}
		if cv == 0.10 && p20 < 0.80 {
			t.Errorf("CV 10 %%: power at a 20 %% shift %.1f %% < 80 %%", 100*p20)
		}
	}
}
