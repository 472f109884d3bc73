package results

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
)

// flowRec is one flow's record of a concurrent cell.
func flowRec(pair string, repeat int, gbps, skewMs float64, failed bool) Record {
	r := Record{RunID: "r1", Experiment: "e", Pair: pair, CellKey: "mtu=1500", Repeat: repeat,
		Metrics: bench.Sample{ThroughputBps: gbps * 1e9},
		Flow:    &Flow{Pairs: []string{"a", "b"}, SkewMs: skewMs, SkewBoundMs: 100}}
	if failed {
		r.Error = "iperf3 exited 1"
		r.Metrics = bench.Sample{}
	}
	return r
}

// TestAggregates: each flow's group carries the cell's sum over the
// repeats in which every flow succeeded; lone runs carry none.
func TestAggregates(t *testing.T) {
	tests := []struct {
		name      string
		recs      []Record
		n         int
		mean      float64 // Gb/s
		maxSkew   float64
		overBound int
	}{
		{"two flows, two repeats", []Record{
			flowRec("a", 1, 4.94, 3, false), flowRec("b", 1, 4.95, 3, false),
			flowRec("a", 2, 5.06, 7, false), flowRec("b", 2, 5.05, 7, false),
		}, 2, 10, 7, 0},
		{"a failed flow leaves its repeat out", []Record{
			flowRec("a", 1, 2.0, 1, false), flowRec("b", 1, 2.4, 1, false),
			flowRec("a", 2, 9.0, 1, false), flowRec("b", 2, 0, 1, true),
		}, 1, 4.4, 1, 0},
		{"skew over the bound is counted", []Record{
			flowRec("a", 1, 1, 150, false), flowRec("b", 1, 1, 150, false),
		}, 1, 2, 150, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups := Group(tc.recs)
			if len(groups) != 2 {
				t.Fatalf("%d groups, want one per flow", len(groups))
			}
			for _, g := range groups {
				a := g.Aggregate
				if a == nil {
					t.Fatalf("group %s has no aggregate", g.Pair)
				}
				if a.N != tc.n || math.Abs(a.ThroughputBps.Mean/1e9-tc.mean) > 1e-9 || a.MaxSkewMs != tc.maxSkew || a.OverBound != tc.overBound {
					t.Errorf("%s: aggregate n=%d mean=%g Gb/s skew=%g over=%d, want n=%d mean=%g skew=%g over=%d",
						g.Pair, a.N, a.ThroughputBps.Mean/1e9, a.MaxSkewMs, a.OverBound, tc.n, tc.mean, tc.maxSkew, tc.overBound)
				}
				if groups[0].Aggregate != groups[1].Aggregate {
					t.Errorf("the flows of one cell do not share their aggregate")
				}
			}
		})
	}
	lone := Group([]Record{{Experiment: "e", Pair: "a", CellKey: "x", Repeat: 1, Metrics: bench.Sample{ThroughputBps: 1e9}}})
	if lone[0].Aggregate != nil {
		t.Errorf("a lone run's group has an aggregate")
	}
	b, _ := json.Marshal(lone)
	if strings.Contains(string(b), "aggregate") {
		t.Errorf("a lone run's JSON names an aggregate: %s", b)
	}
}

func TestSkew(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	tests := []struct {
		starts []time.Time
		want   time.Duration
	}{
		{nil, 0},
		{[]time.Time{t0}, 0},
		{[]time.Time{t0.Add(30 * time.Millisecond), t0, t0.Add(10 * time.Millisecond)}, 30 * time.Millisecond},
		{[]time.Time{{}, t0, t0.Add(time.Millisecond)}, time.Millisecond},
	}
	for _, tc := range tests {
		if got := Skew(tc.starts); got != tc.want {
			t.Errorf("Skew(%v) = %v, want %v", tc.starts, got, tc.want)
		}
	}
}
