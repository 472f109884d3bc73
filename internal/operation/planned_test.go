package operation

import (
	"reflect"
	"testing"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// The run records how many repeats its plan gave each cell (warm-ups not
// counted; adaptive repeats: the minimum), so a lost last repeat shows.
func TestPlannedCells(t *testing.T) {
	run := func(cell string, repeat int, warm bool, min int) plan.Run {
		return plan.Run{Experiment: "e", Pair: "p", CellKey: cell, Repeat: repeat, Warmup: warm, MinRepeat: min, UntilCI: 0.05 * float64(min)}
	}
	p := &plan.Plan{Groups: []*plan.Group{
		{Runs: []plan.Run{run("a", 1, true, 0), run("a", 1, false, 0), run("b", 1, false, 3), run("a", 2, false, 0)}},
		{Runs: []plan.Run{run("b", 2, false, 3), run("b", 3, false, 3), run("b", 4, false, 3), run("b", 5, false, 3)}},
	}}
	want := []results.PlannedCell{{Experiment: "e", Pair: "p", CellKey: "a", Repeats: 2}, {Experiment: "e", Pair: "p", CellKey: "b", Repeats: 3}}
	if got := PlannedCells(p); !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	if PlannedCells(nil) != nil {
		t.Error("no plan: want no counts")
	}
}
