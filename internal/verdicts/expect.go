package verdicts

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/results"
)

// Verdict is the outcome of one expectation check.
type Verdict string

// Verdicts, from best to worst. VerdictFail makes `lab check` exit 2;
// with -strict, VerdictInconclusive and VerdictIncomplete do too.
const (
	// VerdictPass: the evidence shows the expectation holds (the whole
	// 95 % interval meets it).
	VerdictPass Verdict = "pass"
	// VerdictInconclusive: the runs can neither confirm nor refute it.
	VerdictInconclusive Verdict = "inconclusive"
	// VerdictIncomplete: runs of a cell failed or are missing, so the
	// survivors are not a fair sample; never a pass, even when the
	// survivors would pass. A cell whose survivors fail still fails.
	VerdictIncomplete Verdict = "incomplete"
	// VerdictFail: the evidence shows the expectation does not hold.
	VerdictFail Verdict = "fail"
)

// verdictRank orders verdicts from best (0) to worst; a published cell's
// verdicts rank with their counterparts (reproduced with pass, not
// reproduced with fail), not comparable between pass and inconclusive.
var verdictRank = map[Verdict]int{VerdictPass: 0, VerdictReproduced: 0, VerdictNotComparable: 1, VerdictInconclusive: 2,
	VerdictIncomplete: 3, VerdictFail: 4, VerdictNotReproduced: 4}

// worse returns the worse of two verdicts (fail > incomplete >
// inconclusive > not comparable > pass; of two equally bad, the first).
func worse(a, b Verdict) Verdict {
	if verdictRank[b] > verdictRank[a] {
		return b
	}
	return a
}

// Level is the two-sided confidence level of every interval a verdict
// is read from; each side of it errs with probability (1-Level)/2 = 2.5 %.
const Level = 0.95

// Expectation is an expect block in the results' own terms: selectors are
// rendered cell values (as in CellValue.Value), so the results package
// does not depend on the spec. Exactly one of Throughput, Retransmits and
// Ratio is usually set; each set one is checked.
type Expectation struct {
	Name       string
	Experiment string
	// Where selects cells: matrix key (or "pair") → rendered value.
	Where map[string]string
	// Throughput is in Gb/s with a relative tolerance.
	Throughput *Target
	// Retransmits is a maximum mean count per run (Tolerance unused).
	Retransmits *Target
	Ratio       *RatioTarget
	// Metrics are expectations on other metrics of the catalogue
	// (latency, transactions/s, loss, jitter, CPU).
	Metrics []MetricTarget
	// Published checks every cell of a published table (that Where
	// allows) for equivalence; Order checks the table's ordering.
	Published *PublishedTarget
	Order     *PublishedTarget
}

// MetricTarget is an expectation on one metric of the catalogue (Metrics),
// in the unit its key names: a band, Value ± Tolerance × Value, judged
// like throughput; or, with IsMax, a maximum of the mean (checkMax).
type MetricTarget struct {
	Metric    string
	Value     float64
	Tolerance float64
	IsMax     bool
}

// Target is an absolute expected value.
type Target struct {
	Value     float64
	Tolerance float64 // fraction: 0.15 for 15 %
}

// RatioTarget compares cells that differ in one matrix value:
// throughput(Of) / throughput(Over).
type RatioTarget struct {
	Of, Over Selector
	AtLeast  float64    // 0 when Between is used
	Between  [2]float64 // zero when AtLeast is used
	// Published, when set, gives the expected ratio instead: the table's
	// ratio of the same two cells, within × (1 ± Margin), judged on the
	// table's metric (judgePublishedRatio).
	Published *PublishedTable
	Margin    float64
}

// Selector is one "key=value" cell selector.
type Selector struct{ Key, Value string }

// ParseSelector splits "key=value" (spaces around either part ignored).
func ParseSelector(s string) (Selector, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return Selector{}, fmt.Errorf("selector %q: want key=value", s)
	}
	return Selector{strings.TrimSpace(k), strings.TrimSpace(v)}, nil
}

func (s Selector) String() string { return s.Key + "=" + s.Value }

