package results

// Shape verdicts.
const (
	// ShapeHolds: the published run shows the cell significantly above
	// (or below) the reference cell, and the new run shows it too.
	ShapeHolds = "holds"
	// ShapeReversed: the new run shows the opposite, significantly.
	ShapeReversed = "reversed"
	// ShapeInconclusive: the new run's ratio is not significantly on
	// either side of 1 (or cannot be computed).
	ShapeInconclusive = "inconclusive"
	// ShapeNoClaim: the published run does not tell the two cells apart,
	// so there is no shape to reproduce.
	ShapeNoClaim = "no claim"
)

// Shape compares a cell with the reference cell (the first cell of its
// experiment and pair) in a published and a new run: does the new run
// order them the same way?
type Shape struct {
	Experiment string `json:"experiment"`
	Pair       string `json:"pair"`
	CellKey    string `json:"cell_key"`
	Reference  string `json:"reference_cell_key"`
	// Published and New are the ratios cell / reference of the means,
	// with their 95 % Fieller intervals (0, 0 when unbounded).
	Published    float64 `json:"published_ratio"`
	PublishedLow float64 `json:"published_low"`
	PublishedHi  float64 `json:"published_high"`
	New          float64 `json:"new_ratio"`
	NewLow       float64 `json:"new_low"`
	NewHigh      float64 `json:"new_high"`
	Verdict      string  `json:"verdict"`
}

// Shapes compares the shape of two runs: for each experiment and pair of
// the published groups, the ratio of every other cell's metric to the
// first cell's. A ratio whose 95 % Fieller interval lies above 1 in the
// published run must lie above 1 in the new one (holds), below 1 is
// reversed, across 1 inconclusive; likewise below 1.
func Shapes(published, new []CellGroup, metric string) []Shape {
	type key struct{ exp, pair, cell string }
	newByKey := map[key]CellGroup{}
	for _, g := range new {
		newByKey[key{g.Experiment, g.Pair, g.CellKey}] = g
	}
	refs := map[key]CellGroup{} // experiment and pair → their first cell
	var out []Shape
	for _, g := range published {
		rk := key{g.Experiment, g.Pair, ""}
		ref, seen := refs[rk]
		if !seen {
			refs[rk] = g
			continue
		}
		s := Shape{Experiment: g.Experiment, Pair: g.Pair, CellKey: g.CellKey, Reference: ref.CellKey}
		pm, pr := g.Metric(metric), ref.Metric(metric)
		if pr.Mean != 0 {
			s.Published = pm.Mean / pr.Mean
		}
		lo, hi, ok := Fieller(pm, pr, 0.05)
		if ok {
			s.PublishedLow, s.PublishedHi = lo, hi
		}
		want := side(lo, hi, ok)
		ng, okg := newByKey[key{g.Experiment, g.Pair, g.CellKey}]
		nref, okr := newByKey[key{ref.Experiment, ref.Pair, ref.CellKey}]
		got := 0
		if okg && okr {
			nm, nr := ng.Metric(metric), nref.Metric(metric)
			if nr.Mean != 0 {
				s.New = nm.Mean / nr.Mean
			}
			lo, hi, ok := Fieller(nm, nr, 0.05)
			if ok {
				s.NewLow, s.NewHigh = lo, hi
			}
			got = side(lo, hi, ok)
		}
		switch {
		case want == 0:
			s.Verdict = ShapeNoClaim
		case got == want:
			s.Verdict = ShapeHolds
		case got == -want:
			s.Verdict = ShapeReversed
		default:
			s.Verdict = ShapeInconclusive
		}
		out = append(out, s)
	}
	return out
}

// side is 1 when the interval [lo, hi] lies above 1, -1 below, else 0.
func side(lo, hi float64, ok bool) int {
	switch {
	case !ok:
		return 0
	case lo > 1:
		return 1
	case hi < 1:
		return -1
	}
	return 0
}
