package verdicts

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/lab-bench/lab/internal/results"
)

// Change is the verdict of comparing one cell between two runs.
type Change string

// Changes. Improved and Regressed need a difference that is both
// significant after the Holm–Bonferroni correction across the compared
// cells and at least the practical-significance threshold; NoChange needs
// evidence too: the 95 % interval of the difference lies within ±threshold
// of the base mean.
const (
	Improved  Change = "improved"
	Regressed Change = "regressed"
	NoChange  Change = "no change"
	// TooNoisy: neither a material, significant change nor shown to be
	// within the threshold.
	TooNoisy Change = "too noisy"
	// Missing: the cell is in only one of the runs, or has < 2 runs on a side.
	Missing Change = "missing"
	// Incomplete: runs of the cell failed or are missing on a side, so its
	// survivors are not a fair sample; what would have been improved, no
	// change or too noisy is incomplete (a regression stays a regression).
	Incomplete Change = "incomplete"
	// NotComparable: the runner's state (CPU pressure, load average)
	// differed between the two sides beyond what Comparable allows, so the
	// cell is not tested; a note says how ("not comparable: CPU pressure
	// 94% vs 20%"). Like too noisy, it fails nothing unless -fail-on says so.
	NotComparable Change = "not comparable"
)

// Changes lists every Change, for flags that name them.
var Changes = []Change{Improved, Regressed, NoChange, TooNoisy, Missing, Incomplete, NotComparable}

// DefaultThreshold is the default practical-significance threshold: a
// relative change of the base mean's throughput smaller than 5 % is not
// reported as improved or regressed, however significant. Throughput runs
// on shared virtual machines rarely repeat better than a few percent.
const DefaultThreshold = 0.05

// Alpha is the family-wise error rate of a comparison: the probability
// that any cell of a comparison without real change is reported improved
// or regressed is at most Alpha (Holm–Bonferroni over the cells' Welch
// tests; the threshold only makes reports rarer). Simulated
// (simulation_test.go, 2 000 comparisons of 64 unchanged cells, n = 5,
// CV 5 %): any cell regressed in 1.5 % of comparisons, any change in
// 2.9 % (default threshold: 1.7 % and 3.4 %); without the correction a
// 64-cell comparison showed a false regression 68–80 % of the time.
const Alpha = 0.05

// CompareOptions tune Compare.
type CompareOptions struct {
	// Threshold is the practical-significance threshold, a fraction of
	// the base mean (0.05 for 5 %); ≤ 0 means DefaultThreshold.
	Threshold float64
	// Metric is the key of the compared metric (Metrics); "" means
	// throughput. For a metric where lower is better (latency, loss,
	// CPU) an increase is the regression.
	Metric string
	// Adjust is the multiple-comparison adjustment of the cells' p-values:
	// AdjustHolm ("" means it) or AdjustBH.
	Adjust string
	// ShapeMargin is the margin of a shape's change (Shapes); ≤ 0 means
	// DefaultShapeMargin.
	ShapeMargin float64
}

// The multiple-comparison adjustments Compare offers (CompareOptions.Adjust).
const (
	// AdjustHolm is Holm–Bonferroni: the family-wise error rate — the
	// chance that any unchanged cell is reported changed — is ≤ Alpha,
	// under any dependence between the cells.
	AdjustHolm = "holm"
	// AdjustBH is Benjamini–Hochberg: the false discovery rate — the
	// expected share of the cells reported changed that did not really
	// change — is ≤ Alpha for independent (or positively dependent)
	// cells. It finds a single real change among many cells far more
	// often than Holm, at the price of more false reports when several
	// cells really changed; with no real change at all it is as strict
	// as Holm's family-wise bound.
	AdjustBH = "bh"
)

// Adjustments lists the values CompareOptions.Adjust accepts.
var Adjustments = []string{AdjustHolm, AdjustBH}

