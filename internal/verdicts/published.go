package verdicts

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/lab-bench/lab/internal/results"
)

// Verdicts of a published cell (PublishedTarget). Reproduced counts as a
// pass, not reproduced as a fail; not comparable is no judgement at all
// (the run's hardware is not the post's, so only shapes are checked) and
// never fails, not even with -strict.
const (
	// VerdictReproduced: the 90 % CI of the mean lies within published ±
	// margin (two one-sided tests at 5 %: equivalence shown).
	VerdictReproduced Verdict = "reproduced"
	// VerdictNotReproduced: the 95 % CI lies entirely outside published ±
	// margin.
	VerdictNotReproduced Verdict = "not reproduced"
	// VerdictNotComparable: the run's provenance does not match the
	// table's match: its absolute numbers are another machine's.
	VerdictNotComparable Verdict = "not comparable"
)

// Failing reports whether v makes `lab check` exit 2 (fail, not reproduced).
func (v Verdict) Failing() bool { return v == VerdictFail || v == VerdictNotReproduced }

// Settled reports whether v lets `lab check -strict` exit 0: a pass, a
// reproduced cell, or one that is not comparable (nothing to judge).
func (v Verdict) Settled() bool {
	return v == VerdictPass || v == VerdictReproduced || v == VerdictNotComparable
}

// Class is the verdict as one word, for CSS classes ("not-reproduced").
func (v Verdict) Class() string { return strings.ReplaceAll(string(v), " ", "-") }

// PublishedTable is a published block in the results' terms: a post's
// numbers for cells of one experiment.
type PublishedTable struct {
	Name     string `json:"name"`
	Source   string `json:"source"`
	Hardware string `json:"hardware"`
	Tool     string `json:"tool,omitempty"`
	// Side is "sender" or "receiver"; Metric the catalogue key the values
	// are checked against (sender_throughput_bps, throughput_bps), and
	// the values are in that metric's displayed unit (Gb/s).
	Side   string `json:"side"`
	Metric string `json:"metric"`
	// Match is what a run's provenance must show for the absolute values
	// to be comparable (Comparable); empty: never comparable.
	Match map[string]string `json:"match,omitempty"`
	Cells []PublishedCell   `json:"cells"`
}

// PublishedCell is one published value and the cell it reports (matrix
// key or "pair" → rendered value).
type PublishedCell struct {
	Where map[string]string `json:"where"`
	Value float64           `json:"value"`
}

// PublishedTarget checks a table's cells (or, for Order, its ordering)
// with a relative margin (a fraction: 0.10 for 10 %).
type PublishedTarget struct {
	Table  *PublishedTable
	Margin float64
}

// Comparable reports whether the group's runs match the table's Match:
// "provider" equals the provider type, "cpu" is a substring of both ends'
// CPU model, "os" of both ends' kernel, "server_driver" and
// "client_driver" of that end's NIC driver (vtnet, virtio_net, bce; the
// ends of a post often differ), case-insensitive, for every run. why says
// what differs.
func (t *PublishedTable) Comparable(g results.CellGroup) (ok bool, why string) {
	if len(t.Match) == 0 {
		return false, "the table has no match = {…}: its hardware (" + t.Hardware + ") is not described so a run can match it"
	}
	if len(g.Repeats) == 0 {
		return false, "no run's provenance to compare"
	}
	for _, r := range g.Repeats {
		p := r.Provenance
		for _, k := range []string{"provider", "cpu", "os", "server_driver", "client_driver"} {
			want, ok := t.Match[k]
			if !ok {
				continue
			}
			var have []string
			switch k {
			case "provider":
				if p.Provider != want {
					return false, fmt.Sprintf("provider %q, the post's %q", p.Provider, want)
				}
				continue
			case "cpu":
				have = []string{p.ServerCPUModel, p.ClientCPUModel}
			case "os":
				have = []string{p.ServerKernel, p.ClientKernel}
			case "server_driver":
				have = []string{p.ServerDriver}
			case "client_driver":
				have = []string{p.ClientDriver}
			}
			for _, h := range have {
				if !strings.Contains(strings.ToLower(h), strings.ToLower(want)) {
					if h == "" {
						h = "not recorded"
					}
					return false, fmt.Sprintf("%s %q does not contain the post's %q", k, h, want)
				}
			}
		}
	}
	return true, ""
}