// Check is the verdict of one expectation on one cell (absolute) or one
// pair of cells (ratio).
type Check struct {
	Expectation string  `json:"expectation"`
	Experiment  string  `json:"experiment"`
	Pair        string  `json:"pair"`
	Kind        string  `json:"kind"` // "throughput", "retransmits", "ratio"
	Cell        string  `json:"cell"` // the cell key, or "of-cell / over-cell"
	Verdict     Verdict `json:"verdict"`
	// Measured and Expected are for people ("8.61 ± 0.20 Gb/s").
	Measured string `json:"measured"`
	Expected string `json:"expected"`
	// Value is the measured mean (Gb/s, count or ratio) and Low/High its
	// 95 % bounds (equal to Value when unknown).
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Reason says why the verdict is what it is.
	Reason string `json:"reason"`
	// MDE is the smallest relative effect the check's rule detects with
	// 80 % power at its α (a ratio's distance from its threshold, beyond a
	// published ratio's margin); 0 when not computed.
	MDE float64 `json:"mde,omitempty"`
	// Noisy marks a check on a cell (either cell, for a ratio) whose CI
	// half-width exceeds NoisyRatio of its mean.
	Noisy bool `json:"noisy,omitempty"`
	// Disturbed counts the runs of the cell (both cells, for a ratio)
	// marked disturbed: such a check is inconclusive unless a slowdown
	// cannot explain its verdict (disturbed).
	Disturbed int `json:"disturbed,omitempty"`
	// Table, Published, Margin and Metric are set for checks against a
	// published table: its name, the published value (for a ratio or
	// order: the published ratio), the relative margin and the metric key.
	Table     string  `json:"table,omitempty"`
	Published float64 `json:"published,omitempty"`
	Margin    float64 `json:"margin,omitempty"`
	Metric    string  `json:"metric,omitempty"`
	// bound is where the interval lies next to the bound that decided a
	// pass or a fail (the noise guard reads it: disturbed).
	bound bound
	// wouldBe and plain are the verdict and reason the noise guard took
	// from a check with disturbed runs (disturbed), and runs the cells'
	// successful runs: holdsWithout gives the verdict back when the
	// undisturbed runs alone give it too.
	wouldBe Verdict
	plain   string
	runs    int
}

// bound is where a decided check's interval lies: entirely below the band
// or within a maximum, entirely above the band or a maximum, or inside the
// band. A verdict that depends on neither (counts, ratios, published
// cells) has sideUnknown.
type bound int

const (
	sideUnknown bound = iota
	sideBelow
	sideAbove
	sideInside
)

// Outcome is one expectation with its checks and overall verdict (the
// worst of its checks; inconclusive when no cell matched).
type Outcome struct {
	Expectation Expectation `json:"-"`
	Name        string      `json:"name"`
	Verdict     Verdict     `json:"verdict"`
	Checks      []Check     `json:"checks"`
}

// Evaluate checks every expectation against the groups of a run. Every
// rule reads a two-sided 95 % interval (Level), so each of its two errors
// is bounded by 2.5 % per check under the interval's assumptions
// (independent, roughly normal runs):
//
// Absolute throughput (band = value ± tolerance): pass when the cell's 95 %
// confidence interval of the mean lies inside the band, fail when it lies
// entirely outside, inconclusive when it overlaps an edge (or is unknown:
// fewer than two runs). This is two one-sided tests: with the true mean
// exactly on a band edge the check passes with probability 2.5 % (exactly,
// for normal runs), and with the true mean inside the band it fails with
// probability ≤ 2.5 % per edge: ≤ 2.5 % in all when the band is wide next
// to the noise (the far edge contributes nothing), up to 5 % when it is
// narrow (10 ± 0.1 % at CV 10 %, n = 5: 4.9 % simulated, half below and
// half above). Simulated (simulation_test.go, 50 000 cells each,
// n = 5, CV 10 %, 10 ± 15 %): 2.55 % and 2.62 % false passes on the lower
// and upper edges, 2.45 % false fails on the edge; a true mean 20 % below
// nominal passes 0.08 % of the time (the mean-only rule: 7.4 %).
//
// Retransmits (a count, max = m): see checkCount.
//
// Other metrics (MetricTarget: latency, transactions/s, loss, jitter,
// CPU): a band is judged by the same rule as throughput, on the 95 % CI
// of the mean of the per-run values (for latency quantiles: of each run's
// p99, say); a maximum by checkMax.
//
// Ratio: among the selected cells, each cell matching Of is paired with
// the cell that is identical except for Of's key taking Over's value; the
// ratio of their mean throughputs is judged by its 95 % Fieller interval
// (Fieller): pass when the whole interval meets the threshold (or lies in
// Between), fail when none of it does, inconclusive when it straddles or
// is unbounded. With the true ratio exactly on the threshold the check
// passes with probability ≤ 2.5 % (simulated: 1.1 % for n = 5 + 5 at
// CV 10 %, 2.2 % for n = 5 at CV 20 % over n = 10 at CV 5 %).
//
// A cell with runs marked disturbed (CPU steal or runner CPU pressure:
// CellGroup.Disturbed) keeps a pass or a fail only when its undisturbed
// runs alone give it too; what else would pass or fail is inconclusive,
// and the reason says so (disturbed).
//
// A cell with failed or missing runs (CellGroup.Failed, Missing) is never
// a pass: what would pass or be inconclusive is VerdictIncomplete; a
// fail stays a fail.
func Evaluate(groups []results.CellGroup, exps []Expectation) []Outcome {
	var out []Outcome
	for _, e := range exps {
		o := Outcome{Expectation: e, Name: e.Name, Verdict: VerdictPass}
		sel := selectGroups(groups, e)
		o.Checks = checks(e, sel)
		if slices.ContainsFunc(o.Checks, func(c Check) bool { return c.wouldBe != "" }) {
			holdsWithout(o.Checks, checks(e, LeaveOutDisturbed(sel)))
		}
		if len(o.Checks) == 0 {
			o.Verdict = VerdictInconclusive
			o.Checks = append(o.Checks, Check{Expectation: e.Name, Experiment: e.Experiment, Verdict: VerdictInconclusive,
				Kind: kindOf(e), Measured: "-", Expected: expectedText(e), Reason: "no run of this run matches the expectation's cells"})
		}
		o.Verdict = overall(o.Checks)
		out = append(out, o)
	}
	return out
}

