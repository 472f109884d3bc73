package verdicts

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// duetDesignRecords are the records of a design = "duet" experiment "e"
// with cells mtu=1500 (A) and mtu=9000 (B) on pairs "a" and "b": repeat r
// runs A on a and B on b when r is odd, swapped when even; both flows of a
// repeat share the machine's moment (common, log SD 0.4: the foldover's
// unit under load), each its own noise (log SD 0.05: the duet's measured
// unit), and pair b runs bias × faster than pair a whatever its cell. B is
// ratio × A. skewMs is every repeat's start skew over a 2 s window.
func duetDesignRecords(r *rand.Rand, run string, repeats int, ratio, bias, skewMs float64) []results.Record {
	var recs []results.Record
	start := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	for rep := 1; rep <= repeats; rep++ {
		common := math.Exp(0.4 * r.NormFloat64())
		onA := map[string]string{"a": "mtu=1500", "b": "mtu=9000"}
		if rep%2 == 0 {
			onA = map[string]string{"a": "mtu=9000", "b": "mtu=1500"}
		}
		for _, p := range []string{"a", "b"} {
			v := 10e9 * common * math.Exp(0.05*r.NormFloat64())
			if p == "b" {
				v *= bias
			}
			cell := onA[p]
			if cell == "mtu=9000" {
				v *= ratio
			}
			at := start.Add(time.Duration(rep) * time.Minute)
			rec := results.Record{RunID: run, Experiment: "e", Pair: p, CellKey: cell, Repeat: rep,
				Cell: []results.CellValue{{Name: "mtu", Value: cell[4:]}},
				Flow: &results.Flow{Pairs: []string{"a", "b"}, SkewMs: skewMs}}
			rec.Raw.Start, rec.Raw.End = at, at.Add(2*time.Second)
			rec.Metrics.ThroughputBps = v
			recs = append(recs, rec)
		}
	}
	results.RunInfo{Design: map[string]string{"e": results.DesignDuet}}.Plan(recs)
	return recs
}

// TestDuetDesignShape: a duet's cells form one group each over both pairs
// ("a+b"), and its one shape, mtu=9000 over mtu=1500, is paired by repeat
// with swap pairs as units: the same ratio reproduces although pair b is
// 15 % faster than pair a, and ×0.8 and ×1.25 are not reproduced (the
// cases that must fail), at a 10 % margin with 16 repeats (the unit's SD
// of 0.05 leaves ±5 % undecidable at 16).
func TestDuetDesignShape(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 7))
	pub := results.Group(duetDesignRecords(r, "pub", 16, 1.3, 1.15, 1))
	if len(pub) != 2 || pub[0].Pair != "a+b" || pub[0].N != 16 || pub[0].Missing != 0 {
		t.Fatalf("groups %+v, want two of 16 runs on a+b", pub)
	}
	for _, tc := range []struct {
		name  string
		ratio float64
		want  Reproduction
	}{
		{"same ratio", 1.3, Reproduced},
		{"B ×0.8", 1.3 * 0.8, NotReproduced},
		{"B ×1.25", 1.3 * 1.25, NotReproduced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Shapes(pub, results.Group(duetDesignRecords(r, "new", 16, tc.ratio, 1.15, 1)), ShapeOptions{Margin: 0.10})
			if len(got) != 1 {
				t.Fatalf("%d shapes, want one: %+v", len(got), got)
			}
			s := got[0]
			if s.Pair != "a+b" || s.CellKey != "mtu=9000" || s.Reference != "mtu=1500" || s.Verdict != tc.want {
				t.Errorf("%s %s / %s: %s (%s), want %s", s.Pair, s.CellKey, s.Reference, s.Verdict, s.Note, tc.want)
			}
			if s.NewShape.Units != 8 || s.NewShape.PerUnit != 2 {
				t.Errorf("new shape over %d units of %d, want 8 swap pairs of 2", s.NewShape.Units, s.NewShape.PerUnit)
			}
		})
	}
}