// cellFor finds the table's cell that reports group g: every key of its
// Where has g's value.
func (t *PublishedTable) cellFor(g results.CellGroup) (PublishedCell, bool) {
	for _, c := range t.Cells {
		if matches(g, c.Where) {
			return c, true
		}
	}
	return PublishedCell{}, false
}

// publishes reports whether the table has a value for both cells.
func (t *PublishedTable) publishes(a, b results.CellGroup) bool {
	_, okA := t.cellFor(a)
	_, okB := t.cellFor(b)
	return okA && okB
}

// consistent reports whether a table cell can lie within where: every
// key both name has the same value.
func consistent(c PublishedCell, where map[string]string) bool {
	for k, v := range where {
		if w, ok := c.Where[k]; ok && w != v {
			return false
		}
	}
	return true
}

// checkPublished checks every cell of the table that e's Where allows,
// against the experiment's groups (Evaluate's equivalence rule).
func checkPublished(e Expectation, groups []results.CellGroup) []Check {
	t, margin := e.Published.Table, e.Published.Margin
	m, _ := results.MetricByKey(t.Metric)
	var checks []Check
	for _, pc := range t.Cells {
		if !consistent(pc, e.Where) {
			continue
		}
		c := Check{Expectation: e.Name, Experiment: e.Experiment, Kind: "published", Table: t.Name,
			Cell: whereText(pc.Where), Published: pc.Value, Margin: margin, Metric: t.Metric,
			Expected: fmt.Sprintf("%s %s ± %s%% (%s)", num(pc.Value), m.Unit, num(100*margin), t.Side)}
		i := slices.IndexFunc(groups, func(g results.CellGroup) bool { return g.Experiment == e.Experiment && matches(g, pc.Where) })
		if i < 0 {
			c.Verdict, c.Measured, c.Reason = VerdictInconclusive, "-", "no run of this cell in the run checked"
			checks = append(checks, c)
			continue
		}
		g := groups[i]
		c.Pair, c.Cell = g.Pair, g.CellKey
		checks = append(checks, judgePublishedCell(c, g, t, m, margin))
	}
	return checks
}

// judgePublishedCell is the equivalence rule for one cell.
func judgePublishedCell(c Check, g results.CellGroup, t *PublishedTable, m results.Metric, margin float64) Check {
	s := g.Metric(t.Metric).Scale(m.Scale)
	c.Value, c.Low, c.High, c.Noisy = s.Mean, s.CI95Low, s.CI95High, s.Noisy()
	c.Measured = summaryText(s, m.Decimals) + " " + m.Unit
	if ok, why := t.Comparable(g); !ok {
		c.Verdict = VerdictNotComparable
		c.Reason = "not the post's hardware (" + why + "): only the table's shape checks apply"
		return c
	}
	lo, hi := c.Published*(1-margin), c.Published*(1+margin)
	band := fmt.Sprintf("[%s, %s]", num(lo), num(hi))
	c.MDE = bandMDE(s, c.Published, margin)
	switch {
	case g.N == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no successful run"
	case s.N == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no run of the cell measured "+t.Metric
	case !s.Known:
		c.Verdict, c.Reason = VerdictInconclusive, "1 run: no confidence interval (set repeat ≥ 2)"
	default:
		lo90, hi90 := CI(s, 0.10)
		ci90 := fmt.Sprintf("90%% CI [%s, %s]", num(lo90), num(hi90))
		ci95 := fmt.Sprintf("95%% CI [%s, %s]", num(s.CI95Low), num(s.CI95High))
		switch {
		case lo90 >= lo && hi90 <= hi:
			c.Verdict, c.Reason = VerdictReproduced, ci90+" inside published ± margin "+band
		case s.CI95High < lo:
			c.Verdict, c.Reason = VerdictNotReproduced, ci95+" entirely below published ± margin "+band
		case s.CI95Low > hi:
			c.Verdict, c.Reason = VerdictNotReproduced, ci95+" entirely above published ± margin "+band
		case hi90-lo90 > hi-lo:
			c.Verdict = VerdictInconclusive
			c.Reason = fmt.Sprintf("%s is wider than published ± margin %s: more repeats or a quieter host", ci90, band)
		default:
			c.Verdict, c.Reason = VerdictInconclusive, ci90+" overlaps an edge of published ± margin "+band
		}
	}
	return incomplete(c, g)
}

