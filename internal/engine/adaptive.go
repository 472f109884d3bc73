package engine

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// adaptive tracks the throughput of every cell with adaptive repeats, to
// stop repeating a cell once its throughput band's verdict is decided
// (until = "verdict": verdicts.GroupSeqLook, whose error rates are
// stated there; lab check replays the same looks) or once its 95 % confidence interval is narrow enough
// (until = "ci < P%": stopping on the width biases the variance down, so
// its intervals cover less than 95 %; see the README). Runs in flight
// at once (Engine.RunsAtOnce) share it.
type adaptive struct {
	mu      sync.Mutex
	samples map[string][]float64 // by experiment, pair and cell key
	// budgets are the experiments with a budget (plan.Run.Budget), by
	// name; now is the engine's clock.
	budgets map[string]*budget
	now     func() time.Time
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

// budget is an experiment with a budget being run: when its first
// measured block started, the last block the stop was decided for, the
// stop (once made, every later run of the experiment skips) and the
// cells with bands seen, with their runs' design.
type budget struct {
	start   time.Time
	checked int
	stop    *results.BudgetStop
	cells   map[string]plan.Run
}

// skip says whether r need not run — adaptive repeats decided its cell,
// or its experiment's budget stopped — and if so emits the skip and
// records a budget's stop where the results keep it.
func (e *Engine) skip(r plan.Run, adapt *adaptive, total int, out *Outcome) (bool, error) {
	skip, why := adapt.decided(r)
	var stop *results.BudgetStop
	if r.Budget > 0 && !r.Warmup {
		skip, why, stop = adapt.budgetDecided(r)
	}
	if !skip {
		return false, nil
	}
	out.Skipped++
	e.emit(Event{Type: EvSkipped, Index: r.Index, Total: total, Experiment: r.Experiment, Pair: r.Pair, Cell: r.CellKey, Repeat: r.Repeat, Message: why})
	if stop == nil {
		return true, nil
	}
	e.recordMu.Lock()
	defer e.recordMu.Unlock()
	out.Stops = append(out.Stops, *stop)
	if sr, ok := e.Results.(stopRecorder); ok {
		if err := sr.RecordStop(*stop); err != nil {
			return true, err
		}
	}
	return true, nil
}

// budgetDecided is decided for a run of an experiment with a budget: at
// the first run of each block after a whole stopping unit (r.LookEvery)
// it stops the experiment — every later run skipped, so only whole
// blocks run — when every cell's bands are decided by a look so far
// (verdicts.GroupSeqFirst), or when one more unit, at the blocks' measured
// pace, would overrun the budget. Warm-ups are outside the budget. The
// first stop is returned once, to be recorded.
func (a *adaptive) budgetDecided(r plan.Run) (skip bool, why string, stop *results.BudgetStop) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.budgets == nil {
		a.budgets = map[string]*budget{}
	}
	b := a.budgets[r.Experiment]
	if b == nil {
		b = &budget{start: a.clock(), checked: 1, cells: map[string]plan.Run{}}
		a.budgets[r.Experiment] = b
	}
	if len(r.Bands) > 0 {
		b.cells[cellID(r)] = r
	}
	if b.stop != nil {
		return true, b.stop.Detail, nil
	}
	done := r.Repeat - 1
	unit := max(r.LookEvery, 1)
	if r.Repeat <= b.checked || done%unit != 0 {
		return false, "", nil
	}
	b.checked = r.Repeat
	elapsed := a.clock().Sub(b.start)
	pace := elapsed / time.Duration(done)
	switch {
	case done >= r.MinRepeat && a.allDecided(b):
		b.stop = &results.BudgetStop{Experiment: r.Experiment, Reason: results.StopDecided, Blocks: done,
			Detail: fmt.Sprintf("every band decided after %d blocks (%s of the %s budget)", done, elapsed.Round(time.Second), r.Budget)}
	case elapsed+time.Duration(unit)*pace > r.Budget:
		b.stop = &results.BudgetStop{Experiment: r.Experiment, Reason: results.StopBudget, Blocks: done,
			Detail: fmt.Sprintf("budget spent after %d blocks: %s of %s used, a block takes %s", done, elapsed.Round(time.Second), r.Budget, pace.Round(time.Second))}
	default:
		return false, "", nil
	}
	return true, b.stop.Detail, b.stop
}

// allDecided says whether every cell of b with bands has each band
// decided by a look of its design so far; false when no cell has bands.
// Called with a.mu held.
func (a *adaptive) allDecided(b *budget) bool {
	if len(b.cells) == 0 {
		return false
	}
	for id, r := range b.cells {
		gbps := make([]float64, len(a.samples[id]))
		for i, x := range a.samples[id] {
			gbps[i] = x / 1e9
		}
		for _, t := range r.Bands {
			if _, _, ok := verdicts.GroupSeqFirst(gbps, t, *r.Sequential()); !ok {
				return false
			}
		}
	}
	return true
}

// clock is the engine's clock (time.Now when none is set).
func (a *adaptive) clock() time.Time {
	if a.now != nil {
		return a.now()
	}
	return time.Now()
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
// stopped by a look of the group-sequential rule (verdicts.GroupSeqLook) on
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
		d := verdicts.GroupSeqLook(gbps, b, *r.Sequential(), len(gbps) >= r.MaxRepeat)
		if !d.Stop {
			return false, ""
		}
		why = append(why, d.Reason)
	}
	return true, strings.Join(why, "; ")
}
