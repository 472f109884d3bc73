package verdicts

import (
	"fmt"
	"math"

	"github.com/lab-bench/lab/internal/results"
)

// judgeGroupRatio judges of / over on metric against r's threshold or
// range, paired by block (PairedRatio): the 95 % t interval of the
// geometric ratio over the design's units — pass when it lies wholly
// within the expectation, fail when wholly outside, inconclusive
// otherwise; a true ratio exactly on a threshold passes with probability
// ≤ 2.5 % (TestSimulatedPairedRatioAtThreshold). Runs that cannot be
// paired (a sequential design, fewer than two paired blocks) fall back to
// the unpaired Fieller rule (judgeRatio), and say so.
func judgeGroupRatio(c Check, of, over results.CellGroup, metric string, r RatioTarget) Check {
	l, why := pairable(of, over, metric)
	if why != "" {
		c = judgeRatio(c, of.Metric(metric), over.Metric(metric), r)
		c.Reason += " (unpaired: " + why + ")"
		return c
	}
	c.Value, c.Low, c.High = l.Ratio, l.Low, l.High
	c.Measured = pairedText(l)
	c.MDE = MDE(l.SE(), l.Units-1, 0)
	return ratioVerdict(c, r, "the block-paired ratio")
}

// judgeGroupPublishedRatio judges of / over on metric against a table's
// ratio expected within ×(1 ± margin) on the log scale, paired by block:
// with Δ = mean d − ln(expected), pass (reproduced) when its 95 % t
// interval lies within ±ln(1+margin), fail when wholly beyond, inconclusive
// otherwise (two one-sided tests at 2.5 %: a true ratio on an edge passes
// with probability ≤ 2.5 %, TestSimulatedPairedPublishedRatio). Unpairable
// runs fall back to judgePublishedRatio (Fieller), and say so.
func judgeGroupPublishedRatio(c Check, of, over results.CellGroup, metric string, expected, margin float64) Check {
	l, why := pairable(of, over, metric)
	if why != "" {
		c = judgePublishedRatio(c, of.Metric(metric), over.Metric(metric), expected, margin)
		c.Reason += " (unpaired: " + why + ")"
		return c
	}
	edge := math.Log1p(margin)
	c.Value, c.Low, c.High = l.Ratio, l.Low, l.High
	c.Measured = pairedText(l)
	se, df := l.SE(), l.Units-1
	c.MDE = MDE(se, df, margin)
	d := l.Mean - math.Log(expected)
	half := results.TCritical95(df) * se
	band := fmt.Sprintf("[%s, %s]", num(expected/(1+margin)), num(expected*(1+margin)))
	switch {
	case d-half > -edge && d+half < edge:
		c.Verdict = VerdictPass
		c.Reason = "95% interval of the block-paired ratio inside published ratio ×/÷ (1 + margin) " + band
	case d-half > edge || d+half < -edge:
		c.Verdict = VerdictFail
		c.Reason = "95% interval of the block-paired ratio entirely outside published ratio ×/÷ (1 + margin) " + band
	default:
		c.Verdict = VerdictInconclusive
		c.Reason = "95% interval of the block-paired ratio overlaps an edge of published ratio ×/÷ (1 + margin) " + band
	}
	return c
}

// pairable is the block-paired ratio of of over over, or why the two
// cells cannot be paired.
func pairable(of, over results.CellGroup, metric string) (LogRatio, string) {
	if d := results.RecordedDesign(of); !Pairable(d) {
		return LogRatio{}, "the runs are sequential, not in blocks"
	}
	l := PairedRatio(of, over, metric, "")
	if l.Units < 2 {
		return l, fmt.Sprintf("%d block(s) with a successful run of both cells", l.Blocks)
	}
	return l, ""
}

// pairedText renders a block-paired ratio for a check's Measured:
// "1.98 [1.9, 2.05] (10 blocks)".
func pairedText(l LogRatio) string {
	return fmt.Sprintf("%s [%s, %s] (%d blocks)", num(l.Ratio), num(l.Low), num(l.High), l.Blocks)
}
