package plan

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	mrand "math/rand/v2"
	"slices"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// MaxOrderSeed bounds the seeds lab draws, so a seed survives every JSON
// reader (2^53, the largest integer a float64 holds exactly).
const MaxOrderSeed = 1 << 53

// placed is a run and the group it runs on, before the plan numbers it.
type placed struct {
	g   *Group
	run Run
}

// cellRuns is one cell of one pair: its group and its run, Repeat and
// Warmup still to set.
type cellRuns struct {
	g   *Group
	run Run
}

// at is the cell's run as repeat (or warm-up) n.
func (c cellRuns) at(n int, warmup bool) placed {
	r := c.run
	r.Repeat, r.Warmup = n, warmup
	return placed{c.g, r}
}

// experimentOrder lays out the runs of one experiment's cells (of all its
// pairs, pair by pair, each pair's cells in matrix order) in the order
// they run:
//
//   - random (the default): a randomised foldover of complete blocks. Each
//     block holds every (pair, cell) once — first one block per warm-up,
//     then one per repeat. Warm-up blocks and odd repeats are shuffled by
//     rng; each even repeat is the repeat before it reversed (ABBA for two
//     cells), a fold. Within a fold every cell's mean position is the
//     same, so a linear drift of the host cancels in each cell's mean and
//     in every shape (verdicts.PairedRatio, which averages a fold's two
//     blocks), and the cells compared sit next to each other as often as
//     a shuffle lets them; no periodic disturbance lines up with a cell.
//   - interleaved: each pair's cells once per round in matrix order, the
//     pairs (groups) one after another, as before random existed.
//   - sequential: each cell's repeats back to back, pair after pair.
//
// Warm-ups open each cell in every order.
func experimentOrder(e *spec.Experiment, cells []cellRuns, rng *mrand.Rand) []placed {
	repeats := max(e.Repeat, 1)
	var out []placed
	if e.Order == spec.OrderRandom {
		emit := func(order []int, n int, warmup bool) {
			for _, i := range order {
				out = append(out, cells[i].at(n, warmup))
			}
		}
		for w := 1; w <= e.Warmup; w++ {
			emit(rng.Perm(len(cells)), w, true)
		}
		for r, order := range foldover(rng, len(cells), repeats) {
			emit(order, r+1, false)
		}
		return out
	}
	// The old orders run per pair and group: a group's runs go together.
	pairs := [][]cellRuns{}
	for i, c := range cells {
		if i == 0 || c.run.Pair != cells[i-1].run.Pair {
			pairs = append(pairs, nil)
		}
		pairs[len(pairs)-1] = append(pairs[len(pairs)-1], c)
	}
	for _, cs := range pairs {
		var seq []placed
		for _, c := range cs {
			for w := 1; w <= e.Warmup; w++ {
				seq = append(seq, c.at(w, true))
			}
			if e.Order == spec.OrderSequential {
				for r := 1; r <= repeats; r++ {
					seq = append(seq, c.at(r, false))
				}
			}
		}
		if e.Order != spec.OrderSequential {
			for r := 1; r <= repeats; r++ {
				for _, c := range cs {
					seq = append(seq, c.at(r, false))
				}
			}
		}
		out = append(out, seq...)
	}
	return out
}

// foldover is the order of n units in each of blocks blocks: odd blocks
// (1-based) a permutation drawn from rng, even ones the block before
// reversed.
func foldover(rng *mrand.Rand, n, blocks int) [][]int {
	out := make([][]int, blocks)
	for b := range out {
		if b%2 == 1 {
			out[b] = slices.Clone(out[b-1])
			slices.Reverse(out[b])
			continue
		}
		out[b] = rng.Perm(n)
	}
	return out
}

// design is the block design experimentOrder and concurrentOrder give e's
// runs (results.RunInfo.Design).
func design(e *spec.Experiment) string {
	if e.Design == spec.DesignDuet {
		return results.DesignDuet
	}
	switch e.Order {
	case spec.OrderRandom:
		return results.DesignFoldover
	case spec.OrderInterleaved:
		return results.DesignRounds
	}
	return results.DesignSequential
}

// groupMajor sorts seq so that each group's runs go together, groups in
// the order the plan made them, keeping each group's runs in order: the
// order lab has always had for interleaved and sequential experiments.
func groupMajor(seq []placed, groupIndex map[*Group]int) {
	slices.SortStableFunc(seq, func(a, b placed) int { return cmp.Compare(groupIndex[a.g], groupIndex[b.g]) })
}

// NewOrderSeed draws a seed for the run order: in [1, MaxOrderSeed).
func NewOrderSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return int64(binary.LittleEndian.Uint64(b[:])%(MaxOrderSeed-1)) + 1
}

// orderRNG is the generator of the run order for seed: PCG, whose output
// Go's math/rand/v2 documents as fixed, so a seed replays the same order.
func orderRNG(seed int64) *mrand.Rand {
	return mrand.New(mrand.NewPCG(uint64(seed), 0x6c6162)) // "lab"
}

// number gives every run of the plan its 1-based Index in run order
// (the order of the Index they already carry), and keeps each group's
// runs in that order.
func (p *Plan) number() {
	var all []*Run
	for _, g := range p.Groups {
		slices.SortStableFunc(g.Runs, func(a, b Run) int { return cmp.Compare(a.Index, b.Index) })
		for i := range g.Runs {
			all = append(all, &g.Runs[i])
		}
	}
	slices.SortStableFunc(all, func(a, b *Run) int { return cmp.Compare(a.Index, b.Index) })
	for i, r := range all {
		r.Index = i + 1
	}
}

// usesRandomOrder says whether any experiment of lab draws its order.
func usesRandomOrder(lab *spec.Lab) bool {
	return slices.ContainsFunc(lab.Experiments, func(e *spec.Experiment) bool { return e.Order == spec.OrderRandom && e.Design == "" })
}