// checks is every check of e on the selected groups.
func checks(e Expectation, sel []results.CellGroup) []Check {
	var out []Check
	if e.Throughput != nil {
		for _, g := range sel {
			out = append(out, checkThroughput(e, g))
		}
	}
	if e.Retransmits != nil {
		for _, g := range sel {
			out = append(out, checkCount(e, g))
		}
	}
	if e.Ratio != nil {
		out = append(out, checkRatios(e, sel)...)
	}
	for _, t := range e.Metrics {
		for _, g := range sel {
			out = append(out, checkMetric(e, t, g))
		}
	}
	if e.Published != nil {
		out = append(out, checkPublished(e, sel)...)
	}
	if e.Order != nil {
		out = append(out, checkOrder(e, sel)...)
	}
	return out
}

// overall is an outcome's verdict: the worst of its checks; reproduced
// when every check is a pass or reproduced and one is reproduced, not
// comparable when none is worse and every cell is not comparable.
func overall(checks []Check) Verdict {
	v := VerdictPass
	if len(checks) > 0 {
		v = checks[0].Verdict
	}
	for _, c := range checks {
		v = worse(v, c.Verdict)
	}
	return v
}

func kindOf(e Expectation) string {
	switch {
	case e.Throughput != nil:
		return "throughput"
	case e.Retransmits != nil:
		return "retransmits"
	case e.Ratio == nil && len(e.Metrics) > 0:
		return e.Metrics[0].Metric
	case e.Ratio == nil && e.Published != nil:
		return "published"
	case e.Ratio == nil && e.Order != nil:
		return "order"
	}
	return "ratio"
}

func expectedText(e Expectation) string {
	switch {
	case e.Throughput != nil:
		return fmt.Sprintf("%s ± %s%% Gb/s", num(e.Throughput.Value), num(100*e.Throughput.Tolerance))
	case e.Retransmits != nil:
		return "≤ " + num(e.Retransmits.Value)
	case e.Ratio != nil:
		return ratioExpected(*e.Ratio)
	case len(e.Metrics) > 0:
		return metricExpected(e.Metrics[0])
	case e.Published != nil:
		return fmt.Sprintf("published.%s ± %s%%", e.Published.Table.Name, num(100*e.Published.Margin))
	case e.Order != nil:
		return "the ordering of published." + e.Order.Table.Name
	}
	return ""
}

// metricExpected renders a metric target ("80 ± 20% µs", "≤ 0.1 %").
func metricExpected(t MetricTarget) string {
	m, _ := results.MetricByKey(t.Metric)
	unit := ""
	if m.Unit != "" {
		unit = " " + m.Unit
	}
	if t.IsMax {
		return "≤ " + num(t.Value) + unit
	}
	return fmt.Sprintf("%s ± %s%%%s", num(t.Value), num(100*t.Tolerance), unit)
}

