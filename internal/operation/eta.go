package operation

import (
	"fmt"
	"time"

	"github.com/lab-bench/lab/internal/plan"
)

// runOverhead is what a run takes beyond its benchmark (configuring and
// observing both ends, starting the tools), before any run has finished.
const runOverhead = time.Second

// ETA estimates how long an apply's runs still take: the plan's duration
// of every run not finished, scaled by how the finished runs compared
// with theirs (a slow host makes every run slow).
type ETA struct {
	// Planned is each run's benchmark time plus runOverhead, by run
	// index - 1.
	Planned []time.Duration
	// donePlanned and doneActual sum the finished runs' plan and reality.
	donePlanned, doneActual time.Duration
}

// NewETA reads the runs' planned durations from p.
func NewETA(p *plan.Plan) *ETA {
	e := &ETA{}
	for _, r := range p.Runs() {
		e.Planned = append(e.Planned, r.Spec.Bench.Duration+r.Spec.Bench.Omit+runOverhead)
	}
	return e
}

// Finished records that run index (1-based) took elapsed.
func (e *ETA) Finished(index int, elapsed time.Duration) {
	if e == nil || index < 1 || index > len(e.Planned) {
		return
	}
	e.donePlanned += e.Planned[index-1]
	e.doneActual += elapsed
}

// Left is the time the runs from index (1-based, running for inRun) to
// the last still take.
func (e *ETA) Left(index int, inRun time.Duration) time.Duration {
	if e == nil || index < 1 || index > len(e.Planned) {
		return 0
	}
	var rest time.Duration
	for _, d := range e.Planned[index-1:] {
		rest += d
	}
	if e.donePlanned > 0 {
		rest = time.Duration(float64(rest) * float64(e.doneActual) / float64(e.donePlanned))
	}
	return max(rest-inRun, 0)
}

// Text is the estimate for the progress line ("" without a plan).
func (e *ETA) Text(index int, inRun time.Duration) string {
	if e == nil || len(e.Planned) == 0 {
		return ""
	}
	return fmt.Sprintf("  (about %s left)", roundETA(e.Left(index, inRun)))
}

// roundETA rounds an estimate to what is worth reading: seconds under a
// minute, then 10 s steps, then minutes.
func roundETA(d time.Duration) time.Duration {
	switch {
	case d < time.Minute:
		return d.Round(time.Second)
	case d < 10*time.Minute:
		return d.Round(10 * time.Second)
	}
	return d.Round(time.Minute)
}