// TestDuetSkewedUnits: a repeat whose flows started more than 10 % of the
// window apart (200 ms of 2 s) is left out of the shape and counted; at
// the bound it stays.
func TestDuetSkewedUnits(t *testing.T) {
	for _, tc := range []struct {
		skewMs       float64
		blocks, skew int
	}{{1, 8, 0}, {200, 8, 0}, {201, 7, 1}} {
		r := rand.New(rand.NewPCG(32, 8))
		recs := duetDesignRecords(r, "x", 8, 1.3, 1, 1)
		for i := range recs {
			if recs[i].Repeat == 3 {
				recs[i].Flow.SkewMs = tc.skewMs
			}
		}
		g := results.Group(recs)
		l := PairedRatio(g[1], g[0], results.MetricThroughput, "")
		if l.Blocks != tc.blocks || l.Skewed != tc.skew || l.Units != 4 {
			t.Errorf("skew %v ms: %d blocks, %d skewed, %d units; want %d, %d, 4", tc.skewMs, l.Blocks, l.Skewed, l.Units, tc.blocks, tc.skew)
		}
	}
}

// TestSimulatedDuetDesignAA: 4 000 A/A judgments of a duet design (8
// repeats: 4 swap pairs a side, pair b 15 % faster) at margin 0, where
// "not reproduced" is a two-sided test: each side comes out at most the
// stated 2.5 % (plus sampling allowance). A shape ×0.8 is caught in
// nearly every trial at the default margin.
func TestSimulatedDuetDesignAA(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 9))
	const trials = 4000
	var low, high, caught int
	for range trials {
		pub := results.Group(duetDesignRecords(r, "pub", 8, 1.3, 1.15, 1))
		s := Shapes(pub, results.Group(duetDesignRecords(r, "new", 8, 1.3, 1.15, 1)), ShapeOptions{Margin: 0})[0]
		if s.Verdict == NotReproduced {
			if s.Delta < 0 {
				low++
			} else {
				high++
			}
		}
		s = Shapes(pub, results.Group(duetDesignRecords(r, "new", 8, 1.3*0.8, 1.15, 1)), ShapeOptions{Margin: DefaultShapeMargin})[0]
		if s.Verdict == NotReproduced {
			caught++
		}
	}
	lo, hi, c := float64(low)/trials, float64(high)/trials, float64(caught)/trials
	if lo > allowance(0.025, trials) || hi > allowance(0.025, trials) {
		t.Errorf("A/A duet design not reproduced %.2f %% below, %.2f %% above; stated ≤ 2.5 %% a side", 100*lo, 100*hi)
	}
	if c < 0.95 {
		t.Errorf("×0.8 caught in %.1f %% of trials, want ≥ 95 %%", 100*c)
	}
	t.Logf("A/A not reproduced %.2f %% below, %.2f %% above (stated 2.5 %% a side); ×0.8 caught %.1f %% (%d trials, 8 repeats)", 100*lo, 100*hi, 100*c, trials)
}

// TestDuetRatioCheck: check's ratio rule reads a duet's two cells as
// block-paired (swap pairs as units): mtu=9000 at 1.3 × mtu=1500 with
// pair b 15 % faster passes "at least 1.2" and fails "at least 1.45".
func TestDuetRatioCheck(t *testing.T) {
	g := results.Group(duetDesignRecords(rand.New(rand.NewPCG(32, 10)), "x", 16, 1.3, 1.15, 1))
	of, over := g[1], g[0]
	if of.CellKey != "mtu=9000" {
		of, over = over, of
	}
	for _, tc := range []struct {
		atLeast float64
		want    Verdict
	}{{1.2, VerdictPass}, {1.45, VerdictFail}} {
		c := judgeGroupRatio(Check{}, of, over, results.MetricThroughput, RatioTarget{AtLeast: tc.atLeast})
		if c.Verdict != tc.want || c.Measured != pairedText(PairedRatio(of, over, results.MetricThroughput, results.DesignDuet)) {
			t.Errorf("at least %v: %s (%s, %s), want %s", tc.atLeast, c.Verdict, c.Measured, c.Reason, tc.want)
		}
	}
}
