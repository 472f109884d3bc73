package results

import (
	"encoding/json"
	"math"
	"testing"
)

// Two-sided 95 % critical values of Student's t, from a printed table
// (e.g. NIST/SEMATECH e-Handbook §1.3.6.7.2), for df = n-1, n = 2..30.
var tTable = map[int]float64{
	1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
	9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131,
	16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074,
	23: 2.069, 24: 2.064, 25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045,
	30: 2.042, 60: 2.000, 120: 1.980,
}

func TestTCritical95MatchesTable(t *testing.T) {
	for df, want := range tTable {
		if got := TCritical95(df); math.Abs(got-want) > 0.0005 {
			t.Errorf("TCritical95(%d) = %.4f, table says %.3f", df, got, want)
		}
	}
	if got := TCritical95(100000); math.Abs(got-1.95996) > 0.0001 {
		t.Errorf("TCritical95(large) = %.5f, want the normal 1.95996", got)
	}
	if !math.IsNaN(TCritical95(0)) {
		t.Error("TCritical95(0) is not NaN")
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{12.5}, Summary{N: 1, Mean: 12.5, Min: 12.5, Max: 12.5, CI95Low: 12.5, CI95High: 12.5}},
		{"three", []float64{14, 10, 12}, Summary{N: 3, Mean: 12, Stdev: 2, Min: 10, Max: 14,
			CI95Low: 12 - 4.968275, CI95High: 12 + 4.968275, Known: true}},
		{"eight", []float64{2, 4, 4, 4, 5, 5, 7, 9}, Summary{N: 8, Mean: 5, Stdev: 2.138090, Min: 2, Max: 9,
			CI95Low: 5 - 1.787488, CI95High: 5 + 1.787488, Known: true}},
		{"constant", []float64{3, 3}, Summary{N: 2, Mean: 3, Min: 3, Max: 3, CI95Low: 3, CI95High: 3, Known: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.xs)
			if got.N != tt.want.N || got.Known != tt.want.Known {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			pairs := [][2]float64{{got.Mean, tt.want.Mean}, {got.Stdev, tt.want.Stdev}, {got.Min, tt.want.Min},
				{got.Max, tt.want.Max}, {got.CI95Low, tt.want.CI95Low}, {got.CI95High, tt.want.CI95High}}
			for _, p := range pairs {
				if math.Abs(p[0]-p[1]) > 1e-5 {
					t.Errorf("got %+v,\nwant %+v", got, tt.want)
					break
				}
			}
			if _, err := json.Marshal(got); err != nil {
				t.Errorf("summary does not encode: %v", err)
			}
		})
	}
}

func TestSummaryScaleAndHalfWidth(t *testing.T) {
	s := Summarize([]float64{10e9, 12e9, 14e9}).Scale(1e-9)
	if math.Abs(s.Mean-12) > 1e-9 || math.Abs(s.HalfWidth()-4.968275) > 1e-5 {
		t.Errorf("scaled summary %+v, half-width %v", s, s.HalfWidth())
	}
	if h := Summarize([]float64{5}).HalfWidth(); h != 0 {
		t.Errorf("half-width of one value = %v, want 0", h)
	}
}
