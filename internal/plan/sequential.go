package plan

import "github.com/lab-bench/lab/internal/results"

// Sequential is the group-sequential design of a run's cell when the cell
// stops on its verdict (until = "verdict"): looks after every
// run from MinRepeat to MaxRepeat. Nil for a cell that runs a fixed number
// of repeats, or stops on its interval's width. The engine's stop and lab
// check's verdict (results.PlannedCell.Sequential) both read it.
func (r Run) Sequential() *results.SeqDesign {
	if !r.UntilVerdict {
		return nil
	}
	return &results.SeqDesign{Min: r.MinRepeat, Max: r.MaxRepeat, Step: max(r.LookEvery, 1)}
}
