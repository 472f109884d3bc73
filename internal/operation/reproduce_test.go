package operation

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// cell is three runs of one cell at gbps, on a runner at the given CPU
// pressure (env false: records from before lab recorded it).
func cell(gbps, pressure float64, env bool) []results.Record {
	var recs []results.Record
	for i := range 3 {
		r := results.Record{Experiment: "e", Pair: "p", CellKey: "mtu=1500", Repeat: i + 1,
			Metrics: bench.Sample{ThroughputBps: (gbps + 0.01*float64(i)) * 1e9}}
		if env {
			r.Environment = &results.Environment{CPUPressure: pressure, CPUPressureKnown: true, Load1Start: 1, Load1End: 1}
		}
		recs = append(recs, r)
	}
	return recs
}

// A published cell measured again on a runner in another state is not
// comparable, whatever TOST would say, and the overall verdict is then
// inconclusive; a bundle from before environments were recorded is
// judged as before, with a note.
func TestReproduceCellsNotComparable(t *testing.T) {
	tests := []struct {
		name      string
		pub, new  []results.Record
		want      verdicts.Reproduction
		note      string
		wantTotal verdicts.Reproduction
	}{
		{"same runner", cell(10, 10, true), cell(10, 12, true), verdicts.Reproduced, "", verdicts.Reproduced},
		{"busy vs quiet runner", cell(10, 94, true), cell(10, 20, true), verdicts.EnvNotComparable,
			"not comparable: CPU pressure 94% vs 20%", verdicts.Inconclusive},
		{"old bundle", cell(10, 0, false), cell(10, 20, true), verdicts.Reproduced,
			"published: no runner environment recorded", verdicts.Reproduced},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := ReproduceCells(results.Group(tt.pub), results.Group(tt.new), results.MetricThroughput, 0.1)
			if len(cs) != 1 || cs[0].Verdict != tt.want || !strings.Contains(cs[0].Note, tt.note) {
				t.Fatalf("cells %+v: want %s noting %q", cs, tt.want, tt.note)
			}
			r := Reproduction{Cells: cs}
			if got := r.Overall(); got != tt.wantTotal {
				t.Errorf("overall %s, want %s", got, tt.wantTotal)
			}
		})
	}
}