// CI is the two-sided 1-alpha t-interval of the mean of s (its mean
// twice when s has fewer than two values), clamped at 0 like the 95 %
// bounds Group computes.
func CI(s results.Summary, alpha float64) (lo, hi float64) {
	if !s.Known {
		return s.Mean, s.Mean
	}
	half := tCriticalAt(alpha, s.N-1) * s.Stdev / math.Sqrt(float64(s.N))
	return math.Max(0, s.Mean-half), s.Mean + half
}

// tCriticalAt is tCritical for whole degrees of freedom, read from a table
// for the two levels checks use (95 % and the equivalence rule's 90 %).
func tCriticalAt(alpha float64, df int) float64 {
	switch {
	case alpha == 1-Level:
		return results.TCritical95(df)
	case alpha == 0.10 && df >= 1 && df < len(t90Table()):
		return t90Table()[df]
	}
	return results.TCritical(alpha, float64(df))
}

// t90Table holds the two-sided 90 % critical values (index = df).
var t90Table = sync.OnceValue(func() []float64 {
	t := make([]float64, 257)
	t[0] = math.NaN()
	for df := 1; df < len(t); df++ {
		t[df] = results.TCritical(0.10, float64(df))
	}
	return t
})

// judgePublishedRatio judges a measured ratio against the table's ratio of
// the same two cells: pass when the 90 % Fieller interval lies within
// expected × (1 ± margin), fail when the 95 % one lies entirely outside,
// inconclusive otherwise (the equivalence rule of a cell, on a ratio).
func judgePublishedRatio(c Check, of, over results.Summary, expected, margin float64) Check {
	lo, hi := expected*(1-margin), expected*(1+margin)
	band := fmt.Sprintf("[%s, %s]", num(lo), num(hi))
	c.Value = of.Mean / over.Mean
	c.Low, c.High = c.Value, c.Value
	c.Measured = num(c.Value)
	if !of.Known || !over.Known {
		c.Verdict, c.Reason = VerdictInconclusive, "1 run in a cell: no confidence interval (set repeat ≥ 2)"
		return c
	}
	lo90, hi90, ok90 := Fieller(of, over, 0.10)
	lo95, hi95, ok95 := Fieller(of, over, 1-Level)
	if !ok90 || !ok95 {
		c.Verdict = VerdictInconclusive
		c.Reason = "the over cell's CI reaches 0, so the ratio's interval (Fieller) is unbounded"
		return c
	}
	c.Low, c.High = lo95, hi95
	c.Measured = fmt.Sprintf("%s [%s, %s]", num(c.Value), num(lo95), num(hi95))
	switch {
	case lo90 >= lo && hi90 <= hi:
		c.Verdict = VerdictPass
		c.Reason = fmt.Sprintf("90%% interval of the ratio (Fieller) [%s, %s] inside published ratio ± margin %s", num(lo90), num(hi90), band)
	case hi95 < lo || lo95 > hi:
		c.Verdict = VerdictFail
		c.Reason = "95% interval of the ratio (Fieller) entirely outside published ratio ± margin " + band
	default:
		c.Verdict = VerdictInconclusive
		c.Reason = fmt.Sprintf("90%% interval of the ratio (Fieller) [%s, %s] overlaps an edge of published ratio ± margin %s", num(lo90), num(hi90), band)
	}
	return c
}

// publishedRatio is the table's ratio of the cells reporting of and over.
func publishedRatio(t *PublishedTable, of, over results.CellGroup) (float64, string) {
	a, okA := t.cellFor(of)
	b, okB := t.cellFor(over)
	switch {
	case !okA || !okB:
		return 0, "published." + t.Name + " has no value for one of the two cells"
	case b.Value == 0:
		return 0, "published." + t.Name + " gives 0 for the over cell: no ratio"
	}
	return a.Value / b.Value, ""
}