// Delta compares one cell's metric (throughput unless CompareOptions say
// otherwise) between a base and a test run. The summaries and differences
// are in the metric's recorded unit (bits per second for throughput,
// despite the JSON names).
type Delta struct {
	Metric     string              `json:"metric"`
	Experiment string              `json:"experiment"`
	Pair       string              `json:"pair"`
	Cell       []results.CellValue `json:"cell"`
	CellKey    string              `json:"cell_key"`
	Base       results.Summary     `json:"base_bps"`
	Test       results.Summary     `json:"test_bps"`
	// BaseFailed, TestFailed count failed or missing runs on each side.
	BaseFailed int `json:"base_failed,omitempty"`
	TestFailed int `json:"test_failed,omitempty"`
	// BaseDisturbed, TestDisturbed count the runs marked disturbed (CPU
	// steal) on each side: such a cell is too noisy at best (judgeChange).
	BaseDisturbed int `json:"base_disturbed,omitempty"`
	TestDisturbed int `json:"test_disturbed,omitempty"`
	// Diff is test - base in bits per second, with the 95 % interval of
	// the difference (Welch); RelDiff is Diff / base mean (0 when the
	// base mean is 0).
	Diff     float64 `json:"diff_bps"`
	DiffLow  float64 `json:"diff_low_bps"`
	DiffHigh float64 `json:"diff_high_bps"`
	RelDiff  float64 `json:"rel_diff"`
	// T, DF and P are Welch's t statistic, its degrees of freedom and the
	// two-sided p-value; PAdjusted is P after Holm–Bonferroni across the
	// cells of the comparison that were tested. A cell that was not
	// tested (Missing) has P = PAdjusted = 1; two samples without spread
	// have T = DF = 0 and P = 0 (means differ) or 1 (equal).
	T         float64 `json:"t"`
	DF        float64 `json:"df"`
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	Change    Change  `json:"change"`
	// MDE is the smallest relative change of the cell (a fraction of the
	// base mean) that would be reported improved or regressed with 80 %
	// power: at least the threshold, and the Welch test's at the
	// strictest level the adjustment can ask, Alpha / (cells tested).
	MDE float64 `json:"mde"`
	// Shape is the change of the cell's shape — the cell over the first
	// cell of its experiment and pair — between the runs, each run paired
	// by block (Shapes); nil for the reference cell and a cell not in both.
	Shape *Shape `json:"shape,omitempty"`
	// Notes say what to distrust: "noisy base", "noisy test", "test: 2
	// run(s) failed or missing", "no spread on either side".
	Notes []string `json:"notes,omitempty"`
	// wouldBe is the change the noise guard took from a cell with
	// disturbed runs (guardChange), given back when the undisturbed runs
	// alone show it too (Compare).
	wouldBe Change
}

// Compare matches the cells of two runs (experiment, pair, cell key) in
// the base run's order, then cells only in the test run, and compares
// their throughput with Welch's unequal-variance t-test, corrected for
// multiple comparisons with Holm–Bonferroni at Alpha (or Benjamini–Hochberg,
// opt.Adjust), and with the
// practical-significance threshold of opt. Degenerate cells (constant
// samples, a single run, a zero mean) give finite numbers.
func Compare(base, test []results.CellGroup, opt CompareOptions) []Delta {
	out := compareAll(base, test, opt)
	if !slices.ContainsFunc(out, func(d Delta) bool { return d.wouldBe != "" }) {
		return out
	}
	quiet := compareAll(LeaveOutDisturbed(base), LeaveOutDisturbed(test), opt)
	for i := range out {
		d := &out[i]
		if d.wouldBe == "" || i >= len(quiet) {
			continue
		}
		q := quiet[i]
		if q.Change != d.wouldBe {
			d.Notes = append(d.Notes, fmt.Sprintf("the runs say %s, but without the disturbed runs: %s", d.wouldBe, q.Change))
			continue
		}
		d.Change = q.Change
		d.Notes = append(d.Notes, fmt.Sprintf("the change holds with the disturbed runs left out (%s %s, p %.3g)", q.Change, signedPct(q.RelDiff), q.PAdjusted))
	}
	return out
}

// signedPct renders a relative difference as "+4.2%".
func signedPct(rel float64) string { return fmt.Sprintf("%+.1f%%", 100*rel) }

