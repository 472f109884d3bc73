package results

import (
	"cmp"
	"slices"
	"time"
)

// MaxRunGap is the longest gap between two runs that MeasuredOverhead
// counts as per-run overhead; a longer one is a pause (machines created,
// a host waited for), not what every run costs.
const MaxRunGap = 2 * time.Minute

// MeasuredOverhead is the per-run overhead the records show: the median
// gap between one run's end and the next run's start of the same apply
// (configuring and verifying both ends, starting the tools, recording),
// gaps longer than MaxRunGap left out; 0 when there is no such gap.
func MeasuredOverhead(recs []Record) time.Duration {
	rs := slices.Clone(recs)
	slices.SortFunc(rs, func(a, b Record) int { return a.Start.Compare(b.Start) })
	var gaps []time.Duration
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		g := b.Start.Sub(a.End)
		if a.Provenance.Apply != b.Provenance.Apply || g < 0 || g > MaxRunGap {
			continue
		}
		gaps = append(gaps, g)
	}
	if len(gaps) == 0 {
		return 0
	}
	slices.SortFunc(gaps, cmp.Compare)
	return gaps[len(gaps)/2]
}
