package history

import (
	"math/rand/v2"
	"testing"

	"github.com/lab-bench/lab/internal/changepoint"
)

// gate is -fail-on change on values: the newest lies after a new change.
func gate(values []float64) bool {
	s := []Series{{Applies: make([]Apply, len(values))}}
	for i, v := range values {
		s[0].Applies[i].Value = v
	}
	Analyze(s, changepoint.Options{})
	return Failed(s)
}

// nightly simulates the gate over reps seeded series of 40 nightly
// applies (normal noise, relative standard deviation cv; from night 25
// on the level is 1+shift times the first), run each night from night
// 10. It returns the share of nights before the shift on which the gate
// fired (false alarms), the share of series in which it fired within 10
// nights of the shift (power), and the mean number of nights from the
// shift to its firing among those.
func nightly(seed uint64, reps int, cv, shift float64) (falseRate, power, delay float64) {
	const n, at, first = 40, 24, 10
	rng := rand.New(rand.NewPCG(seed, 3))
	falses, quiet, found, nights := 0, 0, 0, 0
	for range reps {
		x := make([]float64, n)
		for i := range x {
			mu := 100.0
			if i >= at {
				mu *= 1 + shift
			}
			x[i] = mu + rng.NormFloat64()*100*cv
		}
		for night := first; night <= min(n, at+10); night++ {
			fired := gate(x[:night])
			if night <= at {
				quiet++
				if fired {
					falses++
				}
				continue
			}
			if fired && shift != 0 {
				found++
				nights += night - at
				break
			}
		}
	}
	if found > 0 {
		delay = float64(nights) / float64(found)
	}
	return float64(falses) / float64(quiet), float64(found) / float64(reps), delay
}

// TestSimulatedGate states the nightly gate's (-fail-on change) false
// alarms per night on A/A nights and its power to catch a 10 % and a
// 20 % drop within 10 nights, at per-apply noise of CV 5, 10 and 25 %
// (seeded). It fails when the gate fires on more than 1 % of A/A nights
// or catches a 20 % drop at CV 10 % in fewer than 80 % of the series.
func TestSimulatedGate(t *testing.T) {
	const reps = 200
	for _, cv := range []float64{0.05, 0.10, 0.25} {
		fa, _, _ := nightly(1, reps, cv, 0)
		_, p10, d10 := nightly(2, reps, cv, -0.10)
		_, p20, d20 := nightly(3, reps, cv, -0.20)
		t.Logf("CV %2.0f %%: false alarms %.2f %% of A/A nights; caught within 10 nights: 10 %% drop %.0f %% (after %.1f nights), 20 %% drop %.0f %% (after %.1f nights); %d series",
			100*cv, 100*fa, 100*p10, d10, 100*p20, d20, reps)
		if fa > 0.01 {
			t.Errorf("CV %.0f %%: the gate fired on %.2f %% of A/A nights", 100*cv, 100*fa)
		}
		if cv == 0.10 && p20 < 0.80 {
			t.Errorf("CV 10 %%: a 20 %% drop caught in %.0f %% of series", 100*p20)
		}
	}
}
