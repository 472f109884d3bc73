package engine

import (
	"fmt"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// adaptive tracks the throughput of every cell with adaptive repeats, to
// stop repeating a cell once its 95 % confidence interval is narrow
// enough. Stopping looks at the interval's width only, never at where it
// lies, so it does not steer a cell towards any verdict.
type adaptive struct {
	samples map[string][]float64 // by experiment, pair and cell key
}

func cellID(r plan.Run) string { return r.Experiment + "\x00" + r.Pair + "\x00" + r.CellKey }

// record notes a finished run's throughput (failed runs and warmups
// are not samples).
func (a *adaptive) record(r plan.Run, rec results.Record) {
	if r.MinRepeat == 0 || r.Warmup || rec.Error != "" || rec.Metrics.ThroughputBps <= 0 {
		return
	}
	if a.samples == nil {
		a.samples = map[string][]float64{}
	}
	a.samples[cellID(r)] = append(a.samples[cellID(r)], rec.Metrics.ThroughputBps)
}

// decided says whether r need not run: its cell has at least MinRepeat
// samples and a confidence interval narrower than ±UntilCI of the mean.
func (a *adaptive) decided(r plan.Run) (bool, string) {
	xs := a.samples[cellID(r)]
	if r.MinRepeat == 0 || r.Warmup || len(xs) < r.MinRepeat {
		return false, ""
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
