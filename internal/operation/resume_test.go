package operation

import (
	"testing"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// TestResumeNeeds: a run with a result is not run again; a failed or
// missing one is, and so are the warm-ups of its cell.
func TestResumeNeeds(t *testing.T) {
	rec := func(cell string, repeat int, warmup bool) string {
		return results.RecordPath(results.Record{Experiment: "e", Pair: "p", CellKey: cell, Repeat: repeat, Warmup: warmup})
	}
	rp := &ResumePoint{ID: "x", repeats: map[string]int{"e": 2}, done: map[string]bool{
		rec("mtu=1500", 1, false): true, rec("mtu=1500", 2, false): true, rec("mtu=1500", 1, true): true,
		rec("mtu=9000", 1, false): true, rec("mtu=9000", 1, true): true,
	}}
	tests := []struct {
		cell   string
		repeat int
		warmup bool
		want   bool
	}{
		{"mtu=1500", 1, false, false},
		{"mtu=1500", 1, true, false}, // every repeat of the cell is done
		{"mtu=9000", 1, false, false},
		{"mtu=9000", 2, false, true}, // missing (or failed)
		{"mtu=9000", 1, true, true},  // warms up the cell before it
	}
	for _, tc := range tests {
		r := plan.Run{Experiment: "e", Pair: "p", CellKey: tc.cell, Repeat: tc.repeat, Warmup: tc.warmup}
		if got := rp.needs(r); got != tc.want {
			t.Errorf("%s #%d warmup=%t: needs %t, want %t", tc.cell, tc.repeat, tc.warmup, got, tc.want)
		}
	}
}
