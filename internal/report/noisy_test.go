package report

import (
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// TestNoisyPrimaryMetric: the note's "noisy" judges a latency cell on its
// mean round-trip latency (its throughput is a by-product of small
// messages) and every other cell on its throughput.
func TestNoisyPrimaryMetric(t *testing.T) {
	steadyRate := results.Summarize([]float64{75e6, 75e6, 75e6})
	noisyRate := results.Summarize([]float64{40e6, 75e6, 110e6})
	steadyLat := results.Summarize([]float64{21, 21.1, 20.9})
	noisyLat := results.Summarize([]float64{12, 21, 30})
	tests := []struct {
		name          string
		rate, latency results.Summary
		want          bool
	}{
		{"latency cell, latency noisy, rate steady", steadyRate, noisyLat, true},
		{"latency cell, latency steady, rate noisy", noisyRate, steadyLat, false},
		{"latency cell, both steady", steadyRate, steadyLat, false},
		{"throughput cell, rate noisy", noisyRate, results.Summary{}, true},
		{"throughput cell, rate steady", steadyRate, results.Summary{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := results.CellGroup{N: 3, ThroughputBps: tc.rate}
			if tc.latency.N > 0 {
				g.Metrics = map[string]results.Summary{results.MetricLatencyMean: tc.latency}
			}
			if got := noisy(g); got != tc.want {
				t.Errorf("noisy = %t, want %t", got, tc.want)
			}
			if got := note(g) == "noisy"; got != tc.want {
				t.Errorf("note %q, want noisy %t", note(g), tc.want)
			}
		})
	}
}
