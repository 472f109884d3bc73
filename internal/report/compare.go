package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// changeColor is the ANSI colour of each comparison verdict.
var changeColor = map[verdicts.Change]string{
	verdicts.Improved:   "\x1b[32m",
	verdicts.Regressed:  "\x1b[31m",
	verdicts.TooNoisy:   ansiYellow,
	verdicts.Incomplete: ansiYellow,
	// not comparable: the runners differed, as inconclusive as too noisy
	verdicts.NotComparable: ansiYellow,
}

// CompareOptions are Options plus the threshold the comparison used.
type CompareOptions struct {
	Options
	// Threshold is the practical-significance threshold (fraction).
	Threshold float64
	// Adjust is the comparison's multiple-comparison adjustment
	// (verdicts.AdjustHolm, "" meaning it, or verdicts.AdjustBH).
	Adjust string
}

// RenderCompare writes a base-versus-test table, one row per cell, with
// the raw and adjusted (Holm, or Benjamini–Hochberg) p-values and notes (noisy, failed runs).
func RenderCompare(w io.Writer, base, test string, ds []verdicts.Delta, opt CompareOptions) error {
	if _, err := fmt.Fprintf(w, "base %s → test %s\n", base, test); err != nil {
		return err
	}
	table := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	m := results.Metrics[0]
	if len(ds) > 0 {
		if dm, ok := results.MetricByKey(ds[0].Metric); ok {
			m = dm
		}
	}
	us, decimals := compareScale(m, ds)
	label := columnLabel(m, us)
	if m.Key == results.MetricThroughput {
		label = us.unit
	}
	table.Header([]string{"experiment", "pair", "cell", "base " + label, "test " + label, "delta", "p", "p (" + adjustLabel(opt.Adjust) + ")", "verdict", "MDE", "shape", "note"})
	for _, d := range ds {
		delta, p, padj := "-", "-", "-"
		if d.Base.N > 0 && d.Test.N > 0 && d.Base.Mean != 0 {
			delta = fmt.Sprintf("%+.1f %%", 100*d.RelDiff)
		}
		if d.Change != verdicts.Missing && d.Change != verdicts.NotComparable {
			p, padj = fmt.Sprintf("%.3g", d.P), fmt.Sprintf("%.3g", d.PAdjusted)
		}
		v := string(d.Change)
		if c := changeColor[d.Change]; opt.Color && c != "" {
			v = c + v + ansiReset
		}
		cell := strings.ReplaceAll(d.CellKey, ",", " ")
		row := []string{d.Experiment, d.Pair, cell, rate(d.Base, us.factor, decimals), rate(d.Test, us.factor, decimals), delta, p, padj, v,
			mdeText(d.MDE), compareShapeText(d.Shape), strings.Join(d.Notes, ", ")}
		if err := table.Append(row); err != nil {
			return fmt.Errorf("render compare: %w", err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("render compare: %w", err)
	}
	threshold := opt.Threshold
	if threshold <= 0 {
		threshold = verdicts.DefaultThreshold
	}
	correction := "Holm–Bonferroni across the %d tested cells (family-wise α = %.2f). "
	if opt.Adjust == verdicts.AdjustBH {
		correction = "Benjamini–Hochberg across the %d tested cells (false discovery rate α = %.2f). "
	}
	_, err := fmt.Fprintf(w, "Welch's t-test, two-sided, "+correction+
		"improved/regressed: adjusted p < α and |delta| ≥ %s %%; \"no change\": the 95 %% CI of the difference lies within ±%s %% of base; "+
		"\"too noisy\": neither; \"incomplete\": runs failed or are missing; \"missing\": a side has < 2 runs. "+
		"MDE: the change seen with 80 %% power. shape: the change of the cell over the first cell of its pair, paired by block "+
		"within each run (reproduced within ±%s %%).\n",
		tested(ds), verdicts.Alpha, number(100*threshold, 2), number(100*threshold, 2), number(100*shapeMargin(ds), 2))
	if err == nil && slices.ContainsFunc(ds, func(d verdicts.Delta) bool { return d.Change == verdicts.NotComparable }) {
		_, err = fmt.Fprintf(w, "\"not comparable\": the runner's CPU pressure or load differed between the runs (medians more than %s points or ×%s apart), so the cell is not tested.\n",
			number(verdicts.ComparablePressure, 0), number(verdicts.ComparableLoad, 0))
	}
	return err
}

// compareScale is the unit the compare table shows m in, chosen as the
// plot's axis is (scaleFor: Mb/s when every side's throughput is below
// 1 Gb/s, as a latency lab's is), and its decimals: the table once said
// "0.00 ± 0.00" Gb/s where the plot said Mb/s, and gave a latency no ± CI
// (issue 35).
func compareScale(m results.Metric, ds []verdicts.Delta) (unitScale, int) {
	top := 0.0
	for _, d := range ds {
		for _, s := range []results.Summary{d.Base, d.Test} {
			if s.N > 0 {
				top = math.Max(top, math.Max(s.Mean, s.CI95High))
			}
		}
	}
	decimals := m.Decimals
	if m.Key == results.MetricThroughput {
		decimals = 2
	}
	return scaleFor(m, top), decimals
}

// adjustLabel names an adjustment in the p-value column's header.
func adjustLabel(adjust string) string {
	if adjust == verdicts.AdjustBH {
		return "BH"
	}
	return "Holm"
}

// tested counts the deltas that had a t-test.
func tested(ds []verdicts.Delta) int {
	n := 0
	for _, d := range ds {
		if d.Change != verdicts.Missing {
			n++
		}
	}
	return n
}

// mdeText renders a minimum detectable effect ("12.3 %"; "-" when none).
func mdeText(mde float64) string {
	if mde <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*mde)
}

// compareShapeText renders a cell's shape change in compare's table:
// "-48.0 % not reproduced (MDE 18.3 %)"; "-" for none.
func compareShapeText(s *verdicts.Shape) string {
	if s == nil {
		return "-"
	}
	t := fmt.Sprintf("%+.1f %% %s", 100*s.Change, s.Verdict)
	if s.MDE > 0 {
		t += fmt.Sprintf(" (MDE %.1f %%)", 100*s.MDE)
	}
	return t
}

// shapeMargin is the shape margin the deltas were judged with.
func shapeMargin(ds []verdicts.Delta) float64 {
	for _, d := range ds {
		if d.Shape != nil {
			return d.Shape.Margin
		}
	}
	return verdicts.DefaultShapeMargin
}
