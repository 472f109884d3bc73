package verdicts

import (
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// envRecs is a cell of runs at the given runner pressures (a negative
// one: PSI absent) and load average.
func envRecs(load float64, pressures ...float64) []results.Record {
	recs := cellRecs("p", "true", "1500", 0, slices.Repeat([]float64{10}, len(pressures))...)
	for i, p := range pressures {
		recs[i].Metrics.ThroughputBps = (10 + float64(i)*0.1) * 1e9
		recs[i].Environment = &results.Environment{CPUPressure: max(p, 0), CPUPressureKnown: p >= 0, Load1Start: load, Load1End: load}
	}
	return recs
}

func TestComparable(t *testing.T) {
	env := func(load float64, pressures ...float64) *CellEnvironment {
		return CellEnvironmentOf(results.Group(envRecs(load, pressures...))[0])
	}
	tests := []struct {
		name string
		a, b *CellEnvironment
		ok   bool
		why  string
	}{
		{"neither recorded", nil, nil, true, ""},
		{"base not recorded", nil, env(1, 5, 6, 7), true, "base: no runner environment recorded"},
		{"test not recorded", env(1, 5, 6, 7), nil, true, "test: no runner environment recorded"},
		{"same runner", env(1, 5, 6, 7), env(1.5, 8, 9, 30), true, ""},
		{"the +400 % case", env(30, 93, 94, 96), env(1.5, 15, 20, 25), false, "CPU pressure 94% vs 20%"},
		{"just within", env(1, 10, 10, 10), env(1, 10+ComparablePressure, 10+ComparablePressure, 10+ComparablePressure), true, ""},
		{"just beyond", env(1, 10, 10, 10), env(1, 10.1+ComparablePressure, 10.1+ComparablePressure, 10.1+ComparablePressure), false, "CPU pressure"},
		{"load 48 vs 2, pressure unknown", env(48, -1, -1), env(2, -1, -1), false, "load average 48.0 vs 2.0"},
		{"load 0.2 vs 0.9: both below one per CPU", env(0.2, -1), env(0.9, -1), true, ""},
		{"pressure known on one side only", env(1, 90, 90), env(1, -1, -1), true, "CPU pressure unknown on the test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := Comparable(tt.a, tt.b)
			if ok != tt.ok || (tt.why == "") != (why == "") || !strings.Contains(why, tt.why) {
				t.Errorf("Comparable = %v, %q; want %v, %q", ok, why, tt.ok, tt.why)
			}
		})
	}
}

// compare says "not comparable" instead of a change when the two runs'
// runners were in different states, and judges the rest as before.
func TestCompareNotComparable(t *testing.T) {
	busy, quiet := envRecs(30, 93, 94, 96), envRecs(1, 15, 20, 25)
	for i := range quiet {
		quiet[i].Metrics.ThroughputBps *= 5 // +400 %
	}
	d := Compare(results.Group(busy), results.Group(quiet), CompareOptions{})[0]
	if d.Change != NotComparable || !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.HasPrefix(n, "not comparable: CPU pressure 94% vs 20%") }) {
		t.Errorf("busy vs quiet runner: %s %v", d.Change, d.Notes)
	}
	if d.P != 1 || d.PAdjusted != 1 {
		t.Errorf("a not comparable cell was tested: p %v, adjusted %v", d.P, d.PAdjusted)
	}
	d = Compare(results.Group(envRecs(1, 15, 20, 25)), results.Group(quiet), CompareOptions{})[0]
	if d.Change != Improved {
		t.Errorf("same runner state: %s %v", d.Change, d.Notes)
	}
	old := cellRecs("p", "true", "1500", 0, 10, 10.1, 10.2)
	d = Compare(results.Group(old), results.Group(quiet), CompareOptions{})[0]
	if d.Change != Improved || !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.HasPrefix(n, "base: no runner environment recorded") }) {
		t.Errorf("an old base: %s %v, want improved with a note", d.Change, d.Notes)
	}
}
