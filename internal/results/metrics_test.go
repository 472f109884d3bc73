package results

import (
	"math"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
)

// latencyRec is a bounceback-like run: p99 and mean in µs, transactions/s.
func latencyRec(cell string, repeat int, p99, mean, tps float64) Record {
	r := rec("lat", "veth", cell, repeat, 0.08)
	r.Metrics.Latency = &bench.LatencySample{MinUs: 14, MeanUs: mean, P50Us: 100, P90Us: 100, P99Us: p99, MaxUs: 5000}
	r.Metrics.TransactionsPerSec = tps
	return r
}

// udpRec is a UDP run with loss % and jitter.
func udpRec(cell string, repeat int, loss, jitter float64) Record {
	r := rec("udp", "veth", cell, repeat, 1)
	r.Intent.Bench.UDP = true
	r.Metrics.LossPct, r.Metrics.JitterMs = loss, jitter
	r.Metrics.Packets, r.Metrics.PacketsPerSec = 1000, 500
	return r
}

func TestGroupMetrics(t *testing.T) {
	routed := rec("e", "fw", "1500", 1, 10)
	routed.Metrics.RouterCPU = &bench.CPUUsage{Busy: 40}
	routed2 := rec("e", "fw", "1500", 2, 12)
	routed2.Metrics.RouterCPU = &bench.CPUUsage{Busy: 60}
	gs := Group([]Record{
		latencyRec("1", 1, 100, 21, 45000), latencyRec("1", 2, 200, 23, 43000),
		udpRec("1", 1, 0, 0.01), udpRec("1", 2, 0.5, 0.03),
		routed, routed2,
	})
	if len(gs) != 3 {
		t.Fatalf("%d groups", len(gs))
	}
	lat, udp, fw := gs[0], gs[1], gs[2]
	for _, c := range []struct {
		name string
		g    CellGroup
		key  string
		mean float64
	}{
		{"p99", lat, MetricLatencyP99, 150}, {"mean latency", lat, MetricLatencyMean, 22},
		{"transactions", lat, MetricTransactions, 44000}, {"loss", udp, MetricLoss, 0.25},
		{"jitter", udp, MetricJitter, 0.02}, {"packets", udp, MetricPackets, 500},
		{"router CPU", fw, MetricRouterCPU, 50},
	} {
		s := c.g.Metric(c.key)
		if s.N != 2 || math.Abs(s.Mean-c.mean) > 1e-9 || !s.Known {
			t.Errorf("%s: %+v, want mean %v over 2 runs", c.name, s, c.mean)
		}
	}
	// A metric no run measured is absent, not a zero with N > 0.
	if s := fw.Metric(MetricLatencyP99); s.N != 0 {
		t.Errorf("router pair has latency %+v", s)
	}
	if s := lat.Metric(MetricLoss); s.N != 0 {
		t.Errorf("TCP cell has loss %+v", s)
	}
	// Zero loss is a measurement on UDP runs.
	if s := udp.Metric(MetricLoss); s.Min != 0 {
		t.Errorf("loss min %v", s.Min)
	}
	if len(lat.Repeats) != 2 || lat.Repeats[0].Repeat != 1 {
		t.Errorf("repeats %d", len(lat.Repeats))
	}
	keys := func(ms []Metric) string {
		var k []string
		for _, m := range ms {
			k = append(k, m.Key)
		}
		return strings.Join(k, ",")
	}
	if got := keys(Measured(gs[2:])); got != "throughput_bps,retransmits,server_cpu_pct,client_cpu_pct,router_cpu_pct" {
		t.Errorf("measured of the routed cell: %s", got)
	}
}
