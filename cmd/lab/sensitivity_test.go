package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// TestSensitivityGoals: BenchmarkSensitivity's goal rows from made-up
// judgments, each goal both met and not met, and the verdicts counted as
// moving with the load only where the hogged and quiet rates differ.
func TestSensitivityGoals(t *testing.T) {
	js := func(scale float64, hog bool, k, n int) []sensJudgment {
		var out []sensJudgment
		for i := 0; i < n; i++ {
			// half the judgments between a bundle and a run at different loads
			out = append(out, sensJudgment{scale: scale, hog: hog, pubHog: i%2 == 0, newRule: true, newNR: i < k})
		}
		return out
	}
	good := [][]sensJudgment{js(1, false, 0, 20), js(1, true, 0, 20), js(0.9, false, 9, 10), js(0.9, true, 9, 10), js(0.85, false, 10, 10), js(0.85, true, 10, 10)}
	for _, tt := range []struct {
		name    string
		js      [][]sensJudgment
		load    float64
		wall    time.Duration
		met     []bool
		printed string
	}{
		{"all met", good, 20, 4 * time.Minute, []bool{true, true, true, true}, "not reproduced 0/20 (0 %)"},
		{"too loaded for the 10 % row", good, 33, 4 * time.Minute, []bool{true, false, true, true}, ""},
		{"too long for the 10 % row", good, 20, 11 * time.Minute, []bool{true, false, true, true}, ""},
		{"A/A fails across loads", [][]sensJudgment{js(1, false, 0, 20), js(1, true, 3, 20), js(0.9, false, 9, 10), js(0.85, false, 9, 10)},
			20, time.Minute, []bool{false, true, true, false}, "not reproduced 1/20 (5 %)"},
		{"weak power", [][]sensJudgment{js(1, false, 1, 20), js(0.9, false, 5, 10), js(0.85, false, 7, 10)},
			20, time.Minute, []bool{true, false, false, false}, ""},
		{"no judgments", nil, 0, 0, []bool{false, false, false, false}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var tally sensTally
			for _, g := range tt.js {
				for _, j := range g {
					tally.add(j)
				}
			}
			gs := tally.goals(func(j sensJudgment) bool { return j.newNR }, tt.load, tt.wall)
			for i, g := range gs {
				if g.met != tt.met[i] {
					t.Errorf("goal %q: met %v, want %v", g.text, g.met, tt.met[i])
				}
			}
			if !strings.Contains(gs[3].text, tt.printed) {
				t.Errorf("load row %q lacks %q", gs[3].text, tt.printed)
			}
		})
	}
}

// TestSensitivityTableSaysWhichRule: until the binary's shapes carry an
// mde the table says the new rule is not yet merged.
func TestSensitivityTableSaysWhichRule(t *testing.T) {
	for _, newRule := range []bool{false, true} {
		var tally sensTally
		tally.add(sensJudgment{scale: 1, newRule: newRule})
		var buf bytes.Buffer
		tally.print(&buf, []sensApply{{Run: "r1", Wall: time.Minute, Load0: 2, Load1: 3}}, 24, time.Minute)
		if got := strings.Contains(buf.String(), "not yet merged"); got == newRule {
			t.Errorf("new rule %v: printed\n%s", newRule, buf.String())
		}
		if got := strings.Contains(buf.String(), "block-paired"); got != newRule {
			t.Errorf("new rule %v: printed\n%s", newRule, buf.String())
		}
	}
}

