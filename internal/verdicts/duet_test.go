package verdicts

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// duetGroups are the flows of a concurrent experiment "d" with one cell on
// pairs "a" and "b": repeat r's two flows share noise[r] (the moment they
// ran in), and pair b's flow is ratio × pair a's, times its own small
// noise.
func duetGroups(run string, ratio float64, common, own []float64) []results.CellGroup {
	var recs []results.Record
	for r := range common {
		for _, p := range []string{"a", "b"} {
			v := 10e9 * common[r]
			if p == "b" {
				v *= ratio * own[r]
			}
			rec := results.Record{RunID: run, Experiment: "d", Pair: p, CellKey: "streams=1", Repeat: r + 1,
				Flow: &results.Flow{Pairs: []string{"a", "b"}}}
			rec.Metrics.ThroughputBps = v
			recs = append(recs, rec)
		}
	}
	return results.Group(recs)
}

// noise draws n values: the machine's moment (log SD 0.4, as the foldover's
// unit measured under load) and each flow's own (log SD 0.05, the duet's).
func noise(r *rand.Rand, n int, sd float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Exp(sd * r.NormFloat64())
	}
	return out
}

// TestDuetShapes: a concurrent experiment's pair b over pair a is judged as
// a shape, paired by repeat: the machine's large common noise cancels, so
// the same ratio reproduces and a ×0.8 ratio is not reproduced (the case
// that must fail), at a 10 % margin with 16 repeats (the unit's SD 0.05 of
// `make duet` gives an MDE of about 7 %). A run whose
// pairs did not fly at once has nothing to pair.
func TestDuetShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	pub := duetGroups("pub", 1.2, noise(r, 16, 0.4), noise(r, 16, 0.05))
	for _, tc := range []struct {
		name  string
		ratio float64
		want  Reproduction
	}{
		{"same duet ratio", 1.2, Reproduced},
		{"pair b ×0.8", 0.96, NotReproduced},
		{"pair b ×1.25", 1.5, NotReproduced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Shapes(pub, duetGroups("new", tc.ratio, noise(r, 16, 0.4), noise(r, 16, 0.05)), ShapeOptions{Margin: 0.10})
			if len(got) != 1 {
				t.Fatalf("%d shapes, want the duet's one: %+v", len(got), got)
			}
			s := got[0]
			if s.Pair != "b" || s.ReferencePair != "a" || s.Verdict != tc.want {
				t.Errorf("pair %s / %s: %s (%s), want %s; new shape %+v", s.Pair, s.ReferencePair, s.Verdict, s.Note, tc.want, s.NewShape)
			}
		})
	}
	// The same figures without Flow: no duet, no shape (one cell a pair).
	plain := duetGroups("new", 1.2, noise(r, 16, 0.4), noise(r, 16, 0.05))
	for i := range plain {
		for j := range plain[i].Repeats {
			plain[i].Repeats[j].Flow = nil
		}
	}
	if got := Shapes(plain, plain, ShapeOptions{Margin: DefaultShapeMargin}); len(got) != 0 {
		t.Errorf("sequential pairs gave duet shapes: %+v", got)
	}
}

// TestSimulatedDuetAA: 2 000 A/A judgments of a duet (same ratio, new
// noise each time, 8 repeats) come out not reproduced at most 2.5 % +
// sampling allowance of the time: the rule's stated type I error.
func TestSimulatedDuetAA(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 2))
	const trials = 2000
	wrong := 0
	for range trials {
		pub := duetGroups("pub", 1.2, noise(r, 8, 0.4), noise(r, 8, 0.05))
		s := Shapes(pub, duetGroups("new", 1.2, noise(r, 8, 0.4), noise(r, 8, 0.05)), ShapeOptions{Margin: DefaultShapeMargin})
		if s[0].Verdict == NotReproduced {
			wrong++
		}
	}
	if f := float64(wrong) / trials; f > allowance(0.025, trials) {
		t.Errorf("A/A duet not reproduced %.2f %% of the time", 100*f)
	} else {
		t.Logf("A/A duet not reproduced %.2f %% of the time (8 repeats, 2 000 trials)", 100*f)
	}
}
