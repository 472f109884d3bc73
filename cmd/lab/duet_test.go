package main

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// rec is a record of a successful run (Gb/s) for the duet's estimators.
func rec(pair, cell string, repeat int, gbps float64) results.Record {
	return results.Record{Pair: pair, CellKey: cell, Repeat: repeat, Metrics: bench.Sample{ThroughputBps: gbps * 1e9}}
}

// TestDuetUnits: one unit per repeat in which both pairs' flows
// succeeded, ln(b / a), in repeat order; failed and warm-up runs are
// left out.
func TestDuetUnits(t *testing.T) {
	warm := rec("a", "", 1, 9)
	warm.Warmup = true
	failed := rec("b", "", 3, 0)
	recs := []results.Record{
		rec("b", "", 2, 3), rec("a", "", 2, 1.5),
		warm, rec("a", "", 1, 2), rec("b", "", 1, 2),
		rec("a", "", 3, 2), failed,
		rec("a", "", 4, 4), rec("b", "", 4, 1),
	}
	got, _ := duetUnits(recs)
	want := []float64{0, math.Log(2), math.Log(0.25)}
	if len(got) != len(want) {
		t.Fatalf("units %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("unit %d = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestFoldUnits: folds are blocks 2k−1 and 2k averaged (PairedRatio's
// units); a block whose partner is missing counts alone.
func TestFoldUnits(t *testing.T) {
	const c, r = "mtu=9000", "mtu=1500"
	recs := []results.Record{
		rec("v", c, 1, 2), rec("v", r, 1, 1), // ln 2
		rec("v", r, 2, 1), rec("v", c, 2, 1), // 0
		rec("v", c, 3, 4), rec("v", r, 3, 1), // ln 4, block 4 failed
		rec("v", c, 4, 0), rec("v", r, 4, 1),
		rec("v", c, 5, 1), rec("v", r, 5, 2), // −ln 2
		rec("v", r, 6, 1), rec("v", c, 6, 2), // ln 2
	}
	blocks, folds := foldUnits(recs, c, r)
	if len(blocks) != 5 {
		t.Errorf("blocks %v, want 5", blocks)
	}
	want := []float64{math.Log(2) / 2, math.Log(4), 0}
	if len(folds) != len(want) {
		t.Fatalf("folds %v, want %v", folds, want)
	}
	for i := range want {
		if math.Abs(folds[i]-want[i]) > 1e-12 {
			t.Errorf("fold %d = %v, want %v", i, folds[i], want[i])
		}
	}
}

// TestMDE10: equal benchmark time means more units for the design whose
// unit takes less time, and the MDE shrinks with √n.
func TestMDE10(t *testing.T) {
	slow := mde10(0.1, 10, 200*time.Second, 10*time.Minute) // 30 units in 10 min
	fast := mde10(0.1, 20, 200*time.Second, 10*time.Minute) // 60 units
	if !(fast < slow) {
		t.Errorf("MDE with twice the units %.4f, not below %.4f", fast, slow)
	}
	want := verdicts.MDE(math.Sqrt(2)*0.1/math.Sqrt(30), 58, 0)
	if math.Abs(slow-want) > 1e-12 {
		t.Errorf("mde10 = %v, want %v", slow, want)
	}
	if !math.IsNaN(mde10(0.1, 1, time.Second, time.Minute)) {
		t.Error("one unit gave an MDE")
	}
}

// TestDuetVerdicts: the duet decides more only when it measures the
// foldover's shape, shows no bias between its pairs and has the smaller
// MDE.
func TestDuetVerdicts(t *testing.T) {
	fold := duetFigures{mean: 0.04, meanSE: 0.01, seApply: 0.05, mdeSeen: 0.20}
	tests := []struct {
		name       string
		duet, aa   duetFigures
		winner     string
		notMetLine int // -1: all met
	}{
		{"all met", duetFigures{mean: 0.045, meanSE: 0.005, seApply: 0.02, mdeSeen: 0.10}, duetFigures{mean: 0.001, meanSE: 0.005}, "the duet", -1},
		{"other shape", duetFigures{mean: 0.20, meanSE: 0.005, seApply: 0.02, mdeSeen: 0.10}, duetFigures{mean: 0.001, meanSE: 0.005}, "the foldover", 0},
		{"biased pairs", duetFigures{mean: 0.045, meanSE: 0.005, seApply: 0.02, mdeSeen: 0.10}, duetFigures{mean: 0.10, meanSE: 0.005}, "the foldover", 1},
		{"larger MDE", duetFigures{mean: 0.045, meanSE: 0.005, seApply: 0.08, mdeSeen: 0.30}, duetFigures{mean: 0.001, meanSE: 0.005}, "the foldover", 2},
	}
	for _, tt := range tests {
		lines := duetVerdicts(fold, tt.duet, tt.aa)
		if last := lines[len(lines)-1]; last != "duet vs foldover: "+tt.winner+" decides more" {
			t.Errorf("%s: %q", tt.name, last)
		}
		for i, l := range lines[:len(lines)-1] {
			if strings.HasSuffix(l, "NOT met") != (i == tt.notMetLine) {
				t.Errorf("%s: line %d: %q", tt.name, i, l)
			}
		}
	}
}