// compareAll is Compare without giving back what the noise guard took.
func compareAll(base, test []results.CellGroup, opt CompareOptions) []Delta {
	if opt.Threshold <= 0 || math.IsNaN(opt.Threshold) || math.IsInf(opt.Threshold, 0) {
		opt.Threshold = DefaultThreshold
	}
	if opt.Metric == "" {
		opt.Metric = results.MetricThroughput
	}
	metric, _ := results.MetricByKey(opt.Metric)
	type key struct{ exp, pair, cell string }
	k := func(g results.CellGroup) key { return key{g.Experiment, g.Pair, g.CellKey} }
	tests := map[key]results.CellGroup{}
	for _, g := range test {
		tests[k(g)] = g
	}
	var out []Delta
	seen := map[key]bool{}
	for _, b := range base {
		seen[k(b)] = true
		t, ok := tests[k(b)]
		if !ok {
			out = append(out, Delta{Metric: opt.Metric, Experiment: b.Experiment, Pair: b.Pair, Cell: b.Cell, CellKey: b.CellKey,
				Base: b.Metric(opt.Metric), BaseFailed: b.Failed + b.Missing, P: 1, PAdjusted: 1, Change: Missing,
				Notes: []string{"not in test"}})
			continue
		}
		out = append(out, compareCell(b, t, opt.Metric))
	}
	for _, t := range test {
		if !seen[k(t)] {
			out = append(out, Delta{Metric: opt.Metric, Experiment: t.Experiment, Pair: t.Pair, Cell: t.Cell, CellKey: t.CellKey,
				Test: t.Metric(opt.Metric), TestFailed: t.Failed + t.Missing, P: 1, PAdjusted: 1, Change: Missing,
				Notes: []string{"not in base"}})
		}
	}
	var tested []int
	for i, d := range out {
		if d.Change != Missing && d.Change != NotComparable {
			tested = append(tested, i)
		}
	}
	ps := make([]float64, len(tested))
	for j, i := range tested {
		ps[j] = out[i].P
	}
	adjust := Holm
	if opt.Adjust == AdjustBH {
		adjust = BenjaminiHochberg
	}
	for j, p := range adjust(ps) {
		out[tested[j]].PAdjusted = p
	}
	for _, i := range tested {
		out[i].Change = judgeChange(out[i], opt.Threshold, metric.LowerIsBetter)
		out[i] = guardChange(out[i], metric.Disturbance)
		out[i].MDE = compareMDE(out[i], len(tested), opt.Threshold)
	}
	if opt.ShapeMargin <= 0 {
		opt.ShapeMargin = DefaultShapeMargin
	}
	shapes := map[key]Shape{}
	for _, s := range Shapes(base, test, ShapeOptions{Metric: opt.Metric, Margin: opt.ShapeMargin}) {
		if s.ReferencePair == "" { // a cell's shape within its pair; duet shapes are reproduce's
			shapes[key{s.Experiment, s.Pair, s.CellKey}] = s
		}
	}
	for i := range out {
		if s, ok := shapes[key{out[i].Experiment, out[i].Pair, out[i].CellKey}]; ok {
			out[i].Shape = &s
		}
	}
	return out
}

// compareMDE is d's minimum detectable relative change: the larger of the
// threshold and (t at Alpha / m two-sided + t₀.₈₀) × the difference's
// standard error over |base mean|, at Welch's degrees of freedom rounded
// down — the Holm (and BH) test's strictest level over m tested cells.
func compareMDE(d Delta, m int, threshold float64) float64 {
	x, y := d.Base, d.Test
	if x.N < 2 || y.N < 2 || x.Mean == 0 {
		return 0
	}
	vx, vy := x.Stdev*x.Stdev/float64(x.N), y.Stdev*y.Stdev/float64(y.N)
	if vx+vy == 0 {
		return threshold
	}
	df := int(welchDF(vx, vy, x.N, y.N))
	if df < 1 {
		return 0
	}
	se := math.Sqrt(vx+vy) / math.Abs(x.Mean)
	return math.Max(threshold, (results.TCritical(Alpha/float64(max(m, 1)), float64(df))+tPower(df))*se)
}

