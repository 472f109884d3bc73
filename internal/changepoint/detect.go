package changepoint

import "slices"

// Options tune Detect; the zero value means Otava's defaults.
type Options struct {
	// MaxP is the largest p-value a change point keeps (merge); 0: 0.001.
	MaxP float64
	// SplitP is the largest p-value the top-down split accepts; 0: 10·MaxP.
	SplitP float64
	// MinSize is the fewest values on either side of a split; 0: 3.
	MinSize int
}

func (o Options) withDefaults() Options {
	if o.MaxP == 0 {
		o.MaxP = 0.001
	}
	if o.SplitP == 0 {
		o.SplitP = 10 * o.MaxP
	}
	if o.MinSize == 0 {
		o.MinSize = 3
	}
	return o
}

// ChangePoint is a shift in the series: Index is the first value of the
// new level; Qhat the E-divisive statistic that chose the split (in the
// segment it was found in); Stats compare the values since the previous
// change point (or the start) with those up to the next (or the end).
type ChangePoint struct {
	Index int     `json:"index"`
	Qhat  float64 `json:"qhat"`
	Stats Stats   `json:"stats"`
}

// Detect finds x's change points, in index order (see the package doc
// for the variant).
func Detect(x []float64, opt Options) []ChangePoint {
	opt = opt.withDefaults()
	cps := split(x, opt)
	bounds := boundaries(cps, len(x)) // each tested against its final neighbours, as Otava's split returns them
	for i := range cps {
		cps[i].Stats = statsAt(x, cps[i].Index, bounds)
	}
	return merge(x, cps, opt.MaxP)
}

// split adds the best E-divisive split over all segments while its
// t-test's p is at most SplitP.
func split(x []float64, opt Options) []ChangePoint {
	var cps []ChangePoint
	for {
		bounds := boundaries(cps, len(x))
		best, found := ChangePoint{}, false
		for i := 0; i+1 < len(bounds); i++ {
			a, b := bounds[i], bounds[i+1]
			tau, q, ok := bestSplit(x[a:b], opt.MinSize)
			if ok && (!found || q > best.Qhat) {
				best, found = ChangePoint{Index: a + tau, Qhat: q}, true
			}
		}
		if !found {
			return cps
		}
		best.Stats = statsAt(x, best.Index, bounds)
		if best.Stats.P > opt.SplitP {
			return cps
		}
		cps = append(cps, best)
		slices.SortFunc(cps, func(a, b ChangePoint) int { return a.Index - b.Index })
	}
}

// merge removes the weakest change point (largest p, the first on a tie)
// while its p exceeds maxP, testing its neighbours again each time.
func merge(x []float64, cps []ChangePoint, maxP float64) []ChangePoint {
	for len(cps) > 0 {
		weakest := 0
		for i, c := range cps {
			if c.Stats.P > cps[weakest].Stats.P {
				weakest = i
			}
		}
		if cps[weakest].Stats.P <= maxP {
			break
		}
		cps = slices.Delete(cps, weakest, weakest+1)
		bounds := boundaries(cps, len(x))
		for _, i := range []int{weakest - 1, weakest} {
			if i >= 0 && i < len(cps) {
				cps[i].Stats = statsAt(x, cps[i].Index, bounds)
			}
		}
	}
	return cps
}

// boundaries are 0, the change points' indexes and n.
func boundaries(cps []ChangePoint, n int) []int {
	b := []int{0}
	for _, c := range cps {
		b = append(b, c.Index)
	}
	return append(b, n)
}

// statsAt compares x between the boundary before index and index with x
// between index and the boundary after it.
func statsAt(x []float64, index int, bounds []int) Stats {
	start, end := 0, len(x)
	for _, b := range bounds {
		if b < index {
			start = b
		}
		if b > index {
			end = b
			break
		}
	}
	return Compare(x[start:index], x[index:end])
}
