package verdicts

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// Values whose spread overflows float64 give a finite summary marked
// Overflow, an inconclusive verdict saying so, and JSON that encodes
// (issue 23 §1: "+Inf ± NaN" and "unsupported value: +Inf").
func TestOverflow(t *testing.T) {
	huge := cellRecs("p", "true", "1500", 0, 1e299, 1.7e299, 1.2e299) // ×1e9: 1e308 b/s and more
	tests := []struct {
		name     string
		xs       []float64
		overflow bool
		known    bool
	}{
		{"ordinary", []float64{1, 2, 3}, false, true},
		{"sum overflows, spread does not", []float64{1.5e308, 1.6e308, 1.55e308}, false, true},
		{"spread overflows", []float64{-1.7e308, 1.7e308, 1e308}, true, false},
		{"one huge value", []float64{1.7e308}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := results.Summarize(tt.xs)
			if s.Overflow != tt.overflow || s.Known != tt.known || !finiteSummary(s) {
				t.Errorf("%+v: want overflow %v, known %v, every field finite", s, tt.overflow, tt.known)
			}
			if _, err := json.Marshal(s); err != nil {
				t.Error(err)
			}
		})
	}
	g := results.Group(huge)
	if !g[0].ThroughputBps.Overflow {
		t.Fatalf("throughput %+v: want overflow", g[0].ThroughputBps)
	}
	e := Expectation{Name: "x", Experiment: "x", Throughput: &Target{10, 0.05}}
	outs := Evaluate(g, []Expectation{e})
	c := outs[0].Checks[0]
	if c.Verdict != VerdictInconclusive || !strings.Contains(c.Reason, "too large for float64") || strings.Contains(c.Measured, "Inf") ||
		!strings.Contains(c.Measured, "± overflow") {
		t.Errorf("check %s %q measured %q", c.Verdict, c.Reason, c.Measured)
	}
	if _, err := json.Marshal(outs); err != nil {
		t.Errorf("check JSON: %v", err)
	}
	d := Compare(results.Group(cellRecs("p", "true", "1500", 0, 1, 2, 3)), g, CompareOptions{})
	if d[0].Change != TooNoisy || !strings.Contains(strings.Join(d[0].Notes, ";"), "overflow") {
		t.Errorf("compare %s %v", d[0].Change, d[0].Notes)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("compare JSON: %v", err)
	}
	// The safety net: a number that is not finite encodes as null, noted.
	b, err := json.Marshal([]any{Check{Value: math.Inf(1), Low: math.NaN()}, Delta{Diff: math.Inf(-1)}})
	if err != nil || !strings.Contains(string(b), `"value":null`) || !strings.Contains(string(b), `"diff_bps":null`) ||
		strings.Count(string(b), `"overflow":`) != 2 {
		t.Errorf("%s, %v", b, err)
	}
}

// finiteSummary reports whether every float field of s is finite.
func finiteSummary(s results.Summary) bool {
	return isFinite(s.Mean) && isFinite(s.Stdev) && isFinite(s.Min) && isFinite(s.Max) && isFinite(s.CI95Low) && isFinite(s.CI95High)
}
