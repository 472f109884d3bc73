package results

import (
	"math"
	"slices"
	"time"

	"github.com/lab-bench/lab/bench"
)

// Flow is how one run of a concurrent experiment ran with the others of its
// cell and repeat: which pairs' flows started together, when its client
// started, and how far apart the clients' starts were.
type Flow struct {
	// Pairs are the pairs whose flows ran together, this one's included,
	// in the experiment's pair order.
	Pairs []string `json:"pairs"`
	// ClientStart is when this flow's client started (Raw.Start: after
	// its server listened and every flow's gate opened).
	ClientStart time.Time `json:"client_start"`
	// SkewMs is the latest minus the earliest client start among the
	// flows, in milliseconds; SkewBoundMs is the bound lab holds it to
	// (a run above it is warned about, and Aggregate counts it).
	SkewMs      float64 `json:"skew_ms"`
	SkewBoundMs float64 `json:"skew_bound_ms"`
}

// Skew is the latest minus the earliest of starts (zero ones left out).
func Skew(starts []time.Time) time.Duration {
	var lo, hi time.Time
	for _, s := range starts {
		if s.IsZero() {
			continue
		}
		if lo.IsZero() || s.Before(lo) {
			lo = s
		}
		if hi.IsZero() || s.After(hi) {
			hi = s
		}
	}
	return hi.Sub(lo)
}

// Aggregate is the sum of a concurrent cell's flows: per repeat, the
// throughputs of all its flows added up (seed 001's "4.94 + 4.95"),
// summarised over the repeats in which every flow succeeded.
type Aggregate struct {
	// Pairs are the flows summed, in the experiment's pair order.
	Pairs []string `json:"pairs"`
	// N is the number of repeats summed: those where every flow of Pairs
	// has a successful record.
	N int `json:"n"`
	// ThroughputBps summarises the per-repeat sums, in bits per second.
	ThroughputBps Summary `json:"throughput_bps"`
	// MaxSkewMs is the largest start skew of the summed repeats, and
	// OverBound how many of them exceeded SkewBoundMs.
	MaxSkewMs   float64 `json:"max_skew_ms"`
	SkewBoundMs float64 `json:"skew_bound_ms"`
	OverBound   int     `json:"over_bound,omitempty"`
}

// attachAggregates sets Aggregate on every group that is a flow of a
// concurrent cell: all the flows of one experiment and cell share it.
func attachAggregates(groups []CellGroup) {
	type cellKey struct{ exp, cell string }
	type repeatKey struct {
		run    string
		repeat int
	}
	type acc struct {
		pairs   []string
		repeats map[repeatKey][]Record
		order   []repeatKey
	}
	accs := map[cellKey]*acc{}
	for _, g := range groups {
		for _, r := range g.Repeats {
			if r.Flow == nil || len(r.Flow.Pairs) < 2 || r.design == DesignDuet {
				continue // a duet's flows are two cells, not one cell's share
			}
			k := cellKey{g.Experiment, g.CellKey}
			a := accs[k]
			if a == nil {
				a = &acc{pairs: r.Flow.Pairs, repeats: map[repeatKey][]Record{}}
				accs[k] = a
			}
			rk := repeatKey{r.RunID, r.Repeat}
			if _, ok := a.repeats[rk]; !ok {
				a.order = append(a.order, rk)
			}
			a.repeats[rk] = append(a.repeats[rk], r)
		}
	}
	for k, a := range accs {
		agg := &Aggregate{Pairs: a.pairs}
		var sums []float64
		for _, rk := range a.order {
			recs := a.repeats[rk]
			if !allFlows(recs, a.pairs) {
				continue
			}
			var sum float64
			for _, r := range recs {
				sum += r.Metrics.ThroughputBps
				agg.MaxSkewMs = max(agg.MaxSkewMs, r.Flow.SkewMs)
				agg.SkewBoundMs = max(agg.SkewBoundMs, r.Flow.SkewBoundMs)
			}
			if r := recs[0].Flow; r.SkewBoundMs > 0 && r.SkewMs > r.SkewBoundMs {
				agg.OverBound++
			}
			sums = append(sums, sum)
		}
		agg.N = len(sums)
		agg.ThroughputBps = Summarize(sums).Clamp(0, math.Inf(1))
		for i := range groups {
			if groups[i].Experiment == k.exp && groups[i].CellKey == k.cell && slices.Contains(a.pairs, groups[i].Pair) {
				groups[i].Aggregate = agg
			}
		}
	}
}

// allFlows says whether recs hold one successful record of every pair.
func allFlows(recs []Record, pairs []string) bool {
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Pair] = true
	}
	for _, p := range pairs {
		if !seen[p] {
			return false
		}
	}
	return len(recs) == len(pairs)
}

// Background is the load run on a pair while its measured benchmark ran
// (latency under load): its parameters, output and parsed figures. A load
// that failed leaves the measurement standing, Error saying why (the
// measurement then ran without all of its load).
type Background struct {
	Params  bench.Params `json:"params"`
	Metrics bench.Sample `json:"metrics"`
	Raw     bench.Raw    `json:"raw"`
	Error   string       `json:"error,omitempty"`
}
