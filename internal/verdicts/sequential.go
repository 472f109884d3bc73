package verdicts

import (
	"math"
	"sync"

	"github.com/lab-bench/lab/internal/results"
)

// Sequential band rule: the former rule of adaptive repeats that stop on
// the verdict, replaced by the group-sequential rule (GroupSeqLook) and
// kept for BenchmarkAdaptiveVerdict's comparison.
//
// A cell with adaptive repeats (repeat = { min, max, until = "verdict" })
// and a band expectation (value ± tolerance) is looked at after every run
// from min on; before max it stops at the first look where one of these
// holds:
//
//   - decided (pass or fail): the interim interval — the t-interval of the
//     mean at level 1 − 2·InterimAlpha, a stricter one than the 95 % of the
//     final verdict — lies inside the band (pass) or entirely outside it
//     (fail). Each look spends InterimAlpha per side (Haybittle–Peto
//     boundaries, Bonferroni over the looks), so with the true mean exactly
//     on an edge each of the two wrong verdicts has probability at most
//     2.5 % + (max − min) × InterimAlpha over the whole cell: the interim
//     looks spend at most (max − min) × InterimAlpha, and the cells that
//     run to max are judged by the ordinary 95 % band rule (Evaluate).
//   - futile: the 95 % interval overlaps an edge (the verdict would be
//     inconclusive) and would still overlap it at max even if the mean
//     moved FutilitySE standard errors away from that edge: more runs are
//     unlikely to decide, so the cell stops inconclusive. Stopping for
//     futility never makes a wrong verdict, so it only lowers the error
//     rates above.
//
// Whatever the rule stops on, `lab check` judges the recorded runs with the
// ordinary band rule, and agrees: an interim interval inside (outside) the
// band implies the wider 95 % one is too, and a futile stop is one where the
// 95 % interval overlaps an edge.
//
// Measured (TestSimulatedSequentialBandErrorRateAtEdge, seeded, 50 000 cells per CV,
// edge and max, band 10 ± 15 %, min 3): each wrong verdict on an edge is
// 0.4–2.1 % with max 10 (bound 3.2 %) and 0.5–1.9 % with max 15 (bound
// 3.7 %) at CV 5/15/25 %. Against a fixed repeat = 10
// (BenchmarkAdaptiveVerdict) the rule needs at most 0.6 × the runs at equal
// or better accuracy at CV 5 % and on the edge at every CV, but not inside
// or outside the band at CV 15–25 %, where a rule judged by the 95 % band
// rule can pass only once the spread happens to be small; the README gives
// the numbers, the floor no such rule can beat, Wald's bound for any rule
// and the rules tried.
const (
	InterimAlpha = 0.001
	FutilitySE   = 0.5
)

// SeqDecision is what the sequential band rule says after a look.
type SeqDecision struct {
	Stop    bool
	Verdict Verdict // pass or fail when decided, inconclusive when futile
	Reason  string
}

// interimTable holds the two-sided critical values at level 2·InterimAlpha
// by degrees of freedom, computed once (gonum's quantile is iterative).
var interimTable = sync.OnceValue(func() []float64 {
	t := make([]float64, 257)
	t[0] = math.NaN()
	for df := 1; df < len(t); df++ {
		t[df] = results.TCritical(2*InterimAlpha, float64(df))
	}
	return t
})
