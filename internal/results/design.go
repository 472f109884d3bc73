package results

import "strings"

// BlockDesign names how a run's repeats were laid out (RunInfo.Design).
const (
	// DesignFoldover: blocks come in twos, the second the first's reverse
	// (ABBA for two cells): a linear drift cancels within every two
	// blocks. order = "random" since this design.
	DesignFoldover = "foldover"
	// DesignBlocks: randomized complete blocks (order = "random" before
	// the foldover, and the runs that recorded no design).
	DesignBlocks = "blocks"
	// DesignRounds: each block in matrix order (order = "interleaved").
	DesignRounds = "rounds"
	// DesignSequential: each cell's repeats back to back: a repeat number
	// is no block, the runs of one repeat are far apart in time.
	DesignSequential = "sequential"
)

// DesignDuet is the duet design: each repeat ran the experiment's two cells at once, one on
// each of two pairs, the pairs swapped every second repeat (design =
// "duet"): a unit is the mean of two repeats' log-ratios.
const DesignDuet = "duet"

// groupPair is the pair Group files r under: a duet's runs of one cell ran
// on both pairs, alternately, so they form one group named for both
// ("a+b"); every other run its own pair.
func groupPair(r Record) string {
	if r.design == DesignDuet && r.Flow != nil && len(r.Flow.Pairs) > 1 {
		return strings.Join(r.Flow.Pairs, "+")
	}
	return r.Pair
}

// RecordedDesign is the block design g's runs were loaded with
// (RunInfo.DesignOf, through Store.Load); DesignBlocks when they carry none.
func RecordedDesign(g CellGroup) string {
	for _, r := range g.Repeats {
		if r.design != "" {
			return r.design
		}
	}
	return DesignBlocks
}
