package verdicts

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/lab-bench/lab/internal/results"
	"gonum.org/v1/gonum/stat/distuv"
)

// A shape is how a cell compares with another cell of the same run: the
// ratio cell / reference. Runs are laid out in blocks (plan: every block
// holds each cell once; a record's Repeat is its block), and the noise of
// a shared host is mostly common to the runs of one block: measured on
// this project's machine kind, the two cells of a block correlate 0.68–
// 0.79, and one block's log-ratio has SD 0.22 against 0.38 for two
// unpaired runs. So a shape is estimated block by block:
//
//	d_b = ln(cell_b) − ln(reference_b)   for every block b that has both,
//
// and the shape is exp(mean d_b), the geometric mean of the per-block
// ratios, with a Student t interval over the blocks. The arithmetic means
// stay in reports; every decision is on this log scale.
//
// A robust alternative — Yuen's 20 % trimmed mean of d_b — was evaluated on
// the seeded simulation with outliers (TestSimulatedShapeEstimators): it
// detects more with many outliers but is liberal at the 10–20 blocks an
// apply holds (A/A 6.5–6.8 % against a 5 % bound), so the plain t over the
// design's units (blocks, or folds: PairedRatio) was kept: A/A 3.7 %.

// Pairable reports whether a run of design d can be paired by block: every
// design but sequential.
func Pairable(d string) bool { return d != results.DesignSequential }