// TestOldShapeReversed: the old rule says not reproduced only when both
// runs' Fieller intervals exclude 1 on opposite sides.
func TestOldShapeReversed(t *testing.T) {
	recs := func(ref, cell []float64) []results.Record {
		var out []results.Record
		for i := range ref {
			for _, c := range []struct {
				key string
				v   float64
				idx int
			}{{"mtu=1500", ref[i], 0}, {"mtu=9000", cell[i], 1}} {
				r := results.Record{Experiment: "mtu", Pair: "veth", CellKey: c.key, CellIndex: c.idx, Repeat: i + 1}
				r.Metrics.ThroughputBps = c.v
				out = append(out, r)
			}
		}
		return out
	}
	up := recs([]float64{10, 11, 10, 11}, []float64{20, 21, 20, 21})
	down := recs([]float64{20, 21, 20, 21}, []float64{10, 11, 10, 11})
	flat := recs([]float64{10, 20, 10, 20}, []float64{20, 10, 20, 10})
	for _, tt := range []struct {
		name     string
		pub, cur []results.Record
		want     bool
	}{
		{"same side", up, up, false},
		{"reversed", up, down, true},
		{"new run across 1", up, flat, false},
		{"no published claim", flat, down, false},
	} {
		if got := oldShapeReversed(tt.pub, tt.cur, "mtu=9000", "mtu=1500"); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if m, sd := blockLogRatios(up, "mtu=9000", "mtu=1500"); m < 0.6 || m > 0.75 || sd <= 0 {
		t.Errorf("block log-ratios of up: %g ± %g", m, sd)
	}
}

// TestNewNRAt: the new rule's verdict at another shape margin follows
// from the interval of the change, as verdicts.JudgeShapeChange decides.
func TestNewNRAt(t *testing.T) {
	for _, tt := range []struct {
		lo, hi, m float64
		want      bool
	}{
		{-0.30, -0.15, 0.10, true},  // wholly below −ln 1.1
		{-0.30, -0.15, 0.20, false}, // crosses −ln 1.2
		{0.12, 0.40, 0.10, true},
		{-0.05, 0.05, 0, false},
	} {
		j := sensJudgment{newRule: true, lo: tt.lo, hi: tt.hi}
		if got := j.newNRAt(tt.m); got != tt.want {
			t.Errorf("[%g, %g] at %g: %v, want %v", tt.lo, tt.hi, tt.m, got, tt.want)
		}
		edge := math.Log1p(tt.m)
		if want := tt.lo > edge || tt.hi < -edge; j.newNRAt(tt.m) != want {
			t.Errorf("[%g, %g] at %g: disagrees with the rule's edge", tt.lo, tt.hi, tt.m)
		}
	}
	if (sensJudgment{lo: 1, hi: 2}).newNRAt(0) {
		t.Error("a judgment of the old binary has no new verdict")
	}
}

// TestShapeNoiseRate: the predicted rate is the rule's error rate where
// the rule's own assumption holds (no apply-to-apply noise: 5 % at margin
// 0, less with a margin), grows with apply-to-apply noise, and is power
// near 1 for a change far beyond the margin.
func TestShapeNoiseRate(t *testing.T) {
	quiet := shapeNoise{se: 0.03, df: 1000}
	if r := quiet.notReproducedRate(0, 0); math.Abs(r-0.05) > 0.002 {
		t.Errorf("A/A at margin 0 without apply noise: %g, want 5 %%", r)
	}
	if r := quiet.notReproducedRate(0.05, 0); r >= 0.05 {
		t.Errorf("A/A at margin 5 %%: %g, want below 5 %%", r)
	}
	if r := (shapeNoise{se: 0.03, tau: 0.05, df: 1000}).notReproducedRate(0.05, 0); r <= 0.05 {
		t.Errorf("A/A with apply noise: %g, want above 5 %%", r)
	}
	if r := quiet.notReproducedRate(0.05, math.Log(0.5)); r < 0.99 {
		t.Errorf("power at ×0.5: %g", r)
	}
	runs := []sensApply{{Shape: 0.1, ShapeSD: 0.2}, {Shape: -0.1, ShapeSD: 0.2}, {Shape: 0.1, ShapeSD: 0.2}, {Shape: -0.1, ShapeSD: 0.2}}
	n := applyNoise(runs, 16)
	if math.Abs(n.se-0.05) > 1e-9 || n.tau < 0.09 || n.tau > 0.11 || n.df != 30 {
		t.Errorf("noise of ±0.1 applies, SE 0.05: %+v", n)
	}
}

// TestSensitivitySpec: the benchmark applies the pinned CI bundle's spec,
// byte for byte at its 20 blocks, with only repeat changed otherwise.
func TestSensitivitySpec(t *testing.T) {
	pinned, err := os.ReadFile(filepath.Join(pinnedCI, "spec", "lab.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	same, err := sensitivitySpec(20)
	if err != nil || same != string(pinned) {
		t.Errorf("20 blocks: %v, spec differs from the bundle's:\n%s", err, same)
	}
	seven, err := sensitivitySpec(7)
	if err != nil || !strings.Contains(seven, "repeat = 7 ") || strings.Count(seven, "\n") != strings.Count(string(pinned), "\n") {
		t.Errorf("7 blocks: %v\n%s", err, seven)
	}
}
