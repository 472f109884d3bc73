package iperf3

import (
	"encoding/json"

	"github.com/lab-bench/lab/bench"
)

// serverReport is the part of iperf3's server -J output that
// receiverIntervals reads: each interval's sum (iperf_api.c writes the
// same "intervals" array on both ends).
type serverReport struct {
	Intervals []struct {
		Sum struct {
			Start         float64 `json:"start"`
			End           float64 `json:"end"`
			BitsPerSecond float64 `json:"bits_per_second"`
			Omitted       bool    `json:"omitted"`
		} `json:"sum"`
	} `json:"intervals"`
}

// receiverIntervals are a UDP run's intervals as the receiver counted
// them, read from the server's JSON (the client's intervals are the rate
// it sent); nil when the output is empty, does not parse or has none.
func receiverIntervals(server string) []bench.Interval {
	var out serverReport
	if server == "" || json.Unmarshal([]byte(server), &out) != nil {
		return nil
	}
	var ivs []bench.Interval
	for _, iv := range out.Intervals {
		// The server's last interval can be a sliver (3.000–3.0004 s) after
		// the client stopped, whose rate says nothing: one shorter than
		// half the first interval is left out.
		if len(ivs) > 0 && iv.Sum.End-iv.Sum.Start < (ivs[0].End-ivs[0].Start)/2 {
			continue
		}
		ivs = append(ivs, bench.Interval{Start: iv.Sum.Start, End: iv.Sum.End, Bps: iv.Sum.BitsPerSecond, Omitted: iv.Sum.Omitted})
	}
	return ivs
}