// LogRatio is the block-paired estimate of one shape in one run.
type LogRatio struct {
	// Blocks is the number of blocks with a successful run of both cells;
	// Skipped those with one side missing, failed or not positive.
	Blocks  int `json:"blocks"`
	Skipped int `json:"skipped_blocks,omitempty"`
	// Skewed counts the blocks of a duet left out because its two flows'
	// windows started too far apart (duetSkewed); Skipped includes them.
	Skewed int `json:"skewed_blocks,omitempty"`
	// Units is the number of independent units the interval is over:
	// Blocks, or the folds of a foldover (PairedRatio).
	Units int `json:"units"`
	// PerUnit is the number of blocks a unit holds: 2 for folds, else 1.
	PerUnit int `json:"blocks_per_unit"`
	// Mean and SD are the mean and sample SD of the units' d.
	Mean float64 `json:"mean_log"`
	SD   float64 `json:"sd_log"`
	// Ratio is exp(Mean), the geometric mean of the per-block ratios; Low
	// and High bound its 95 % t interval (Ratio twice with < 2 blocks).
	Ratio float64 `json:"ratio"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Known says whether there is an interval (two blocks or more).
	Known bool `json:"known"`
}

// SE is the standard error of Mean (0 with fewer than two units).
func (l LogRatio) SE() float64 {
	if l.Units < 2 {
		return 0
	}
	return l.SD / math.Sqrt(float64(l.Units))
}

// block identifies one block of runs: the apply and its repeat number
// (pooled applies number their blocks by apply; PoolRuns).
type block struct {
	run    string
	repeat int
}

// blockValues is the metric of each of g's successful runs by block (the
// first run of a block when a cell has two, which a plan never makes).
func blockValues(g results.CellGroup, metric string) map[block]float64 {
	m, ok := results.MetricByKey(metric)
	out := map[block]float64{}
	for _, r := range g.Repeats {
		if r.Warmup || r.Error != "" {
			continue
		}
		var v float64
		var have bool
		if ok {
			v, have = m.Value(r)
		}
		if !have {
			continue
		}
		k := block{r.RunID, r.Repeat}
		if _, dup := out[k]; !dup {
			out[k] = v
		}
	}
	return out
}

// blockRatio is one block's log-ratio.
type blockRatio struct {
	block
	d float64
}

// blockLogRatios is BlockLogRatios with each d_b's block, adding the
// blocks it skips to *skipped.
func blockLogRatios(of, over results.CellGroup, metric, design string, skipped *int) []blockRatio {
	a, b := blockValues(of, metric), blockValues(over, metric)
	if design == results.DesignDuet {
		dropSkewed(a, of)
		dropSkewed(b, over)
	}
	keys := map[block]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([]block, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.SortFunc(sorted, func(x, y block) int { return cmp.Or(cmp.Compare(x.run, y.run), cmp.Compare(x.repeat, y.repeat)) })
	var out []blockRatio
	for _, k := range sorted {
		x, okx := a[k]
		y, oky := b[k]
		if !okx || !oky || !(x > 0) || !(y > 0) || !isFinite(x) || !isFinite(y) {
			*skipped++
			continue
		}
		out = append(out, blockRatio{k, math.Log(x) - math.Log(y)})
	}
	return out
}

// PairedRatio estimates the shape of of over over in one run of design
// (DesignFoldover, DesignBlocks, …) from their block log-ratios. The unit
// of the t interval is the block, except in a foldover, where it is the
// fold — a block and its reverse, blocks 2k−1 and 2k — averaged: a drift
// along run order correlates a fold's two d_b positively (for AR(1) noise
// of lag-1 correlation ρ, ABBA gives cov(d₁, d₂) = ρ(1−ρ)²σ², 0.12 of
// var(d) at the measured ρ = 0.58), which made a t over blocks liberal
// (A/A 6.0 % at 10 blocks, 4 000 simulated trials), while folds are nearly
// independent. A fold missing one block counts with the other alone.
//
// design "" takes the design the records were loaded with (Store.Load),
// DesignBlocks for records that carry none.
func PairedRatio(of, over results.CellGroup, metric, design string) LogRatio {
	if design == "" {
		design = results.RecordedDesign(of)
	}
	skipped := 0
	bs := blockLogRatios(of, over, metric, design, &skipped)
	var units []float64
	for i := 0; i < len(bs); i++ {
		b := bs[i]
		if folds(design) && b.repeat%2 == 1 && i+1 < len(bs) && bs[i+1].block == (block{b.run, b.repeat + 1}) {
			units = append(units, (b.d+bs[i+1].d)/2)
			i++
			continue
		}
		units = append(units, b.d)
	}
	l := logRatioOf(units)
	l.Blocks, l.Skipped = len(bs), skipped
	if design == results.DesignDuet {
		l.Skewed = skewedBlocks(of, over)
	}
	if folds(design) {
		l.PerUnit = 2
	}
	return l
}

// logRatioOf summarises the independent units (blocks or folds) of a
// shape's log-ratio.
func logRatioOf(units []float64) LogRatio {
	s := results.Summarize(units)
	l := LogRatio{Blocks: s.N, Units: s.N, PerUnit: 1, Mean: s.Mean, SD: s.Stdev, Known: s.Known}
	l.Ratio = math.Exp(s.Mean)
	l.Low, l.High = l.Ratio, l.Ratio
	if l.Known {
		l.Low, l.High = math.Exp(s.CI95Low), math.Exp(s.CI95High)
	}
	return l
}

// ShapeChange is the verdict on how much a shape changed between two runs
// (a published and a new one, or a compare's base and test): Δ = mean
// d_new − mean d_pub, with SE² = s_new²/B_new + s_pub²/B_pub and Welch's
// degrees of freedom rounded down.
type ShapeChange struct {
	// Delta is Δ on the log scale; Change is exp(Δ) − 1, the relative
	// change of the shape, and ChangeLow and ChangeHigh bound its 95 %
	// interval.
	Delta      float64 `json:"delta_log"`
	SE         float64 `json:"se_log"`
	DF         int     `json:"df"`
	Change     float64 `json:"change"`
	ChangeLow  float64 `json:"change_low"`
	ChangeHigh float64 `json:"change_high"`
	// Margin is the shape margin (a fraction): the shape is reproduced
	// when its change lies within ×(1 ± Margin) on the log scale, that is
	// |Δ| < ln(1 + Margin).
	Margin float64 `json:"margin"`
	// MDE is the smallest relative change of the shape that the two runs
	// would call not reproduced with 80 % power (MDE); BlocksNeeded is the
	// number of blocks per run that would detect MDETarget (0 when these
	// runs already do, or when the margin is at least MDETarget), assuming
	// the SDs these runs show.
	MDE          float64      `json:"mde"`
	BlocksNeeded int          `json:"blocks_needed,omitempty"`
	Verdict      Reproduction `json:"verdict"`
	Note         string       `json:"note,omitempty"`
}

// DefaultShapeMargin is the shape margin when a bundle sets none: 5 %.
// Any margin ≥ 0 keeps the A/A error ≤ 5 % by construction — "not
// reproduced" needs the whole 95 % interval of Δ beyond ±ln(1+margin),
// which a true Δ = 0 gives with probability ≤ 2.5 % a side — so the margin
// is not there for the error rate: it is the change a reader would call
// the same shape. 5 % is the largest change of a ratio between two cells
// that the project's posts treat as noise on the same machine kind (the
// default compare threshold, DefaultThreshold), and small enough that a
// real change of 20 % (the paired MDE at 10 min per apply) is beyond it.
// Simulated A/A with block-correlated AR(1) noise, 3 % outlier runs and a
// 20 % load shift between the applies: not reproduced 1.1 % at 10 blocks,
// 0.7 % at 20 (3.9 % with margin 0), TestSimulatedShapeAA.
const DefaultShapeMargin = 0.05

// MDETarget is the relative change a verdict's BlocksNeeded is for: 10 %.
const MDETarget = 0.10

// power80 is the power every MDE is at.
const power80 = 0.80

// JudgeShapeChange decides whether the shape of pub reproduces in new
// within margin (a fraction): not reproduced when the 95 % interval of Δ
// lies wholly beyond ±ln(1+margin), reproduced when wholly inside (two
// one-sided tests at 2.5 %), inconclusive otherwise or with fewer than two
// blocks on a side. A true Δ of 0 is not reproduced with probability ≤
// 5 % (≤ 2.5 % a side; far less with a margin); a true change exactly on
// the margin is reproduced with probability ≤ 2.5 %.
func JudgeShapeChange(pub, new LogRatio, margin float64) ShapeChange {
	margin = math.Max(margin, 0)
	c := ShapeChange{Margin: margin, Delta: new.Mean - pub.Mean}
	c.Change = math.Expm1(c.Delta)
	c.ChangeLow, c.ChangeHigh = c.Change, c.Change
	edge := math.Log1p(margin)
	if pub.Units < 2 || new.Units < 2 {
		c.Verdict = Inconclusive
		c.Note = fmt.Sprintf("%d and %d paired blocks: a shape needs 2 folds or blocks or more on each side", pub.Blocks, new.Blocks)
		return c
	}
	vp, vn := pub.SE()*pub.SE(), new.SE()*new.SE()
	c.SE = math.Sqrt(vp + vn)
	if c.SE == 0 {
		c.Note = "no spread on either side"
		if math.Abs(c.Delta) < edge {
			c.Verdict = Reproduced
		} else {
			c.Verdict = NotReproduced
		}
		return c
	}
	c.DF = int(welchDF(vn, vp, new.Units, pub.Units)) // rounded down
	t := results.TCritical95(c.DF)
	lo, hi := c.Delta-t*c.SE, c.Delta+t*c.SE
	c.ChangeLow, c.ChangeHigh = math.Expm1(lo), math.Expm1(hi)
	switch {
	case lo > -edge && hi < edge:
		c.Verdict = Reproduced
	case lo > edge || hi < -edge:
		c.Verdict = NotReproduced
	default:
		c.Verdict = Inconclusive
	}
	c.MDE = MDE(c.SE, c.DF, margin)
	if c.MDE > MDETarget && margin < MDETarget {
		c.BlocksNeeded = BlocksFor(MDETarget, margin, pub.SD, new.SD) * max(new.PerUnit, 1)
	}
	return c
}

// MDE is the minimum detectable effect of a test with standard error se
// (on the log scale) at df degrees of freedom: the smallest relative change
// beyond a margin that a two-sided 95 % interval lies wholly beyond with
// 80 % power, exp(ln(1+margin) + (t₀.₉₇₅ + t₀.₈₀)·se) − 1. margin 0 gives
// the MDE of a plain difference.
func MDE(se float64, df int, margin float64) float64 {
	if se == 0 || df < 1 {
		return math.Max(margin, 0)
	}
	return math.Expm1(math.Log1p(math.Max(margin, 0)) + (results.TCritical95(df)+tPower(df))*se)
}

// tPower is the 80 % quantile of Student's t at df.
func tPower(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(power80)
}

// BlocksFor is the number of units (blocks, or folds) per run, both runs
// alike, at which a change of target beyond margin is detected with 80 %
// power, for the units' log-ratio SDs sdA and sdB; 0 when target ≤ margin (never detectable as
// a change beyond the margin) or without spread.
func BlocksFor(target, margin, sdA, sdB float64) int {
	gap := math.Log1p(target) - math.Log1p(math.Max(margin, 0))
	v := sdA*sdA + sdB*sdB
	if gap <= 0 || v == 0 {
		return 0
	}
	z := 1.959963984540054 + 0.8416212335729143 // normal quantiles: a lower bound
	for b := max(2, int(z*z*v/(gap*gap))); b <= 100000; b++ {
		se := math.Sqrt(v / float64(b))
		df := int(welchDF(sdA*sdA/float64(b), sdB*sdB/float64(b), b, b))
		if (results.TCritical95(df)+tPower(df))*se <= gap {
			return b
		}
	}
	return 100000
}