// selectGroups keeps the groups of e's experiment matching every Where
// selector and having at least one successful run.
func selectGroups(groups []results.CellGroup, e Expectation) []results.CellGroup {
	var sel []results.CellGroup
	for _, g := range groups {
		if g.Experiment == e.Experiment && matches(g, e.Where) {
			sel = append(sel, g)
		}
	}
	return sel
}

func matches(g results.CellGroup, where map[string]string) bool {
	for k, v := range where {
		if value(g, k) != v {
			return false
		}
	}
	return true
}

// value is g's value for a matrix key, or its pair for "pair".
func value(g results.CellGroup, key string) string {
	if key == "pair" {
		return g.Pair
	}
	for _, c := range g.Cell {
		if c.Name == key {
			return c.Value
		}
	}
	return ""
}

func checkThroughput(e Expectation, g results.CellGroup) Check {
	s := g.ThroughputBps.Scale(1e-9)
	c := newCheck(e, g, "throughput", s)
	c.Measured = summaryText(s, 2) + " Gb/s"
	if g.Sequential != nil {
		return incomplete(judgeSequential(c, g, *e.Throughput), g)
	}
	return incomplete(judgeBand(c, g.N, s, *e.Throughput), g)
}

// judgeSequential judges a cell that stopped on its verdict by the rule
// that stopped it: the group-sequential looks of its design replayed on
// its successful runs in the order they ran (GroupSeqVerdict), so that
// runs made after the stop (the rest of a budget's blocks, runs in flight
// at once) do not change the verdict the stop announced.
func judgeSequential(c Check, g results.CellGroup, t Target) Check {
	var gbps []float64
	for _, r := range g.Repeats {
		gbps = append(gbps, r.Metrics.ThroughputBps/1e9)
	}
	d, _ := GroupSeqVerdict(gbps, t, *g.Sequential)
	c.Verdict = d.Verdict
	c.Reason = fmt.Sprintf("group-sequential rule (looks at %d…%d runs, every %d): %s", g.Sequential.Min, g.Sequential.Max, max(g.Sequential.Step, 1), d.Reason)
	switch {
	case d.Verdict == VerdictPass:
		c.bound = sideInside
	case d.Verdict == VerdictFail && c.Value < t.Value:
		c.bound = sideBelow
	case d.Verdict == VerdictFail:
		c.bound = sideAbove
	}
	return c
}

// checkMetric checks one metric target on one cell: a band like
// throughput's, or a maximum (checkMax).
func checkMetric(e Expectation, t MetricTarget, g results.CellGroup) Check {
	m, _ := results.MetricByKey(t.Metric)
	s := g.Metric(t.Metric).Scale(m.Scale)
	c := newCheck(e, g, t.Metric, s)
	c.Expected = metricExpected(t)
	c.Noisy = s.Noisy()
	c.Measured = summaryText(s, m.Decimals)
	if m.Unit != "" {
		c.Measured += " " + m.Unit
	}
	if s.N == 0 && g.N > 0 {
		c.Verdict, c.Reason = VerdictInconclusive, "no run of the cell measured "+t.Metric
		return incomplete(c, g)
	}
	if t.IsMax {
		return incomplete(checkMax(c, s, t.Value), g)
	}
	return incomplete(judgeBand(c, g.N, s, Target{Value: t.Value, Tolerance: t.Tolerance}), g)
}

// judgeBand is the band rule (Evaluate): pass when the 95 % CI lies
// inside value ± tolerance, fail when it lies entirely outside,
// inconclusive otherwise. Its MDE is bandMDE.
func judgeBand(c Check, n int, s results.Summary, t Target) Check {
	c.MDE = bandMDE(s, t.Value, t.Tolerance)
	lo, hi := t.Value*(1-t.Tolerance), t.Value*(1+t.Tolerance)
	band := fmt.Sprintf("[%s, %s]", num(lo), num(hi))
	ci := fmt.Sprintf("95%% CI [%s, %s]", num(s.CI95Low), num(s.CI95High))
	switch {
	case n == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no successful run"
	case s.Overflow:
		c.Verdict, c.Reason = VerdictInconclusive, overflowReason
	case !s.Known:
		c.Verdict, c.Reason = VerdictInconclusive, "1 run: no confidence interval (set repeat ≥ 2)"
	case s.CI95Low >= lo && s.CI95High <= hi:
		c.Verdict, c.Reason, c.bound = VerdictPass, ci+" inside "+band, sideInside
	case s.CI95High < lo:
		c.Verdict, c.Reason, c.bound = VerdictFail, ci+" entirely below "+band, sideBelow
	case s.CI95Low > hi:
		c.Verdict, c.Reason, c.bound = VerdictFail, ci+" entirely above "+band, sideAbove
	case s.CI95High-s.CI95Low > hi-lo:
		c.Verdict = VerdictInconclusive
		c.Reason = fmt.Sprintf("%s is wider than the band %s: more repeats or a quieter host", ci, band)
	default:
		c.Verdict, c.Reason = VerdictInconclusive, ci+" overlaps an edge of "+band
	}
	return c
}

