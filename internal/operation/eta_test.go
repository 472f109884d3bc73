package operation

import (
	"testing"
	"time"
)

func TestETA(t *testing.T) {
	s := time.Second
	tests := []struct {
		name     string
		planned  []time.Duration
		finished []time.Duration // actual durations of runs 1..n
		index    int
		inRun    time.Duration
		want     time.Duration
	}{
		{"nothing finished: the plan", []time.Duration{3 * s, 3 * s, 3 * s}, nil, 1, 0, 9 * s},
		{"in the middle of a run", []time.Duration{3 * s, 3 * s, 3 * s}, nil, 1, 2 * s, 7 * s},
		{"runs twice as slow as planned", []time.Duration{3 * s, 3 * s, 3 * s}, []time.Duration{6 * s}, 2, 0, 12 * s},
		{"overrun: never negative", []time.Duration{3 * s}, nil, 1, 10 * s, 0},
		{"past the end", []time.Duration{3 * s}, nil, 2, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := &ETA{Planned: tc.planned}
			for i, d := range tc.finished {
				e.Finished(i+1, d)
			}
			if got := e.Left(tc.index, tc.inRun); got != tc.want {
				t.Errorf("left = %s, want %s", got, tc.want)
			}
		})
	}
	var nilETA *ETA
	if nilETA.Text(1, 0) != "" || nilETA.Left(1, 0) != 0 {
		t.Error("a nil eta shows an estimate")
	}
}
