package verdicts

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// ComparablePressure and ComparableLoad bound how far apart the runner's
// state may be on the two sides of an absolute verdict (Comparable): the
// median CPU pressure of each side's runs may differ by at most
// ComparablePressure points, and their median load averages (each at
// least 1) by at most a ratio of ComparableLoad.
//
// Why these: no model of throughput against pressure has been measured,
// so they are not derived from a simulation but from what was observed.
// Two applies of one spec on this runner moved by +400 % with only the
// neighbours changed, PSI 94 % and load 15–48 on one side against a few
// percent and load ≤ 2 on the other: either bound sees that. In steady
// conditions PSI over 5-s windows stayed within 5 points (97–100 % at
// load 22–25, 2026-12-05) and a run of lab's alone moves the 1-minute
// load by about 1, so same-condition runs stay within both bounds. 25
// points is five times that steady spread and a quarter of the scale; a load ratio of 2 is twice the runnable tasks per CPU, the point at
// which a task's share of a CPU halves. Loads below 1 count as 1: an
// idle runner's 0.1 against 0.3 says nothing.
const (
	ComparablePressure = 25.0
	ComparableLoad     = 2.0
)

// CellEnvironment is the runner's state over a cell's runs: the median
// CPU pressure of the runs that measured it, and the median of each
// run's mean load average.
type CellEnvironment struct {
	Pressure     float64 `json:"cpu_pressure_pct"`
	PressureRuns int     `json:"cpu_pressure_runs"`
	Load         float64 `json:"load1"`
	Runs         int     `json:"runs"`
}

// CellEnvironmentOf summarises the environments of g's runs
// (CellGroup.Repeats); nil when no run recorded one.
func CellEnvironmentOf(g results.CellGroup) *CellEnvironment {
	var pressures, loads []float64
	for _, r := range g.Repeats {
		env := r.Environment
		if env == nil {
			continue
		}
		loads = append(loads, (env.Load1Start+env.Load1End)/2)
		if env.CPUPressureKnown {
			pressures = append(pressures, env.CPUPressure)
		}
	}
	if len(loads) == 0 {
		return nil
	}
	return &CellEnvironment{Pressure: median(pressures), PressureRuns: len(pressures), Load: median(loads), Runs: len(loads)}
}

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Comparable reports whether an absolute verdict may read the base's and
// the test's figures side by side: false, saying why ("CPU pressure 94%
// vs 20%"), when their runners' states differ beyond ComparablePressure
// or ComparableLoad. A side without a recorded environment (records
// written before lab recorded it) is comparable, as before, with a note
// saying so in why; so is a side without PSI, whose load still counts.
func Comparable(base, test *CellEnvironment) (ok bool, why string) {
	switch {
	case base == nil && test == nil:
		return true, ""
	case base == nil:
		return true, "base: no runner environment recorded (runs from before lab recorded it): whether the runners were alike is unknown"
	case test == nil:
		return true, "test: no runner environment recorded (runs from before lab recorded it): whether the runners were alike is unknown"
	}
	var apart, notes []string
	switch {
	case base.PressureRuns > 0 && test.PressureRuns > 0:
		if math.Abs(base.Pressure-test.Pressure) > ComparablePressure {
			apart = append(apart, fmt.Sprintf("CPU pressure %.0f%% vs %.0f%%", base.Pressure, test.Pressure))
		}
	case base.PressureRuns > 0:
		notes = append(notes, "CPU pressure unknown on the test")
	case test.PressureRuns > 0:
		notes = append(notes, "CPU pressure unknown on the base")
	}
	lb, lt := math.Max(base.Load, 1), math.Max(test.Load, 1)
	if math.Max(lb, lt)/math.Min(lb, lt) > ComparableLoad {
		apart = append(apart, fmt.Sprintf("load average %.1f vs %.1f", base.Load, test.Load))
	}
	if len(apart) > 0 {
		return false, strings.Join(apart, ", ") + fmt.Sprintf(" (medians of each side's runs; comparable within %s points of pressure and a load ratio of %s)",
			num(ComparablePressure), num(ComparableLoad))
	}
	return true, strings.Join(notes, ", ")
}
