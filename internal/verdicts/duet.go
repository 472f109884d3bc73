package verdicts

import (
	"time"

	"github.com/lab-bench/lab/internal/results"
)

// Duet shapes: in an experiment with concurrent = true, the pairs' flows of
// one cell and repeat start at the same moment (Record.Flow), so whatever
// the machine does to one flow in that moment it does to the other. When
// the pairs differ (pair a at link MTU 1500, pair b at 9000: a duet, Bulej
// et al., ICPE 2020), the ratio of pair b's flow to pair a's in the same
// repeat cancels that noise: `make duet` measured a unit SD of 0.059
// against the foldover's 0.398 at load 10–32, an MDE in 10 minutes of
// 3.7 % against 75.6 % (docs/ci-recipe.md, "Duet or foldover").
//
// duetShapes gives those ratios as shapes, so that reproduce judges them
// as it judges a cell over its pair's first cell: pair k over the
// experiment's first pair, the same cell, paired by repeat.

// duetShapes are the cross-pair shapes of published's concurrent
// experiments against new's: for each cell flown on several pairs, each
// pair after the first over the first, paired by repeat (a repeat's flows
// ran at once), judged with o.Margin.
func duetShapes(published, new []results.CellGroup, o ShapeOptions) []Shape {
	type key struct{ exp, pair, cell string }
	newByKey := map[key]results.CellGroup{}
	for _, g := range new {
		newByKey[key{g.Experiment, g.Pair, g.CellKey}] = g
	}
	first := map[key]results.CellGroup{} // experiment and cell → its group on the first pair
	var out []Shape
	for _, g := range published {
		if !concurrent(g) || results.RecordedDesign(g) == results.DesignDuet {
			continue
		}
		fk := key{g.Experiment, "", g.CellKey}
		ref, seen := first[fk]
		if !seen {
			first[fk] = g
			continue
		}
		s := Shape{Experiment: g.Experiment, Pair: g.Pair, CellKey: g.CellKey, Reference: ref.CellKey, ReferencePair: ref.Pair}
		s.Published = meanRatio(g, ref, o.Metric)
		s.PublishedShape = PairedRatio(g, ref, o.Metric, results.DesignBlocks)
		ng, okg := newByKey[key{g.Experiment, g.Pair, g.CellKey}]
		nref, okr := newByKey[key{ref.Experiment, ref.Pair, ref.CellKey}]
		if okg && okr {
			s.New = meanRatio(ng, nref, o.Metric)
			s.NewShape = PairedRatio(ng, nref, o.Metric, results.DesignBlocks)
		}
		s.ShapeChange = JudgeShapeChange(s.PublishedShape, s.NewShape, o.Margin)
		switch {
		case !okg || !okr:
			s.Verdict, s.Note = Inconclusive, "a pair of the duet is not in the new run"
		case !concurrent(ng) || !concurrent(nref):
			s.Verdict, s.Note = Inconclusive, "the new run's flows did not run at once: no repeats to pair"
		}
		out = append(out, s)
	}
	return out
}

// concurrent reports whether g's runs are flows of a concurrent experiment
// (a successful run carries Record.Flow).
func concurrent(g results.CellGroup) bool {
	for _, r := range g.Repeats {
		if r.Flow != nil && len(r.Flow.Pairs) > 1 {
			return true
		}
	}
	return false
}

// DuetSkewBound bounds how far apart a duet unit's two flows may start, as
// a fraction of the flow's measured window (Raw.End − Raw.Start): a block
// whose flows' windows started further apart (Flow.SkewMs) overlapped less
// than 90 % and is left out of the shape and counted (LogRatio.Skewed).
// The engine's start gate keeps local flows within milliseconds
// (engine.MaxFlowSkew warns above 100 ms); 10 % of a 2 s run is 200 ms.
const DuetSkewBound = 0.10

// duetSkewed reports whether r's flow started further from its partner's
// than DuetSkewBound of its window.
func duetSkewed(r results.Record) bool {
	if r.Flow == nil {
		return false
	}
	w := r.Raw.End.Sub(r.Raw.Start)
	return w > 0 && r.Flow.SkewMs > DuetSkewBound*float64(w)/float64(time.Millisecond)
}

// dropSkewed removes from values (by block, blockValues) the blocks whose
// run of g was skewed (duetSkewed).
func dropSkewed(values map[block]float64, g results.CellGroup) {
	for _, r := range g.Repeats {
		if duetSkewed(r) {
			delete(values, block{r.RunID, r.Repeat})
		}
	}
}

// skewedBlocks counts the blocks left out of a duet's shape of of over
// over because a flow of theirs was skewed.
func skewedBlocks(of, over results.CellGroup) int {
	seen := map[block]bool{}
	for _, g := range []results.CellGroup{of, over} {
		for _, r := range g.Repeats {
			if !r.Warmup && duetSkewed(r) {
				seen[block{r.RunID, r.Repeat}] = true
			}
		}
	}
	return len(seen)
}

// folds reports whether design's units are two blocks, 2k−1 and 2k: a
// foldover's block and its reverse, or a duet's repeat and its swap.
func folds(design string) bool {
	return design == results.DesignFoldover || design == results.DesignDuet
}
