package view

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// lab show lists why each experiment with a budget stopped (run.json's
// stops), and nothing for a run without.
func TestRunHeaderListsBudgetStops(t *testing.T) {
	for _, tc := range []struct {
		stops []results.BudgetStop
		want  []string
	}{
		{nil, nil},
		{[]results.BudgetStop{
			{Experiment: "mtu", Reason: results.StopDecided, Blocks: 4, Detail: "every band decided after 4 blocks (2m0s of the 10m0s budget)"},
			{Experiment: "gro", Reason: results.StopBudget, Blocks: 7, Detail: "budget spent after 7 blocks: 9m10s of 10m0s used, a block takes 1m18s"},
		}, []string{
			"  stopped   mtu: decided after 4 blocks — every band decided after 4 blocks (2m0s of the 10m0s budget)",
			"  stopped   gro: budget spent after 7 blocks — budget spent after 7 blocks: 9m10s of 10m0s used, a block takes 1m18s",
		}},
	} {
		var b strings.Builder
		RunHeader(&b, results.RunInfo{ID: "r", Lab: "l", Status: results.StatusComplete, Stops: tc.stops}, nil)
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w+"\n") {
				t.Errorf("header lacks %q:\n%s", w, b.String())
			}
		}
		if len(tc.want) == 0 && strings.Contains(b.String(), "stopped") {
			t.Errorf("no stops, yet:\n%s", b.String())
		}
	}
}
