package results_test

import (
	"os"
	"testing"

	"github.com/lab-bench/lab/bench/netperf"
	"github.com/lab-bench/lab/internal/results"
)

// TestNetperfRRReachesTheCell: netperf TCP_RR's latency quantiles and
// transaction rate (a published real output) were parsed but dropped by
// the grouping; now each is a cell metric.
func TestNetperfRRReachesTheCell(t *testing.T) {
	text, err := os.ReadFile("../../bench/netperf/testdata/keyval-tcp-rr.txt")
	if err != nil {
		t.Fatal(err)
	}
	s, err := netperf.FromKeyval(netperf.ParseKeyval(string(text)))
	if err != nil {
		t.Fatal(err)
	}
	var recs []results.Record
	for i := range 2 {
		recs = append(recs, results.Record{Experiment: "rr", Pair: "p", CellKey: "c", Repeat: i + 1, Metrics: s})
	}
	g := results.Group(recs)[0]
	for key, want := range map[string]float64{
		results.MetricLatencyP50: 334, results.MetricLatencyP90: 391, results.MetricLatencyMean: 351.66,
		results.MetricTransactions: 2841.07,
	} {
		if got := g.Metric(key); got.N != 2 || got.Mean != want {
			t.Errorf("%s: %+v, want mean %v over 2 runs", key, got, want)
		}
	}
	// The output has no P99_LATENCY: unknown, not 0 µs.
	if got := g.Metric(results.MetricLatencyP99); got.N != 0 {
		t.Errorf("p99 without a P99_LATENCY: %+v", got)
	}
}