// checkOrder checks the table's ordering: its cells (those e's Where
// allows) sorted by published value, each cell against the next one
// whose value is more than margin above it. The higher cell's measured
// mean over the lower's is judged by its 95 % Fieller interval: pass
// when it lies above 1, fail when it lies below 1, inconclusive otherwise.
func checkOrder(e Expectation, groups []results.CellGroup) []Check {
	t, margin := e.Order.Table, e.Order.Margin
	cells := slices.Clone(t.Cells)
	cells = slices.DeleteFunc(cells, func(c PublishedCell) bool { return !consistent(c, e.Where) })
	slices.SortStableFunc(cells, func(a, b PublishedCell) int { return cmp.Compare(a.Value, b.Value) })
	find := func(c PublishedCell) (results.CellGroup, bool) {
		i := slices.IndexFunc(groups, func(g results.CellGroup) bool { return g.Experiment == e.Experiment && matches(g, c.Where) })
		if i < 0 {
			return results.CellGroup{}, false
		}
		return groups[i], true
	}
	var checks []Check
	for i, low := range cells {
		j := slices.IndexFunc(cells[i+1:], func(c PublishedCell) bool { return c.Value > low.Value*(1+margin) })
		if j < 0 {
			continue
		}
		high := cells[i+1+j]
		c := Check{Expectation: e.Name, Experiment: e.Experiment, Kind: "order", Table: t.Name, Metric: t.Metric, Margin: margin,
			Cell: whereText(high.Where) + " / " + whereText(low.Where), Published: high.Value / low.Value,
			Expected: fmt.Sprintf("> 1 (published %s / %s = %s)", num(high.Value), num(low.Value), num(high.Value/low.Value))}
		gh, okH := find(high)
		gl, okL := find(low)
		if !okH || !okL {
			c.Verdict, c.Measured, c.Reason = VerdictInconclusive, "-", "no run of one of the two cells in the run checked"
			checks = append(checks, c)
			continue
		}
		c.Cell = gh.Pair + " " + gh.CellKey + " / " + gl.Pair + " " + gl.CellKey
		a, b := gh.Metric(t.Metric), gl.Metric(t.Metric)
		c.Noisy = a.Noisy() || b.Noisy()
		checks = append(checks, incomplete(ratioCheck(c, gh, gl, t.Metric, RatioTarget{AtLeast: 1}), gh, gl))
	}
	return checks
}

// whereText renders a selector map as "key=value,…" (sorted keys).
func whereText(w map[string]string) string {
	var parts []string
	for k, v := range w {
		parts = append(parts, k+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// publishedRatioCheck judges one of/over pair of cells against the table's
// ratio of the same cells, on the table's metric.
func publishedRatioCheck(c Check, r RatioTarget, of, over results.CellGroup) Check {
	t := r.Published
	c.Table, c.Margin, c.Metric = t.Name, r.Margin, t.Metric
	expected, why := publishedRatio(t, of, over)
	if why != "" {
		c.Verdict, c.Measured, c.Reason = VerdictInconclusive, "-", why
		return c
	}
	c.Published = expected
	c.Expected = fmt.Sprintf("%s ± %s%% (published %s / %s)", num(expected), num(100*r.Margin), r.Of, r.Over)
	a, b := of.Metric(t.Metric), over.Metric(t.Metric)
	c.Noisy = a.Noisy() || b.Noisy()
	switch {
	case a.N == 0 || b.N == 0:
		c.Verdict, c.Measured, c.Reason = VerdictInconclusive, "-", "no run of one of the cells measured "+t.Metric
		return incomplete(c, of, over)
	case b.Mean <= 0:
		c.Verdict, c.Measured, c.Reason = VerdictInconclusive, "-", "the over cell's mean is 0: no ratio"
		return incomplete(c, of, over)
	}
	if !a.Known || !b.Known {
		return incomplete(judgePublishedRatio(c, a, b, expected, r.Margin), of, over)
	}
	return incomplete(judgeGroupPublishedRatio(c, of, over, t.Metric, expected, r.Margin), of, over)
}
