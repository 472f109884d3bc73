package results

import (
	"testing"
	"time"
)

// The per-run overhead a budget's plan reads from the last run: the
// median gap between one run's end and the next's start within an apply
// (configuring, verifying and starting the tools), leaving out gaps
// across applies and warm-up-free pauses longer than MaxRunGap.
func TestMeasuredOverhead(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	run := func(apply string, start, length time.Duration) Record {
		return Record{Start: t0.Add(start), End: t0.Add(start + length), Provenance: Provenance{Apply: apply}}
	}
	for _, tc := range []struct {
		name string
		recs []Record
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", []Record{run("a", 0, 5*time.Second)}, 0},
		{"median of gaps", []Record{run("a", 0, 5*time.Second), run("a", 7*time.Second, 5*time.Second),
			run("a", 15*time.Second, 5*time.Second), run("a", 30*time.Second, 5*time.Second)}, 3 * time.Second}, // gaps 2, 3, 10
		{"out of order, another apply", []Record{run("a", 7*time.Second, 5*time.Second), run("a", 0, 5*time.Second),
			run("b", 13*time.Second, 5*time.Second)}, 2 * time.Second},
		{"long pause left out", []Record{run("a", 0, 5*time.Second), run("a", 5*time.Second+MaxRunGap+time.Second, 5*time.Second)}, 0},
	} {
		if got := MeasuredOverhead(tc.recs); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
