package operation

import (
	"fmt"
	"io"

	"github.com/lab-bench/lab/internal/results"
)

// SingleRepeatCells counts the cells of recs with fewer than two
// successful repeats, of all cells: a reproduction of such a cell can only
// be inconclusive, since an equivalence test needs a confidence interval
// of the published mean, and one repeat has none (issue 33 §4).
func SingleRepeatCells(recs []results.Record) (single, cells int) {
	for _, g := range results.Group(recs) {
		cells++
		if g.N < 2 {
			single++
		}
	}
	return single, cells
}

// warnSingleRepeats tells w when some of run id's cells have one repeat.
func warnSingleRepeats(w io.Writer, id string, recs []results.Record) {
	single, cells := SingleRepeatCells(recs)
	if single == 0 || w == nil {
		return
	}
	fmt.Fprintf(w, "Warning: %d of %d cells of run %s have fewer than two successful repeats: their reproduction can only be inconclusive "+
		"(no confidence interval from one run). Publish a run with repeat = 2 or more.\n", single, cells, id)
}
