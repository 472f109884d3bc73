package verdicts

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
)

// A cell run under a sequential design (RunInfo.Planned carries it) is
// judged by the rule its stop used — the first look that decides — and
// not by the 95 % band rule over every run recorded; a cell without one
// keeps the band rule.
func TestCheckJudgesSequentialCellsByTheirStopRule(t *testing.T) {
	band := Expectation{Name: "band", Experiment: "x", Where: map[string]string{"pair": "p"}, Throughput: &Target{Value: 10, Tolerance: 0.15}}
	design := &results.SeqDesign{Min: 3, Max: 10, Step: 1}
	tests := []struct {
		name   string
		design *results.SeqDesign
		gbps   []float64
		want   Verdict
		reason string
	}{
		// Passed at the first look (3 runs tightly at 10); the blocks of the
		// budget ran on and later runs drifted: the band rule over all six
		// would be inconclusive, the stop said pass.
		{"stopped pass, runs after", design, []float64{10, 10.2, 9.8, 8.0, 7.5, 7.0}, VerdictPass, "pass after 3 runs"},
		{"no design: band rule", nil, []float64{10, 10.2, 9.8, 8.0, 7.5, 7.0}, VerdictInconclusive, "95% CI"},
		{"stopped fail", design, []float64{7, 7.1, 6.9}, VerdictFail, "fail after 3 runs"},
		{"futile on an edge", design, []float64{8.4, 8.6, 8.5, 8.3, 8.7}, VerdictInconclusive, "futile"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs := cellRecs("p", "false", "1500", 0, tc.gbps...)
			info := results.RunInfo{Planned: []results.PlannedCell{{Experiment: "x", Pair: "p", CellKey: recs[0].CellKey, Repeats: 3, Sequential: tc.design}}}
			info.Plan(recs)
			out := Evaluate(results.Group(recs), []Expectation{band})
			c := out[0].Checks[0]
			if c.Verdict != tc.want || !strings.Contains(c.Reason, tc.reason) {
				t.Errorf("got %s (%s), want %s (%q)", c.Verdict, c.Reason, tc.want, tc.reason)
			}
		})
	}
}

// A budget's stop is in run.json as soon as it is recorded — before the
// run finishes, so an apply interrupted after it still says why — and
// loads back.
func TestRecordStopIsWrittenAtOnce(t *testing.T) {
	s := results.Store{Dir: t.TempDir()}
	run, err := s.NewRun(results.RunInfo{Lab: "l"})
	if err != nil {
		t.Fatal(err)
	}
	stop := results.BudgetStop{Experiment: "e", Reason: results.StopBudget, Blocks: 6, Detail: "budget spent after 6 blocks"}
	if err := run.RecordStop(stop); err != nil {
		t.Fatal(err)
	}
	info, _, err := s.Load(run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Stops) != 1 || info.Stops[0] != stop {
		t.Errorf("stops %+v, want [%+v]", info.Stops, stop)
	}
}
