package report

import (
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/results"
)

// TestSampleCarriesDetail: a record whose parsed sample carries the
// receiver's intervals and the round-trip histogram is drawn from them,
// with no raw output to re-parse; a record from before the sample carried
// them (raw output only) still is.
func TestSampleCarriesDetail(t *testing.T) {
	for _, tc := range []struct {
		name, example string
		oldRecord     bool // the raw output only, no detail in the sample
	}{
		{"udp from the sample", "udp", false},
		{"udp from an old record's raw output", "udp", true},
		{"latency from the sample", "latency", false},
		{"latency from an old record's raw output", "latency", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, recs := loadExample(t, tc.example)
			for i := range recs {
				r := &recs[i]
				fresh := sampleOf(*r, false)
				r.Metrics.ReceiverIntervals = nil
				if r.Metrics.Latency != nil {
					r.Metrics.Latency.Histogram = nil
				}
				if tc.oldRecord {
					continue
				}
				// What a run writes today: the tool's parsed sample; the
				// raw output is there to read, not for the report.
				r.Metrics.ReceiverIntervals = fresh.ReceiverIntervals
				if r.Metrics.Latency != nil && fresh.Latency != nil {
					r.Metrics.Latency.Histogram = fresh.Latency.Histogram
				}
				r.Raw = bench.Raw{}
			}
			groups := results.Group(recs)
			if tc.example == "latency" {
				if p, err := cdfPanel(groups); err != nil || p == nil {
					t.Fatalf("no CDF: %v", err)
				}
				return
			}
			received := 0
			for _, g := range groups {
				if ivs, side := seriesOf(g.Repeats[0]); side == "received" && len(ivs) > 0 {
					received++
				}
			}
			if received == 0 {
				t.Error("no UDP cell plots what the receiver got")
			}
		})
	}
}