// bandMDE is the MDE of a band rule around value ± tolerance × value: the
// relative distance from value at which a mean fails with 80 % power,
// tolerance + (t₀.₉₇₅ + t₀.₈₀ at n − 1) × SE / |value|; 0 without an
// interval.
func bandMDE(s results.Summary, value, tolerance float64) float64 {
	if !s.Known || s.Overflow || value == 0 {
		return 0
	}
	df := s.N - 1
	return tolerance + (results.TCritical95(df)+tPower(df))*s.Stdev/math.Sqrt(float64(s.N))/math.Abs(value)
}

// checkMax checks a continuous, non-negative metric (loss %, jitter)
// against a maximum m of its mean, with the t-interval of the mean:
//
//   - fail when the lower 95 % bound is above m (with the true mean
//     exactly m this happens with probability ≤ 2.5 %, for roughly normal
//     runs), or when m = 0 and any run measured more than 0 (a mean of 0
//     allows no run above 0: a false fail is impossible);
//   - pass when there are ≥ 2 runs, every run is ≤ m and the upper 95 %
//     bound is ≤ m (the count rule's pass: with the true mean exactly m,
//     the upper bound is ≤ m with probability ≤ 2.5 %);
//   - inconclusive otherwise (one run, an interval straddling m, or an
//     interval within m with a run above it: the reason says which).
//
// Simulated (metrics_test.go, 50 000 cells of n = 5 runs at CV 30 % with
// the true mean exactly m): 2.0 % passes, 2.3 % fails.
func checkMax(c Check, s results.Summary, m float64) Check {
	switch {
	case s.N == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no successful run"
	case m == 0 && s.Max > 0:
		c.Verdict, c.bound = VerdictFail, sideAbove
		c.Reason = fmt.Sprintf("a run measured %s where the maximum is 0", num(s.Max))
	case s.Overflow:
		c.Verdict, c.Reason = VerdictInconclusive, overflowReason
	case s.Known && s.CI95Low > m:
		c.Verdict, c.bound = VerdictFail, sideAbove
		c.Reason = fmt.Sprintf("95%% CI [%s, %s] entirely above the maximum %s", num(s.CI95Low), num(s.CI95High), num(m))
	case !s.Known:
		c.Verdict, c.Reason = VerdictInconclusive, "1 run: no confidence interval (set repeat ≥ 2)"
	case s.Max <= m && s.CI95High <= m:
		c.Verdict, c.bound = VerdictPass, sideBelow
		c.Reason = fmt.Sprintf("every run and the upper 95%% bound %s within the maximum %s", num(s.CI95High), num(m))
	case s.CI95High <= m:
		// The interval passes; the largest run is what keeps the rule
		// from passing, so the reason names it (issue 35: it once said
		// the interval straddled the maximum).
		c.Verdict = VerdictInconclusive
		c.Reason = fmt.Sprintf("95%% CI [%s, %s] within the maximum %s, but a run measured %s: one run above the maximum keeps it from passing", num(s.CI95Low), num(s.CI95High), num(m), num(s.Max))
	default:
		c.Verdict = VerdictInconclusive
		c.Reason = fmt.Sprintf("95%% CI [%s, %s] straddles the maximum %s", num(s.CI95Low), num(s.CI95High), num(m))
	}
	return c
}

// incomplete turns a verdict on a cell with failed or missing runs into
// VerdictIncomplete (a fail stays a fail) and says so in the reason.
//
// It first applies the noise guard (disturbed): a verdict on a cell with
// runs marked disturbed is inconclusive.
func incomplete(c Check, gs ...results.CellGroup) Check {
	c = disturbed(c, gs...)
	failed, missing, total := 0, 0, 0
	for _, g := range gs {
		failed += g.Failed
		missing += g.Missing
		total += g.N + g.Failed + g.Missing
	}
	if failed+missing == 0 {
		return c
	}
	var parts []string
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d runs failed", failed, total))
	}
	if missing > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d runs missing", missing, total))
	}
	what := strings.Join(parts, ", ")
	if c.Verdict.Failing() || c.Verdict == VerdictNotComparable {
		c.Reason += " (" + what + ")"
		return c
	}
	c.Reason = fmt.Sprintf("%s: the survivors are not a fair sample (they say: %s — %s)", what, c.Verdict, c.Reason)
	c.Verdict = VerdictIncomplete
	return c
}

