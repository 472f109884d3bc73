package operation

import (
	"reflect"
	"testing"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// The run records how many repeats its plan gave each cell (warm-ups not
// counted; adaptive repeats: the minimum), so a lost last repeat shows,
// and the sequential design of a cell that stops on its verdict, which
// lab check judges it by.
func TestPlannedCells(t *testing.T) {
	run := func(cell string, repeat int, warm bool, min int) plan.Run {
		return plan.Run{Experiment: "e", Pair: "p", CellKey: cell, Repeat: repeat, Warmup: warm, MinRepeat: min, UntilCI: 0.05 * float64(min)}
	}
	p := &plan.Plan{Groups: []*plan.Group{
		{Runs: []plan.Run{run("a", 1, true, 0), run("a", 1, false, 0), run("b", 1, false, 3), run("a", 2, false, 0)}},
		{Runs: []plan.Run{run("b", 2, false, 3), run("b", 3, false, 3), run("b", 4, false, 3), run("b", 5, false, 3)}},
	}}
	for n := 1; n <= 8; n++ {
		p.Groups[1].Runs = append(p.Groups[1].Runs, plan.Run{Experiment: "e", Pair: "p", CellKey: "c", Repeat: n, MinRepeat: 3, MaxRepeat: 8, UntilVerdict: true})
	}
	want := []results.PlannedCell{{Experiment: "e", Pair: "p", CellKey: "a", Repeats: 2}, {Experiment: "e", Pair: "p", CellKey: "b", Repeats: 3},
		{Experiment: "e", Pair: "p", CellKey: "c", Repeats: 3, Sequential: &results.SeqDesign{Min: 3, Max: 8, Step: 1}}}
	if got := PlannedCells(p); !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	if PlannedCells(nil) != nil {
		t.Error("no plan: want no counts")
	}
}
