package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// adaptive tracks the throughput of every cell with adaptive repeats, to
// stop repeating a cell once its throughput band's verdict is decided
// (until = "verdict": results.GroupSeqLook, whose error rates are
// stated there; lab check replays the same looks) or once its 95 % confidence interval is narrow enough
// (until = "ci < P%": stopping on the width biases the variance down, so
// its intervals cover less than 95 %; see the README). Runs in flight
// at once (Engine.RunsAtOnce) share it.
type adaptive struct {
	mu      sync.Mutex
	samples map[string][]float64 // by experiment, pair and cell key
}

func cellID(r plan.Run) string { return r.Experiment + "\x00" + r.Pair + "\x00" + r.CellKey }

// record notes a finished run's throughput (failed runs and warmups
// are not samples).
func (a *adaptive) record(r plan.Run, rec results.Record) {
	if r.MinRepeat == 0 || r.Warmup || rec.Error != "" || rec.Metrics.ThroughputBps <= 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.samples == nil {
		a.samples = map[string][]float64{}
	}
	a.samples[cellID(r)] = append(a.samples[cellID(r)], rec.Metrics.ThroughputBps)
}

// decided says whether r need not run: its cell has at least MinRepeat
// samples and either (until = "verdict") the sequential band rule stops
// every band of the cell, or a confidence interval narrower than ±UntilCI
// of the mean.
func (a *adaptive) decided(r plan.Run) (bool, string) {
	a.mu.Lock()
	xs := slices.Clone(a.samples[cellID(r)])
	a.mu.Unlock()
	if r.MinRepeat == 0 || r.Warmup || len(xs) < r.MinRepeat {
		return false, ""
	}
	if r.UntilVerdict {
		return verdictDecided(r, xs)
	}
	s := results.Summarize(xs)
	if !s.Known || s.Mean <= 0 {
		return false, ""
	}
	rel := s.HalfWidth() / s.Mean
	if rel >= r.UntilCI {
		return false, ""
	}
	return true, fmt.Sprintf("decided after %d runs: 95%% CI ±%.1f%% < %.1f%%", len(xs), 100*rel, 100*r.UntilCI)
}

// verdictDecided is the until = "verdict" rule: every band of the cell
// stopped by a look of the group-sequential rule (results.GroupSeqLook) on
// the throughput in Gb/s, with the cell's design (seqDesign).
func verdictDecided(r plan.Run, bps []float64) (bool, string) {
	if len(r.Bands) == 0 {
		return false, ""
	}
	gbps := make([]float64, len(bps))
	for i, x := range bps {
		gbps[i] = x / 1e9
	}
	var why []string
	for _, b := range r.Bands {
		d := results.GroupSeqLook(gbps, b, *r.Sequential(), len(gbps) >= r.MaxRepeat)
		if !d.Stop {
			return false, ""
		}
		why = append(why, d.Reason)
	}
	return true, strings.Join(why, "; ")
}
