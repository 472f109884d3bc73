package results

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Verdict is the outcome of one expectation check.
type Verdict string

// Verdicts, from best to worst. Only VerdictFail makes `lab check` exit 2.
const (
	VerdictPass         Verdict = "pass"
	VerdictInconclusive Verdict = "inconclusive"
	VerdictFail         Verdict = "fail"
)

// worse returns the worse of two verdicts (fail > inconclusive > pass).
func worse(a, b Verdict) Verdict {
	rank := map[Verdict]int{VerdictPass: 0, VerdictInconclusive: 1, VerdictFail: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

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
	// Retransmits is a maximum mean count (Tolerance unused).
	Retransmits *Target
	Ratio       *RatioTarget
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
}

// Outcome is one expectation with its checks and overall verdict (the
// worst of its checks; inconclusive when no cell matched).
type Outcome struct {
	Expectation Expectation `json:"-"`
	Name        string      `json:"name"`
	Verdict     Verdict     `json:"verdict"`
	Checks      []Check     `json:"checks"`
}

// Evaluate checks every expectation against the groups of a run.
//
// Absolute throughput: every selected cell is checked. It passes when the
// cell's mean lies within value ± tolerance and is inconclusive when the
// 95 % confidence interval is wider than that band (or unknown: fewer than
// two runs), since the mean alone then says little.
//
// Retransmits: passes when the upper CI bound is ≤ max, fails when the
// lower bound is above it, inconclusive otherwise (and with fewer than two
// runs unless every run is ≤ max with no spread).
//
// Ratio: among the selected cells, each cell matching Of is paired with
// the cell that is identical except for Of's key taking Over's value; the
// ratio of their means is checked. Its bounds are the ratio of the CI
// bounds, [of.low/over.high, of.high/over.low]: pass when the whole range
// meets the threshold, fail when none of it does, inconclusive when it
// straddles the threshold (or a CI is unknown).
func Evaluate(groups []CellGroup, exps []Expectation) []Outcome {
	var out []Outcome
	for _, e := range exps {
		o := Outcome{Expectation: e, Name: e.Name, Verdict: VerdictPass}
		sel := selectGroups(groups, e)
		if e.Throughput != nil {
			for _, g := range sel {
				o.Checks = append(o.Checks, checkThroughput(e, g))
			}
		}
		if e.Retransmits != nil {
			for _, g := range sel {
				o.Checks = append(o.Checks, checkRetransmits(e, g))
			}
		}
		if e.Ratio != nil {
			o.Checks = append(o.Checks, checkRatios(e, sel)...)
		}
		if len(o.Checks) == 0 {
			o.Verdict = VerdictInconclusive
			o.Checks = append(o.Checks, Check{Expectation: e.Name, Experiment: e.Experiment, Verdict: VerdictInconclusive,
				Kind: kindOf(e), Measured: "-", Expected: expectedText(e), Reason: "no run of this run matches the expectation's cells"})
		}
		for _, c := range o.Checks {
			o.Verdict = worse(o.Verdict, c.Verdict)
		}
		out = append(out, o)
	}
	return out
}

// Failed reports whether any outcome failed.
func Failed(outs []Outcome) bool {
	return slices.ContainsFunc(outs, func(o Outcome) bool { return o.Verdict == VerdictFail })
}

func kindOf(e Expectation) string {
	switch {
	case e.Throughput != nil:
		return "throughput"
	case e.Retransmits != nil:
		return "retransmits"
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
	}
	return ""
}

// selectGroups keeps the groups of e's experiment matching every Where
// selector and having at least one successful run.
func selectGroups(groups []CellGroup, e Expectation) []CellGroup {
	var sel []CellGroup
	for _, g := range groups {
		if g.Experiment == e.Experiment && matches(g, e.Where) {
			sel = append(sel, g)
		}
	}
	return sel
}

func matches(g CellGroup, where map[string]string) bool {
	for k, v := range where {
		if value(g, k) != v {
			return false
		}
	}
	return true
}

// value is g's value for a matrix key, or its pair for "pair".
func value(g CellGroup, key string) string {
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

func checkThroughput(e Expectation, g CellGroup) Check {
	s := g.ThroughputBps.Scale(1e-9)
	c := newCheck(e, g, "throughput", s)
	c.Measured = summaryText(s, 2) + " Gb/s"
	t := *e.Throughput
	lo, hi := t.Value*(1-t.Tolerance), t.Value*(1+t.Tolerance)
	inBand := s.Mean >= lo && s.Mean <= hi
	switch {
	case g.N == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no successful run"
	case !s.Known:
		c.Verdict, c.Reason = VerdictInconclusive, "1 run: no confidence interval (set repeat ≥ 2)"
	case s.CI95High-s.CI95Low > hi-lo:
		c.Verdict = VerdictInconclusive
		c.Reason = fmt.Sprintf("95%% CI (%s Gb/s wide) is wider than the tolerance band (%s Gb/s)", num(s.CI95High-s.CI95Low), num(hi-lo))
	case inBand:
		c.Verdict, c.Reason = VerdictPass, fmt.Sprintf("mean within [%s, %s]", num(lo), num(hi))
	default:
		c.Verdict, c.Reason = VerdictFail, fmt.Sprintf("mean outside [%s, %s]", num(lo), num(hi))
	}
	return c
}

func checkRetransmits(e Expectation, g CellGroup) Check {
	s := g.Retransmits
	c := newCheck(e, g, "retransmits", s)
	c.Measured = summaryText(s, 0)
	limit := e.Retransmits.Value
	switch {
	case g.N == 0:
		c.Verdict, c.Reason = VerdictInconclusive, "no successful run"
	case s.Max <= limit && (s.Known || s.N == 1 && limit == 0):
		if s.CI95High <= limit {
			c.Verdict, c.Reason = VerdictPass, "upper 95% bound within the maximum"
		} else {
			c.Verdict, c.Reason = VerdictInconclusive, "every run within the maximum but the 95% CI reaches above it"
		}
	case s.Known && s.CI95Low > limit:
		c.Verdict, c.Reason = VerdictFail, "lower 95% bound above the maximum"
	case !s.Known:
		c.Verdict, c.Reason = VerdictInconclusive, "1 run: no confidence interval (set repeat ≥ 2)"
	default:
		c.Verdict, c.Reason = VerdictInconclusive, "95% CI straddles the maximum"
	}
	return c
}

func newCheck(e Expectation, g CellGroup, kind string, s Summary) Check {
	return Check{Expectation: e.Name, Experiment: g.Experiment, Pair: g.Pair, Kind: kind, Cell: g.CellKey,
		Expected: expectedText(e), Value: s.Mean, Low: s.CI95Low, High: s.CI95High}
}

// checkRatios pairs every selected Of cell with its Over companion.
func checkRatios(e Expectation, sel []CellGroup) []Check {
	r := *e.Ratio
	var checks []Check
	for _, of := range sel {
		if value(of, r.Of.Key) != r.Of.Value {
			continue
		}
		over, ok := companion(sel, of, r.Of.Key, r.Over)
		c := Check{Expectation: e.Name, Experiment: of.Experiment, Pair: of.Pair, Kind: "ratio",
			Cell: of.CellKey, Expected: ratioExpected(r)}
		if !ok {
			c.Verdict, c.Measured = VerdictInconclusive, "-"
			c.Reason = fmt.Sprintf("no cell with %s and otherwise the same values", r.Over)
			checks = append(checks, c)
			continue
		}
		c.Cell = of.CellKey + " / " + over.CellKey
		checks = append(checks, judgeRatio(c, of.ThroughputBps, over.ThroughputBps, r))
	}
	return checks
}

// companion finds the group equal to g except that key has over's value
// (and over.Key, when it differs from key, has over.Value).
func companion(sel []CellGroup, g CellGroup, key string, over Selector) (CellGroup, bool) {
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
	return CellGroup{}, false
}

func judgeRatio(c Check, of, over Summary, r RatioTarget) Check {
	if of.N == 0 || over.N == 0 || over.Mean <= 0 {
		c.Verdict, c.Measured, c.Reason = VerdictInconclusive, "-", "no successful run in one of the cells"
		return c
	}
	c.Value = of.Mean / over.Mean
	c.Low, c.High = c.Value, c.Value
	known := of.Known && over.Known && over.CI95Low > 0
	if known {
		c.Low, c.High = math.Max(0, of.CI95Low)/over.CI95High, of.CI95High/over.CI95Low
		c.Measured = fmt.Sprintf("%s [%s, %s]", num(c.Value), num(c.Low), num(c.High))
	} else {
		c.Measured = num(c.Value)
	}
	lo, hi := r.AtLeast, math.Inf(1)
	if r.AtLeast == 0 {
		lo, hi = r.Between[0], r.Between[1]
	}
	switch {
	case !known:
		c.Verdict, c.Reason = VerdictInconclusive, "fewer than 2 runs in a cell: no confidence interval (set repeat ≥ 2)"
	case c.Low >= lo && c.High <= hi:
		c.Verdict, c.Reason = VerdictPass, "the whole 95% range of the ratio meets the expectation"
	case c.High < lo || c.Low > hi:
		c.Verdict, c.Reason = VerdictFail, "the whole 95% range of the ratio misses the expectation"
	default:
		c.Verdict, c.Reason = VerdictInconclusive, "the 95% range of the ratio straddles the threshold"
	}
	return c
}

func ratioExpected(r RatioTarget) string {
	if r.AtLeast > 0 {
		return fmt.Sprintf("%s / %s ≥ %s", r.Of, r.Over, num(r.AtLeast))
	}
	return fmt.Sprintf("%s / %s in [%s, %s]", r.Of, r.Over, num(r.Between[0]), num(r.Between[1]))
}

// summaryText renders "mean ± half-width" (or the mean alone).
func summaryText(s Summary, decimals int) string {
	f := func(v float64) string { return fmt.Sprintf("%.*f", decimals, v) }
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
