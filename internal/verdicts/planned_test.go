package verdicts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// A lost last repeat is missing when the run recorded its plan, and the
// check on the cell says so; a run recorded without a plan reads as
// before (only gaps count).
func TestLostLastRepeat(t *testing.T) {
	for _, tt := range []struct {
		name    string
		planned []results.PlannedCell
		missing int
	}{
		{"planned 3, 2 left", []results.PlannedCell{{Experiment: "x", Pair: "p", CellKey: "lro=true,mtu=1500", Repeats: 3}}, 1},
		{"recorded before plans", nil, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := results.Store{Dir: t.TempDir()}
			r, err := s.NewRun(results.RunInfo{Lab: "l", Started: started, Experiments: []string{"x"}, Planned: tt.planned})
			if err != nil {
				t.Fatal(err)
			}
			recs := cellRecs("p", "true", "1500", 0, 9.9, 10, 10.1)
			for _, rec := range recs {
				if err := r.Write(rec); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Finish(results.StatusComplete); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(filepath.Join(s.Dir, r.ID(), results.RecordPath(recs[2]))); err != nil {
				t.Fatal(err)
			}
			info, loaded, err := s.Load(r.ID())
			if err != nil || len(loaded) != 2 || len(info.Planned) != len(tt.planned) {
				t.Fatalf("%d records, planned %v, %v", len(loaded), info.Planned, err)
			}
			g := results.Group(loaded)
			if g[0].Missing != tt.missing {
				t.Errorf("missing %d, want %d", g[0].Missing, tt.missing)
			}
			e := Expectation{Name: "x", Experiment: "x", Throughput: &Target{10, 0.05}}
			c := Evaluate(g, []Expectation{e})[0].Checks[0]
			if tt.missing > 0 && (c.Verdict != VerdictIncomplete || !strings.Contains(c.Reason, "1 of 3 runs missing")) {
				t.Errorf("check %s %q: want incomplete, 1 of 3 runs missing", c.Verdict, c.Reason)
			}
		})
	}
}

var started = time.Date(2026, 11, 29, 23, 45, 1, 0, time.UTC)
