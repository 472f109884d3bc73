package verdicts

import (
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/results"
)

// TestPublishedOtherMetrics checks published tables of figures other than
// throughput (issue 33 §4): seed 003's netstat -s counts (the client's
// counters over the run), seed 004's -d reverse figure and seed 000's CPU %.
func TestPublishedOtherMetrics(t *testing.T) {
	var recs []results.Record
	for i, v := range []int64{410, 415, 420, 418} {
		recs = append(recs, results.Record{Experiment: "x", Pair: "p", Repeat: i + 1, CellKey: "cc=cubic",
			Cell: []results.CellValue{{Name: "cc", Value: "cubic"}},
			Metrics: bench.Sample{ThroughputBps: 0.94e9, SenderBps: 0.94e9, ReverseBps: 0.338e9 + float64(i)*1e6,
				ServerCPU: bench.CPUUsage{Busy: 95 + float64(i)}},
			Counters: &results.RunCounters{Client: &guest.CounterSnapshot{TCP: map[string]int64{
				guest.CounterRetransSegments: v, guest.CounterTimeouts: 0, guest.CounterRecoveries: 3}}},
			Provenance: results.Provenance{Provider: "bhyve"}})
	}
	groups := results.Group(recs)
	cell := func(v float64) []PublishedCell {
		return []PublishedCell{{Where: map[string]string{"cc": "cubic"}, Value: v}}
	}
	for _, tt := range []struct {
		metric string
		value  float64
		want   Verdict
	}{
		{"client_retransmitted_segments", 415, VerdictReproduced},
		{"client_retransmitted_segments", 1895, VerdictNotReproduced},
		{"client_recoveries", 3, VerdictReproduced},
		{"reverse_throughput_bps", 0.3395, VerdictReproduced},
		{"server_cpu_pct", 96.5, VerdictReproduced},
		{"server_timeouts", 0, VerdictInconclusive}, // no server counters recorded
	} {
		table := &PublishedTable{Name: "t", Side: "client", Metric: tt.metric, Match: map[string]string{"provider": "bhyve"}, Cells: cell(tt.value)}
		e := Expectation{Name: tt.metric, Experiment: "x", Where: map[string]string{},
			Published: &PublishedTarget{Table: table, Margin: 0.10}}
		out := Evaluate(groups, []Expectation{e})[0]
		if len(out.Checks) != 1 || out.Checks[0].Verdict != tt.want {
			t.Errorf("%s = %v: %+v, want %s", tt.metric, tt.value, out.Checks, tt.want)
		}
	}
}
