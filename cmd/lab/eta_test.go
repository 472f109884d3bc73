package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/engine"
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
			e := &eta{planned: tc.planned}
			for i, d := range tc.finished {
				e.finished(i+1, d)
			}
			if got := e.left(tc.index, tc.inRun); got != tc.want {
				t.Errorf("left = %s, want %s", got, tc.want)
			}
		})
	}
	var nilETA *eta
	if nilETA.text(1, 0) != "" || nilETA.left(1, 0) != 0 {
		t.Error("a nil eta shows an estimate")
	}
}

// TestProgressLineShowsETA: off a terminal, each run's line says how long
// the apply has left.
func TestProgressLineShowsETA(t *testing.T) {
	var out bytes.Buffer
	v := newHumanView(&out, false)
	v.setETA(&eta{planned: []time.Duration{61 * time.Second, 61 * time.Second}})
	v.Event(engine.Event{Type: engine.EvRun, Index: 1, Total: 2, Experiment: "e", Pair: "p", Cell: "mtu=1500", Repeat: 1})
	if !strings.Contains(out.String(), "[1/2] e/p mtu=1500 #1: running  (about 2m0s left)") {
		t.Errorf("progress line: %q", out.String())
	}
}
