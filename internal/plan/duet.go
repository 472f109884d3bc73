package plan

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/spec"
)

// duetOrder lays out a design = "duet" experiment's runs: each repeat (and
// warm-up) runs the matrix's two cells at the same moment, one on each of
// the two pairs, as one batch of flows (Batches); odd repeats put the
// first cell on the first pair, even ones swap the pairs, so a constant
// difference between the pairs cancels in the mean of each two repeats
// (verdicts.PairedRatio with results.DesignDuet). cells lists the cells
// pair by pair, two per pair (spec.decodeDesign checked both). Each run
// is configured with its own cell's settings on its own pair; the first
// pair's run comes first in the batch.
func duetOrder(e *spec.Experiment, cells []cellRuns) []placed {
	if len(cells) != 4 {
		return nil // refused by the spec already
	}
	pairs := []string{cells[0].run.Pair, cells[2].run.Pair}
	var out []placed
	emit := func(n int, warmup bool) {
		first, second := cells[0], cells[3] // pair a: cell 0, pair b: cell 1
		if n%2 == 0 {
			first, second = cells[1], cells[2] // swapped
		}
		for _, c := range []cellRuns{first, second} {
			c.run.Flows, c.run.Duet = pairs, true
			out = append(out, c.at(n, warmup))
		}
	}
	for w := 1; w <= e.Warmup; w++ {
		emit(w, true)
	}
	for r := 1; r <= max(e.Repeat, 1); r++ {
		emit(r, false)
	}
	return out
}

// duetNote is the run list's line on each duet experiment of p ("" when
// there is none).
func duetNote(p *Plan) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(p.Design)) {
		if p.Design[name] == results.DesignDuet {
			fmt.Fprintf(&b, "  (duet %s: both cells of a repeat at once, one on each pair, the pairs swapped every second repeat)\n", name)
		}
	}
	return b.String()
}
