package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// TestAggregateShown: the table, markdown and JSON formats show a
// concurrent cell's sum of flows beside each flow's own row; a run without
// concurrent flows shows none.
func TestAggregateShown(t *testing.T) {
	var recs []results.Record
	for rep, gbps := range [][2]float64{{4.94, 4.95}, {5.06, 5.05}} {
		for i, pair := range []string{"c1", "c2"} {
			recs = append(recs, results.Record{RunID: "r", Experiment: "flows", Pair: pair, CellKey: "mtu=9000",
				Cell: []results.CellValue{{Name: "mtu", Value: "9000"}}, Repeat: rep + 1,
				Metrics: bench.Sample{ThroughputBps: gbps[i] * 1e9},
				Flow:    &results.Flow{Pairs: []string{"c1", "c2"}, SkewMs: 2.5 + float64(rep), SkewBoundMs: 100}})
		}
	}
	lone := []results.Record{{RunID: "r", Experiment: "one", Pair: "c1", Repeat: 1, Metrics: bench.Sample{ThroughputBps: 1e9}}}
	want := "flows mtu=9000: c1 + c2 = 10.00 ± 1.40 Gb/s (n 2); clients started ≤ 3.5 ms apart (bound 100 ms)"
	tests := []struct {
		format string
		recs   []results.Record
		want   []string
		not    []string
	}{
		{"table", recs, []string{aggregateHeading, "  " + want}, nil},
		{"markdown", recs, []string{"Concurrent flows, summed per repeat", "- " + want}, nil},
		{"json", recs, []string{`"aggregate": {`, `"pairs": [`, `"max_skew_ms": 3.5`}, nil},
		{"html", recs, []string{`<h2 id="aggregates">Concurrent flows</h2>`, "<li>" + strings.ReplaceAll(want, "+", "&#43;") + "</li>"}, nil},
		{"html", lone, nil, []string{`id="aggregates"`}},
		{"table", lone, nil, []string{"concurrent flows"}},
		{"json", lone, nil, []string{"aggregate"}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, tc.format, results.RunInfo{ID: "r", Lab: "l"}, results.Group(tc.recs), Options{}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("lacks %q:\n%s", w, b.String())
				}
			}
			for _, w := range tc.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("shows %q:\n%s", w, b.String())
				}
			}
		})
	}
}