// disturbed is the noise guard. A run is disturbed when a neighbour took
// CPU time from an end (CPU steal above DisturbedSteal; MarkDisturbed says
// why the runner's CPU pressure does not count): Record.Disturbed. Which way that moves a metric nobody has measured —
// a run on this runner can come out faster under a neighbour as well as
// slower — so every metric of the catalogue is EitherWay until a
// controlled-neighbour measurement establishes a direction
// (Metric.Disturbance), and a disturbed run can make neither a pass nor a
// fail stand on its own: the verdict of a check with disturbed runs
// becomes inconclusive here, the reason saying how many runs were
// disturbed and what they said, and Evaluate gives it back when the
// cells' undisturbed runs alone give the same verdict (holdsWithout).
// For a metric with an established direction, a verdict that a move that
// way cannot explain stands as well (standsDisturbed).
//
// Since the undisturbed runs must give the verdict on their own, a
// verdict that stands errs at most as often as one on those runs alone
// (≤ 2.5 % per edge, Evaluate); simulated with disturbed runs 15 %
// faster (TestSimulatedDirectionOfDisturbance): 1.2 % false fails where
// trusting "a neighbour only slows" gave 15.2 %. The disturbed runs stay
// in the sample the verdict reports, so a reader sees both.
func disturbed(c Check, gs ...results.CellGroup) Check {
	n, total := 0, 0
	for _, g := range gs {
		n += g.Disturbed
		total += g.N
	}
	if n == 0 {
		return c
	}
	c.Disturbed, c.runs = n, total
	what := disturbedText(n, total)
	if verdictRank[c.Verdict] != 0 && !c.Verdict.Failing() {
		c.Reason += " (" + what + ")"
		return c
	}
	if dir, ok := standsDisturbed(c); ok {
		c.Reason += fmt.Sprintf(" (%s: a neighbour could only have moved the figure %s, which would not change the verdict)", what, dir)
		return c
	}
	c.wouldBe, c.plain = c.Verdict, c.Reason
	c.Reason = fmt.Sprintf("%s: a neighbour shared the CPUs, so the runs cannot decide (they say: %s — %s)", what, c.Verdict, c.Reason)
	c.Verdict = VerdictInconclusive
	return c
}

// disturbedText is "2 of 5 runs disturbed (CPU steal above 5%)".
func disturbedText(n, total int) string {
	return fmt.Sprintf("%d of %d runs disturbed (CPU steal above %s%%)", n, total, num(results.DisturbedSteal))
}

// holdsWithout gives a check the noise guard made inconclusive (wouldBe)
// its verdict back when the same check on the undisturbed runs alone
// (quiet, from LeaveOutDisturbed) gives that verdict; otherwise the
// reason says what they gave.
func holdsWithout(checks, quiet []Check) {
	for i := range checks {
		c := &checks[i]
		if c.wouldBe == "" {
			continue
		}
		j := slices.IndexFunc(quiet, func(q Check) bool {
			return q.Kind == c.Kind && q.Pair == c.Pair && q.Cell == c.Cell && q.Table == c.Table && q.Metric == c.Metric
		})
		left := c.runs - c.Disturbed
		switch {
		case left == 0 || j < 0:
			c.Reason += "; no run is left without them"
		case quiet[j].Verdict == c.wouldBe:
			q, runs := quiet[j], "runs"
			if c.Disturbed == 1 {
				runs = "run"
			}
			c.Verdict = q.Verdict
			c.Reason = fmt.Sprintf("%s — and with the %d disturbed %s left out: %s (%s)", c.plain, c.Disturbed, runs, q.Reason,
				disturbedText(c.Disturbed, c.runs))
		default:
			c.Reason += fmt.Sprintf("; without them: %s — %s", quiet[j].Verdict, quiet[j].Reason)
		}
	}
}

