package view

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// Effects prints `lab effects`: for each experiment and pair, each
// metric's fitted mean and, per term, the contrast (two levels) or each
// level's deviation from the mean, with 95 % CI and the term's F test,
// in the metric's display unit.
func Effects(w io.Writer, info results.RunInfo, effs []verdicts.FactorEffects) {
	fmt.Fprintf(w, "Run %s of lab %q: factor effects (least squares, sum-to-zero coding, 95 %% CI)\n", info.ID, info.Lab)
	for _, fe := range effs {
		fmt.Fprintf(w, "\n%s / %s: %d runs in %d cells", fe.Experiment, fe.Pair, fe.Runs, fe.Cells)
		var fs []string
		for _, f := range fe.Factors {
			fs = append(fs, fmt.Sprintf("%s (%d levels)", f.Name, len(f.Levels)))
		}
		if len(fs) > 0 {
			fmt.Fprintf(w, "; factors %s", strings.Join(fs, ", "))
		}
		if fe.Failed+fe.Disturbed > 0 {
			fmt.Fprintf(w, "; left out: %d failed, %d disturbed", fe.Failed, fe.Disturbed)
		}
		fmt.Fprintln(w)
		switch {
		case len(fe.Factors) == 0:
			fmt.Fprintln(w, "  the matrix varies nothing here: no effect to estimate")
			continue
		case fe.Runs == 0:
			fmt.Fprintln(w, "  no successful run: nothing to estimate")
			continue
		}
		for _, me := range fe.Metrics {
			metricEffects(w, me)
		}
	}
}

func metricEffects(w io.Writer, me verdicts.MetricEffects) {
	m, _ := results.MetricByKey(me.Metric)
	dec := m.Decimals + 1
	label := m.Label
	if label == "" {
		label = me.Metric
	}
	fmt.Fprintf(w, "\n  %s: mean %s, residual sd %s on %d df (%d runs)\n", label,
		strings.TrimPrefix(strings.ReplaceAll(estimateText(m, me.Mean, dec), "\t", " "), "+"), number(m.Display(me.ResidualSD), dec), me.DF, me.N)
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    term\tlevels\teffect\t95 % CI\tF\tp")
	for _, t := range me.Terms {
		name, test := t.TermName(), "-\t-"
		if t.Tested {
			test = fmt.Sprintf("%.2f\t%s", t.F, pText(t.P))
		}
		for i, e := range t.Shown() {
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\n", name, e.Label(), estimateText(m, e, dec), test)
			if i == 0 {
				name, test = "", "\t"
			}
		}
	}
	_ = tw.Flush()
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		fmt.Fprint(w, strings.TrimRight(line, " \n")+strings.Repeat("\n", strings.Count(line, "\n")))
	}
}

// estimateText is "+4.22\t[-0.87, 9.31]", or why there is no figure.
func estimateText(m results.Metric, e verdicts.Estimate, dec int) string {
	switch {
	case !e.Estimable:
		return "not estimable\t(a cell it needs has no run)"
	case !e.Known:
		return signed(m.Display(e.Value), dec) + "\t(no residual df: no interval)"
	}
	return signed(m.Display(e.Value), dec) + "\t[" + number(m.Display(e.CI95Low), dec) + ", " + number(m.Display(e.CI95High), dec) + "]"
}

func signed(v float64, dec int) string {
	s := number(v, dec)
	if !strings.HasPrefix(s, "-") && s != "0" {
		s = "+" + s
	}
	return s
}

func number(v float64, dec int) string {
	p := math.Pow10(dec)
	r := math.Round(v*p) / p
	if r == 0 {
		r = 0
	}
	return strconv.FormatFloat(r, 'f', dec, 64)
}

func pText(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}