// compareCell fills in everything but PAdjusted and Change (for a cell
// with two runs or more on each side) or marks it Missing.
func compareCell(b, t results.CellGroup, metric string) Delta {
	d := Delta{Metric: metric, Experiment: b.Experiment, Pair: b.Pair, Cell: b.Cell, CellKey: b.CellKey,
		Base: b.Metric(metric), Test: t.Metric(metric), BaseFailed: b.Failed + b.Missing, TestFailed: t.Failed + t.Missing,
		BaseDisturbed: b.Disturbed, TestDisturbed: t.Disturbed, P: 1, PAdjusted: 1}
	ok, why := Comparable(CellEnvironmentOf(b), CellEnvironmentOf(t))
	if !ok {
		d.Change, d.Notes = NotComparable, []string{"not comparable: " + why}
	} else if why != "" {
		d.Notes = append(d.Notes, why)
	}
	x, y := d.Base, d.Test
	d.Diff = y.Mean - x.Mean
	if x.Mean != 0 {
		d.RelDiff = d.Diff / x.Mean
	}
	if d.Change == NotComparable {
		return d // not tested: the figures are shown, not judged
	}
	if x.Noisy() {
		d.Notes = append(d.Notes, "noisy base")
	}
	if y.Noisy() {
		d.Notes = append(d.Notes, "noisy test")
	}
	if d.BaseFailed > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("base: %d run(s) failed or missing", d.BaseFailed))
	}
	if d.TestFailed > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("test: %d run(s) failed or missing", d.TestFailed))
	}
	if d.BaseDisturbed > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("base: %d run(s) disturbed (CPU steal or runner CPU pressure)", d.BaseDisturbed))
	}
	if d.TestDisturbed > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("test: %d run(s) disturbed (CPU steal or runner CPU pressure)", d.TestDisturbed))
	}
	if overflowed(d) {
		d.Notes = append(d.Notes, "overflow: the values are too large for float64 arithmetic, so the cell is not tested")
		if !isFinite(d.Diff) || !isFinite(d.RelDiff) {
			d.Diff, d.RelDiff = 0, 0 // not "+Inf": the note says why
		}
		return d
	}
	if x.N < 2 || y.N < 2 {
		d.Change = Missing
		d.Notes = append(d.Notes, "fewer than 2 runs on a side")
		return d
	}
	tt, df, p := WelchT(x, y)
	d.P = p
	d.DiffLow, d.DiffHigh = d.Diff, d.Diff
	if math.IsInf(tt, 0) || df == 0 {
		d.Notes = append(d.Notes, "no spread on either side")
		return d
	}
	d.T, d.DF = tt, df
	half := results.TCritical(0.05, df) * math.Sqrt(x.Stdev*x.Stdev/float64(x.N)+y.Stdev*y.Stdev/float64(y.N))
	d.DiffLow, d.DiffHigh = d.Diff-half, d.Diff+half
	return d
}

// overflowed reports whether a side's values overflowed (Summary.Overflow)
// or their difference did: such a cell is too noisy, with a note.
func overflowed(d Delta) bool {
	return d.Base.Overflow || d.Test.Overflow || !isFinite(d.Test.Mean-d.Base.Mean)
}

// judgeChange classifies a tested cell (too noisy when a side has runs
// marked disturbed; incomplete when, besides, runs failed): material means |Diff| ≥ threshold ×
// |base mean| (any non-zero difference when the base mean is 0). A
// decrease is a regression unless lower is better.
func judgeChange(d Delta, threshold float64, lowerIsBetter bool) Change {
	band := threshold * math.Abs(d.Base.Mean)
	material := d.Diff != 0 && math.Abs(d.Diff) >= band
	worse := d.Diff < 0
	if lowerIsBetter {
		worse = d.Diff > 0
	}
	var c Change
	switch {
	case overflowed(d):
		return TooNoisy
	case d.PAdjusted < Alpha && material && worse:
		return Regressed
	case d.PAdjusted < Alpha && material:
		c = Improved
	case d.DiffLow >= -band && d.DiffHigh <= band:
		c = NoChange
	default:
		c = TooNoisy
	}
	if d.BaseFailed+d.TestFailed > 0 {
		return Incomplete
	}
	return c
}

