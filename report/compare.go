package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/lab-bench/lab/results"
)

// changeColor is the ANSI colour of each comparison verdict.
var changeColor = map[results.Change]string{
	results.Improved:  "\x1b[32m",
	results.Regressed: "\x1b[31m",
	results.TooNoisy:  ansiYellow,
}

// RenderCompare writes a base-versus-test table, one row per cell.
func RenderCompare(w io.Writer, base, test string, ds []results.Delta, opt Options) error {
	if _, err := fmt.Fprintf(w, "base %s → test %s\n", base, test); err != nil {
		return err
	}
	table := tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
	table.Header([]string{"experiment", "pair", "cell", "base Gb/s", "test Gb/s", "delta", "p", "verdict"})
	for _, d := range ds {
		delta, p := "-", "-"
		if d.Base.N > 0 && d.Test.N > 0 {
			delta = fmt.Sprintf("%+.1f %%", 100*d.RelDiff)
		}
		if d.Base.N > 1 && d.Test.N > 1 {
			p = fmt.Sprintf("%.3g", d.P)
		}
		v := string(d.Change)
		if c := changeColor[d.Change]; opt.Color && c != "" {
			v = c + v + ansiReset
		}
		cell := strings.ReplaceAll(d.CellKey, ",", " ")
		if err := table.Append([]string{d.Experiment, d.Pair, cell, throughput(d.Base), throughput(d.Test), delta, p, v}); err != nil {
			return fmt.Errorf("render compare: %w", err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("render compare: %w", err)
	}
	_, err := fmt.Fprintf(w, "Welch's t-test, two-sided, α = %.2f; \"no change\": the 95 %% CI of the difference lies within ±%.0f %% of base; "+
		"\"too noisy\": neither; \"missing\": a side has < 2 runs.\n", results.Alpha, 100*results.Equivalence)
	return err
}