// LeaveOutDisturbed is groups with each cell's disturbed runs left out
// (from CellGroup.Repeats), its failed and missing runs still counted: the
// sample a disturbed verdict must hold on (holdsWithout, guardChange). A
// cell whose runs were all disturbed keeps its identity with no run.
func LeaveOutDisturbed(groups []results.CellGroup) []results.CellGroup {
	out := make([]results.CellGroup, len(groups))
	for i, g := range groups {
		if g.Disturbed == 0 {
			out[i] = g
			continue
		}
		var keep []results.Record
		for _, r := range g.Repeats {
			if r.Disturbed == "" {
				keep = append(keep, r)
			}
		}
		q := results.CellGroup{Experiment: g.Experiment, Pair: g.Pair, Cell: g.Cell, CellKey: g.CellKey}
		if gs := results.Group(keep); len(gs) == 1 {
			q = gs[0]
		}
		q.Failed, q.Missing = g.Failed, g.Missing // a left-out run is neither
		out[i] = q
	}
	return out
}

// standsDisturbed reports whether c's verdict stands although runs were
// disturbed (disturbed), with the way CPU steal moves c's metric.
func standsDisturbed(c Check) (results.Direction, bool) {
	key := c.Kind
	if key == "throughput" {
		key = results.MetricThroughput
	}
	m, ok := results.MetricByKey(key)
	if !ok || c.Published != 0 || c.Table != "" {
		return results.EitherWay, false
	}
	d := m.Disturbance
	return d, (d == results.OnlyDown && c.bound == sideAbove) || (d == results.OnlyUp && c.bound == sideBelow)
}

// MarkIncomplete turns every verdict of outs that is not a fail into
// VerdictIncomplete, giving why (for a run that did not complete: its
// cells may lack runs that never started).
func MarkIncomplete(outs []Outcome, why string) {
	for i := range outs {
		o := &outs[i]
		for j := range o.Checks {
			c := &o.Checks[j]
			if !c.Verdict.Failing() && c.Verdict != VerdictNotComparable {
				c.Reason = fmt.Sprintf("%s (the runs say: %s — %s)", why, c.Verdict, c.Reason)
				c.Verdict = VerdictIncomplete
			}
		}
		o.Verdict = overall(o.Checks)
	}
}

// MDEText renders the check's MDE as a percentage ("12.3 %"; "-" when
// the rule computed none), for report tables.
func (c Check) MDEText() string {
	if c.MDE <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f %%", 100*c.MDE)
}

func newCheck(e Expectation, g results.CellGroup, kind string, s results.Summary) Check {
	return Check{Expectation: e.Name, Experiment: g.Experiment, Pair: g.Pair, Kind: kind, Cell: g.CellKey,
		Expected: expectedText(e), Value: s.Mean, Low: s.CI95Low, High: s.CI95High, Noisy: g.ThroughputBps.Noisy()}
}

// checkRatios pairs every selected Of cell with its Over companion.
func checkRatios(e Expectation, sel []results.CellGroup) []Check {
	r := *e.Ratio
	var checks []Check
	for _, of := range sel {
		if value(of, r.Of.Key) != r.Of.Value {
			continue
		}
		over, ok := companion(sel, of, r.Of.Key, r.Over)
		if ok && r.Published != nil && !r.Published.publishes(of, over) {
			continue // the table says nothing about this pair of cells
		}
		c := Check{Expectation: e.Name, Experiment: of.Experiment, Pair: of.Pair, Kind: "ratio",
			Cell: of.CellKey, Expected: ratioExpected(r)}
		if !ok {
			c.Verdict, c.Measured = VerdictInconclusive, "-"
			c.Reason = fmt.Sprintf("no cell with %s and otherwise the same values", r.Over)
			checks = append(checks, c)
			continue
		}
		c.Cell = of.CellKey + " / " + over.CellKey
		if r.Published != nil {
			checks = append(checks, publishedRatioCheck(c, r, of, over))
			continue
		}
		c.Noisy = of.ThroughputBps.Noisy() || over.ThroughputBps.Noisy()
		checks = append(checks, incomplete(ratioCheck(c, of, over, results.MetricThroughput, r), of, over))
	}
	return checks
}

// companion finds the group equal to g except that key has over's value
// (and over.Key, when it differs from key, has over.Value).
func companion(sel []results.CellGroup, g results.CellGroup, key string, over Selector) (results.CellGroup, bool) {
	for _, h := range sel {
		if h.Pair != g.Pair && key != "pair" && over.Key != "pair" {
			continue
		}
		if value(h, over.Key) != over.Value {
			continue
		}
		same := true
		for _, c := range g.Cell {
			if c.Name != key && c.Name != over.Key && value(h, c.Name) != c.Value {
				same = false
				break
			}
		}
		if same {
			return h, true
		}
	}
	return results.CellGroup{}, false
}

