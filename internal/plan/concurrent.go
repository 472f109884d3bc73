package plan

import (
	"cmp"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/lab-bench/lab/internal/spec"
)

// concurrentOrder lays out a concurrent experiment's runs (spec
// Experiment.Concurrent): the unit is a cell across all the experiment's
// pairs — its flows — and the flows of one unit and repeat are adjacent in
// the run order, pair after pair, so that the engine starts them together.
// The units follow the experiment's order as the (pair, cell)s of any
// other experiment do: a random foldover of blocks of every unit once,
// interleaved rounds, or each unit's repeats back to back; warm-ups open
// each unit.
func concurrentOrder(e *spec.Experiment, cells []cellRuns, rng *mrand.Rand) []placed {
	units := flowUnits(cells)
	repeats := max(e.Repeat, 1)
	var out []placed
	emit := func(u []cellRuns, n int, warmup bool) {
		for _, c := range u {
			out = append(out, c.at(n, warmup))
		}
	}
	switch e.Order {
	case spec.OrderRandom:
		for w := 1; w <= e.Warmup; w++ {
			for _, i := range rng.Perm(len(units)) {
				emit(units[i], w, true)
			}
		}
		for r, order := range foldover(rng, len(units), repeats) {
			for _, i := range order {
				emit(units[i], r+1, false)
			}
		}
	case spec.OrderSequential:
		for _, u := range units {
			for w := 1; w <= e.Warmup; w++ {
				emit(u, w, true)
			}
			for r := 1; r <= repeats; r++ {
				emit(u, r, false)
			}
		}
	default: // interleaved
		for _, u := range units {
			for w := 1; w <= e.Warmup; w++ {
				emit(u, w, true)
			}
		}
		for r := 1; r <= repeats; r++ {
			for _, u := range units {
				emit(u, r, false)
			}
		}
	}
	return out
}

// flowUnits gathers the cells of all pairs (cells lists them pair by pair)
// into one unit per matrix cell, in matrix order, each unit's flows in
// the experiment's pair order; every flow's run lists the unit's pairs.
func flowUnits(cells []cellRuns) [][]cellRuns {
	byIndex := map[int][]cellRuns{}
	var indexes []int
	for _, c := range cells {
		if _, ok := byIndex[c.run.CellIndex]; !ok {
			indexes = append(indexes, c.run.CellIndex)
		}
		byIndex[c.run.CellIndex] = append(byIndex[c.run.CellIndex], c)
	}
	slices.Sort(indexes)
	units := make([][]cellRuns, 0, len(indexes))
	for _, i := range indexes {
		u := byIndex[i]
		pairs := make([]string, len(u))
		for j, c := range u {
			pairs[j] = c.run.Pair
		}
		for j := range u {
			u[j].run.Flows = pairs
		}
		units = append(units, u)
	}
	return units
}

// FlowsKey identifies the flows that run together: runs with equal keys
// that are adjacent in the run order start at the same moment. The zero
// key for a run that runs alone.
func (r Run) FlowsKey() FlowsKey {
	if len(r.Flows) < 2 {
		return FlowsKey{}
	}
	if r.Duet { // both cells of a repeat run together
		return FlowsKey{Experiment: r.Experiment, CellIndex: -1, Repeat: r.Repeat, Warmup: r.Warmup}
	}
	return FlowsKey{Experiment: r.Experiment, CellIndex: r.CellIndex, Repeat: r.Repeat, Warmup: r.Warmup}
}

// FlowsKey is the unit of a concurrent experiment's run order: one cell
// and repeat across the experiment's pairs. The zero key is a lone run.
type FlowsKey struct {
	Experiment string
	CellIndex  int
	Repeat     int
	Warmup     bool
}

// Batches splits runs (in run order) into what runs at one moment: a lone
// run alone, the adjacent flows of one unit of a concurrent experiment
// together.
func Batches(runs []Run) [][]Run {
	var out [][]Run
	for i, r := range runs {
		k := r.FlowsKey()
		if i > 0 && k != (FlowsKey{}) && k == runs[i-1].FlowsKey() {
			out[len(out)-1] = append(out[len(out)-1], r)
			continue
		}
		out = append(out, []Run{r})
	}
	return out
}

// runsTime is how long runs take, flows that run together counted once
// (their longest), each batch with overhead for configuration and start-up.
func runsTime(runs []Run, overhead time.Duration) time.Duration {
	var d time.Duration
	for _, b := range Batches(runs) {
		longest := slices.MaxFunc(b, func(x, y Run) int { return cmp.Compare(x.length(), y.length()) })
		d += longest.length() + overhead
	}
	return d
}

// length is how long a run's benchmark takes (omit included), or its
// background load when that runs longer.
func (r Run) length() time.Duration {
	d := r.Spec.Bench.Duration + r.Spec.Bench.Omit
	if bg := r.Spec.Background; bg != nil {
		d = max(d, bg.Duration+bg.Omit)
	}
	return d
}