// guardChange is compare's noise guard (as check's: disturbed). Nobody
// has measured which way a neighbour moves a metric, so every change of a
// cell with disturbed runs and no failed ones is TooNoisy here, and
// Compare gives it back when the cells' undisturbed runs alone show the
// same change (simulated with base runs disturbed 15 % faster: 1.3 %
// false regressions, where "a regression stands when only the base was
// disturbed" gave 53 %: TestSimulatedDirectionOfDisturbance). For a
// metric with an established direction (Metric.Disturbance) a regression
// also stands when only the base had disturbed runs, an improvement when
// only the test had them. The notes say which side was disturbed and,
// when the change stands, why.
func guardChange(d Delta, dir results.Direction) Delta {
	if d.BaseDisturbed+d.TestDisturbed == 0 || d.Change == Incomplete || d.Change == TooNoisy {
		return d
	}
	onlyBase, onlyTest := d.TestDisturbed == 0, d.BaseDisturbed == 0
	if dir != results.EitherWay && ((d.Change == Regressed && onlyBase) || (d.Change == Improved && onlyTest)) {
		d.Notes = append(d.Notes, fmt.Sprintf("the change stands: a neighbour moves %s only %s, which makes the disturbed side look worse, not better", d.Metric, dir))
		return d
	}
	d.wouldBe, d.Change = d.Change, TooNoisy
	return d
}

// pValue reads ps[i], a NaN p-value as 1 (no evidence).
func pValue(ps []float64) func(i int) float64 {
	return func(i int) float64 {
		if math.IsNaN(ps[i]) {
			return 1
		}
		return ps[i]
	}
}

// ascending is the indexes of ps in ascending order of their p-values
// (pValue), ties in ps's order.
func ascending(ps []float64) []int {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	p := pValue(ps)
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p(a), p(b)) })
	return order
}

// Holm returns the Holm–Bonferroni adjusted p-values of ps, in ps's order:
// with ps sorted ascending, p(i) is multiplied by m-i+1 (1-based), made
// non-decreasing and capped at 1. Rejecting every hypothesis whose
// adjusted p is below α keeps the family-wise error rate ≤ α under any
// dependence between the tests. NaN p-values count as 1.
func Holm(ps []float64) []float64 {
	m, order, p := len(ps), ascending(ps), pValue(ps)
	adj := make([]float64, m)
	running := 0.0
	for rank, i := range order {
		running = math.Max(running, math.Min(1, float64(m-rank)*p(i)))
		adj[i] = running
	}
	return adj
}

// BenjaminiHochberg returns the Benjamini–Hochberg adjusted p-values of
// ps, in ps's order: with ps sorted ascending, p(i)·m/i (1-based), made
// non-decreasing from the largest down and capped at 1. Rejecting every
// hypothesis whose adjusted p is below α keeps the false discovery rate
// ≤ α for independent or positively dependent tests. NaN p-values count
// as 1.
func BenjaminiHochberg(ps []float64) []float64 {
	m, order, p := len(ps), ascending(ps), pValue(ps)
	adj := make([]float64, m)
	running := 1.0
	for rank := m - 1; rank >= 0; rank-- {
		i := order[rank]
		running = math.Min(running, float64(m)*p(i)/float64(rank+1))
		adj[i] = running
	}
	return adj
}

// WelchT is Welch's t-test of two samples given as summaries: the t
// statistic of mean(y) - mean(x), the Welch–Satterthwaite degrees of
// freedom and the two-sided p-value. Two samples without spread give
// df = 0 and p = 1 when their means are equal (t = 0), p = 0 and an
// infinite t otherwise. Each sample needs two values or more.
func WelchT(x, y results.Summary) (t, df, p float64) {
	vx, vy := x.Stdev*x.Stdev/float64(x.N), y.Stdev*y.Stdev/float64(y.N)
	se := math.Sqrt(vx + vy)
	if se == 0 {
		if x.Mean == y.Mean {
			return 0, 0, 1
		}
		return math.Copysign(math.Inf(1), y.Mean-x.Mean), 0, 0
	}
	t = (y.Mean - x.Mean) / se
	df = welchDF(vx, vy, x.N, y.N)
	return t, df, tTwoSidedP(t, df)
}