// ratioCheck is the ratio rule on two groups: the degenerate cases
// judgeRatio names (no run, a zero or overflowing mean, one run), else the
// block-paired rule (judgeGroupRatio).
func ratioCheck(c Check, of, over results.CellGroup, metric string, r RatioTarget) Check {
	a, b := of.Metric(metric), over.Metric(metric)
	if a.N == 0 || b.N == 0 || b.Mean <= 0 || a.Overflow || b.Overflow || !a.Known || !b.Known {
		return judgeRatio(c, a, b, r)
	}
	return judgeGroupRatio(c, of, over, metric, r)
}

// judgeRatio is the unpaired ratio rule: the ratio of the means' 95 %
// Fieller interval (cells independent) against the expectation.
func judgeRatio(c Check, of, over results.Summary, r RatioTarget) Check {
	c.Measured = "-"
	switch {
	case of.N == 0 || over.N == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no successful run in one of the cells"
		return c
	case over.Mean <= 0:
		c.Verdict, c.Reason = VerdictInconclusive, "the over cell's mean throughput is 0: no ratio"
		return c
	}
	c.Value = of.Mean / over.Mean
	c.Low, c.High = c.Value, c.Value
	c.Measured = num(c.Value)
	if of.Overflow || over.Overflow || !isFinite(c.Value) {
		c.Verdict, c.Reason = VerdictInconclusive, overflowReason
		c.Measured, c.Value, c.Low, c.High = "overflow", 0, 0, 0
		return c
	}
	if !of.Known || !over.Known {
		c.Verdict, c.Reason = VerdictInconclusive, "1 run in a cell: no confidence interval (set repeat ≥ 2)"
		return c
	}
	lo95, hi95, ok := Fieller(of, over, 1-Level)
	if ok && (!isFinite(lo95) || !isFinite(hi95)) {
		c.Verdict, c.Reason = VerdictInconclusive, overflowReason
		return c
	}
	if !ok {
		c.Verdict = VerdictInconclusive
		c.Reason = "the over cell's 95% CI reaches 0, so the ratio's interval (Fieller) is unbounded"
		return c
	}
	c.Low, c.High = lo95, hi95
	c.Measured = fmt.Sprintf("%s [%s, %s]", num(c.Value), num(c.Low), num(c.High))
	return ratioVerdict(c, r, "the ratio (Fieller)")
}

// ratioVerdict judges the interval [c.Low, c.High] of a ratio — what
// names it in the reason — against r's threshold or range: pass when it
// lies wholly within, fail when wholly outside, inconclusive otherwise.
func ratioVerdict(c Check, r RatioTarget, what string) Check {
	lo, hi := r.AtLeast, math.Inf(1)
	if r.AtLeast == 0 {
		lo, hi = r.Between[0], r.Between[1]
	}
	switch {
	case c.Low >= lo && c.High <= hi:
		c.Verdict, c.Reason = VerdictPass, "the whole 95% interval of "+what+" meets the expectation"
	case c.High < lo || c.Low > hi:
		c.Verdict, c.Reason = VerdictFail, "the whole 95% interval of "+what+" misses the expectation"
	default:
		c.Verdict, c.Reason = VerdictInconclusive, "the 95% interval of "+what+" straddles the threshold"
	}
	return c
}

func ratioExpected(r RatioTarget) string {
	if r.Published != nil {
		return fmt.Sprintf("%s / %s as published.%s ± %s%%", r.Of, r.Over, r.Published.Name, num(100*r.Margin))
	}
	if r.AtLeast > 0 {
		return fmt.Sprintf("%s / %s ≥ %s", r.Of, r.Over, num(r.AtLeast))
	}
	return fmt.Sprintf("%s / %s in [%s, %s]", r.Of, r.Over, num(r.Between[0]), num(r.Between[1]))
}

// overflowReason is the reason of a verdict on values too large for
// float64 arithmetic (Summary.Overflow).
const overflowReason = "the values are too large for float64 arithmetic: their spread overflows, so there is no confidence interval (a unit mix-up in the records?)"

// summaryText renders "mean ± half-width" (or the mean alone; "mean ±
// overflow" when the spread overflowed).
func summaryText(s results.Summary, decimals int) string {
	f := func(v float64) string { return fmt.Sprintf("%.*f", decimals, v) }
	if s.Overflow {
		return f(s.Mean) + " ± overflow"
	}
	if !s.Known {
		return f(s.Mean)
	}
	return f(s.Mean) + " ± " + f(s.HalfWidth())
}

// num renders v with up to 3 decimals and no trailing zeros.
func num(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
