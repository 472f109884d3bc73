package engine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/results"
)

// overlapStep is one thing the engine tells the overlap log, in order:
// unit start begins while the units with are in flight; run measuring
// starts its benchmark at second at; run done is recorded with its
// benchmark's measured window [from, to] (from == to == -1: it failed
// before measuring).
type overlapStep struct {
	start    int
	with     []int
	measure  int
	at       int
	done     int
	from, to int
}

// TestOverlapLogMeasuredWindows feeds the overlap log hand-made schedules
// of four single-run units (runs 1-4) and wants each record to list
// exactly the runs whose measured windows intersect its own — not every
// run that was in flight at some moment while it was (configuring,
// starting its server, or already done measuring) — and the two records
// of a pair to agree.
func TestOverlapLogMeasuredWindows(t *testing.T) {
	start := func(u int, with ...int) overlapStep { return overlapStep{start: u, with: with} }
	measure := func(run, at int) overlapStep { return overlapStep{measure: run, at: at} }
	done := func(run, from, to int) overlapStep { return overlapStep{done: run, from: from, to: to} }
	tests := []struct {
		name  string
		steps []overlapStep
		want  map[int][]int // run → runs its record lists
	}{
		{"in flight together, measured one after the other", []overlapStep{
			start(1), start(2, 1), measure(1, 0), done(1, 0, 10), measure(2, 12), done(2, 12, 20),
		}, map[int][]int{1: nil, 2: nil}},
		{"measured at the same time", []overlapStep{
			start(1), start(2, 1), measure(1, 0), measure(2, 3), done(1, 0, 10), done(2, 3, 13),
		}, map[int][]int{1: {2}, 2: {1}}},
		{"the later one finishes first", []overlapStep{
			start(1), start(2, 1), measure(1, 0), measure(2, 3), done(2, 3, 6), done(1, 0, 10),
		}, map[int][]int{1: {2}, 2: {1}}},
		{"started while the other configured, measured after it", []overlapStep{
			start(1), measure(1, 0), start(2, 1), done(1, 0, 10), measure(2, 11), done(2, 11, 20),
		}, map[int][]int{1: nil, 2: nil}},
		{"a run that failed before measuring overlaps nothing", []overlapStep{
			start(1), start(2, 1), measure(1, 0), done(2, -1, -1), done(1, 0, 10),
		}, map[int][]int{1: nil, 2: nil}},
		{"a chain: 2 meets 1 and 3, 1 and 3 do not meet", []overlapStep{
			start(1), start(2, 1), start(3, 1, 2), measure(1, 0), measure(2, 5), done(1, 0, 8),
			measure(3, 9), done(2, 5, 12), done(3, 9, 15), start(4, 3), measure(4, 16), done(4, 16, 20),
		}, map[int][]int{1: {2}, 2: {1, 3}, 3: {2}, 4: nil}},
	}
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var us []unit
			for i := 1; i <= 4; i++ {
				us = append(us, unit{{r: plan.Run{Index: i, Experiment: "e", Pair: fmt.Sprint("p", i), CellKey: "n=0", Repeat: 1}}})
			}
			l := newOverlapLog(us)
			got := map[int][]int{}
			for _, s := range tc.steps {
				switch {
				case s.start != 0:
					var with []int
					for _, w := range s.with {
						with = append(with, w-1)
					}
					l.started(s.start-1, fp(fmt.Sprint("h", s.start)), with)
				case s.measure != 0:
					l.measuring(s.measure, at(s.at))
				case s.done != 0:
					rec := results.Record{}
					if s.from >= 0 {
						rec.Raw = bench.Raw{Start: at(s.from), End: at(s.to)}
					}
					l.annotate(&rec, us[s.done-1][0].r)
					got[s.done] = nil
					for _, o := range rec.Provenance.Overlapped {
						n := 0
						fmt.Sscanf(o.Pair, "p%d", &n)
						got[s.done] = append(got[s.done], n)
					}
					slices.Sort(got[s.done])
				}
			}
			for run, want := range tc.want {
				if !slices.Equal(got[run], want) {
					t.Errorf("run %d's record lists runs %v, want %v", run, got[run], want)
				}
			}
			var names []string
			for run := range got {
				names = append(names, fmt.Sprint(run))
			}
			if len(got) != len(tc.want) {
				t.Errorf("records of runs %s, want %d", strings.Join(names, ","), len(tc.want))
			}
		})
	}
}
