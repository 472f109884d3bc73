package verdicts

import (
	"fmt"

	"github.com/lab-bench/lab/internal/results"
)

// Shape compares a cell with the reference cell (the first cell of its
// experiment and pair) in a published and a new run: how much did the
// ratio cell / reference change? Each run's ratio is estimated paired by
// block (PairedRatio), and the change is judged with a magnitude
// (JudgeShapeChange): reproduced, not reproduced or inconclusive.
type Shape struct {
	Experiment string `json:"experiment"`
	Pair       string `json:"pair"`
	CellKey    string `json:"cell_key"`
	Reference  string `json:"reference_cell_key"`
	// ReferencePair is set on a duet shape (duetShapes): the same cell on
	// the experiment's first pair, whose flow ran at once with this one.
	ReferencePair string `json:"reference_pair,omitempty"`
	// Published and New are the ratios of the arithmetic means cell /
	// reference, for reading; the verdict is on PublishedShape and
	// NewShape, the block-paired geometric ratios.
	Published      float64  `json:"published_ratio"`
	New            float64  `json:"new_ratio"`
	PublishedShape LogRatio `json:"published_shape"`
	NewShape       LogRatio `json:"new_shape"`
	ShapeChange
}

// ShapeOptions tune Shapes.
type ShapeOptions struct {
	// Metric is the metric's key (Metrics); "" means throughput.
	Metric string
	// Margin is the shape margin, a fraction (DefaultShapeMargin when < 0).
	Margin float64
	// PublishedDesign and NewDesign give each run's block design of an
	// experiment (RunInfo.DesignOf); nil takes the design the records were
	// loaded with (RecordedDesign).
	PublishedDesign, NewDesign func(experiment string) string
}

// Shapes compares the shape of two runs: for each experiment and pair of
// the published groups, every other cell against the first cell, its
// block-paired ratio in the published run against the new run's
// (JudgeShapeChange). A run whose experiment ran sequentially has no
// blocks: its shapes are inconclusive and say so. A concurrent
// experiment's cells flown on several pairs add their duet shapes
// (duetShapes): each pair over the first, paired by repeat.
func Shapes(published, new []results.CellGroup, o ShapeOptions) []Shape {
	if o.Metric == "" {
		o.Metric = results.MetricThroughput
	}
	if o.Margin < 0 {
		o.Margin = DefaultShapeMargin
	}
	type key struct{ exp, pair, cell string }
	newByKey := map[key]results.CellGroup{}
	for _, g := range new {
		newByKey[key{g.Experiment, g.Pair, g.CellKey}] = g
	}
	refs := map[key]results.CellGroup{} // experiment and pair → their first cell
	var out []Shape
	for _, g := range published {
		rk := key{g.Experiment, g.Pair, ""}
		ref, seen := refs[rk]
		if !seen {
			refs[rk] = g
			continue
		}
		s := Shape{Experiment: g.Experiment, Pair: g.Pair, CellKey: g.CellKey, Reference: ref.CellKey}
		s.Published = meanRatio(g, ref, o.Metric)
		ng, okg := newByKey[key{g.Experiment, g.Pair, g.CellKey}]
		nref, okr := newByKey[key{ref.Experiment, ref.Pair, ref.CellKey}]
		pd, nd := designOf(o.PublishedDesign, g), designOf(o.NewDesign, ng)
		s.PublishedShape = PairedRatio(g, ref, o.Metric, pd)
		if okg && okr {
			s.New = meanRatio(ng, nref, o.Metric)
			s.NewShape = PairedRatio(ng, nref, o.Metric, nd)
		}
		s.ShapeChange = JudgeShapeChange(s.PublishedShape, s.NewShape, o.Margin)
		switch {
		case !okg || !okr:
			s.Verdict, s.Note = Inconclusive, "a cell of the shape is not in the new run"
		case !Pairable(pd) || !Pairable(nd):
			s.Verdict = Inconclusive
			s.Note = fmt.Sprintf("designs %s and %s: a sequential run has no blocks to pair", pd, nd)
		case pd != nd && s.Note == "":
			s.Note = fmt.Sprintf("designs %s and %s", pd, nd)
		}
		out = append(out, s)
	}
	return append(out, duetShapes(published, new, o)...)
}

// designOf is design(g's experiment); when design is nil or says nothing,
// the design g's records were loaded with (RecordedDesign).
func designOf(design func(string) string, g results.CellGroup) string {
	if design != nil {
		if d := design(g.Experiment); d != "" {
			return d
		}
	}
	return results.RecordedDesign(g)
}

// meanRatio is the ratio of the arithmetic means of the metric, of / over
// (0 when over's is 0).
func meanRatio(of, over results.CellGroup, metric string) float64 {
	a, b := of.Metric(metric), over.Metric(metric)
	if b.Mean == 0 {
		return 0
	}
	return a.Mean / b.Mean
}
