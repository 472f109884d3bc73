package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// stopResults is memResults that also keeps the budget stops recorded
// (what results.Run.RecordStop writes to run.json).
type stopResults struct {
	memResults
	smu   sync.Mutex
	stops []results.BudgetStop
}

func (s *stopResults) RecordStop(b results.BudgetStop) error {
	s.smu.Lock()
	defer s.smu.Unlock()
	s.stops = append(s.stops, b)
	return nil
}

// budgetPlan is two cells in blocks of both, at most blocks blocks, with
// a budget and the stopping unit every.
func budgetPlan(blocks, minRuns, every int, bands []verdicts.Target, budget time.Duration) *plan.Plan {
	p := testPlan(2*blocks, 1500)
	for i := range p.Groups[0].Runs {
		r := &p.Groups[0].Runs[i]
		r.CellKey, r.Repeat = fmt.Sprintf("n=%d", i%2), i/2+1
		r.MinRepeat, r.MaxRepeat, r.UntilVerdict, r.Bands, r.Budget, r.LookEvery = minRuns, blocks, true, bands, budget, every
	}
	return p
}

// A budget runs whole blocks and stops the experiment, at a whole
// stopping unit, once every band is decided (1 Gb/s every run: inside
// 1 ± 10 %) or once the next unit would not fit in the budget (a clock
// on which every run takes 30 s); the stop and its reason are recorded as
// they happen.
func TestBudgetStopsOnVerdictOrTime(t *testing.T) {
	band := []verdicts.Target{{Value: 1, Tolerance: 0.1}}
	for _, tc := range []struct {
		name          string
		min, every    int
		bands         []verdicts.Target
		budget        time.Duration
		blocks        int
		reason, about string
	}{
		{"decided", 3, 1, band, time.Hour, 3, results.StopDecided, "every band decided after 3 blocks"},
		{"decided, block pairs", 4, 2, band, time.Hour, 4, results.StopDecided, "every band decided after 4 blocks"},
		{"budget spent", 3, 1, nil, 4 * time.Minute, 4, results.StopBudget, "after 4 blocks"},
		{"budget spent, block pairs", 4, 2, nil, 5 * time.Minute, 4, results.StopBudget, "after 4 blocks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _, _ := newEngine(newFake(), fakeOS{}, fakeRunner{})
			res := &stopResults{}
			e.Results = res
			t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
			e.Clock = func() time.Time { // every run takes 30 s: a block a minute
				res.mu.Lock()
				defer res.mu.Unlock()
				return t0.Add(time.Duration(len(res.recs)) * 30 * time.Second)
			}
			out, err := e.Apply(context.Background(), context.Background(), budgetPlan(8, tc.min, tc.every, tc.bands, tc.budget))
			if err != nil {
				t.Fatal(err)
			}
			if out.Runs != 2*tc.blocks || out.Skipped != 2*(8-tc.blocks) {
				t.Errorf("outcome %+v: want %d blocks of 2 runs", out, tc.blocks)
			}
			if len(res.stops) != 1 || res.stops[0].Reason != tc.reason || res.stops[0].Blocks != tc.blocks || !strings.Contains(res.stops[0].Detail, tc.about) {
				t.Errorf("stops %+v, want one %q after %d blocks (%q)", res.stops, tc.reason, tc.blocks, tc.about)
			}
		})
	}
}
