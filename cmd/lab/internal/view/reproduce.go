package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
)

// Reproduction writes a reproduction's verdicts for people.
func Reproduction(w io.Writer, r *operation.Reproduction) {
	m, _ := results.MetricByKey(r.Metric)
	val := func(s results.Summary) string {
		if s.N == 0 {
			return "—"
		}
		return fmt.Sprintf("%.*f ± %.*f %s (n=%d)", m.Decimals, m.Display(s.Mean), m.Decimals, m.Display(s.HalfWidth()), m.Unit, s.N)
	}
	fmt.Fprintf(w, "\nRun %s (%s) against the published run %s of lab %q: %s within ±%s of each published mean.\n\n",
		r.NewRun, r.NewRunDir, r.PublishedRun, r.Lab, strings.TrimSuffix(m.Label, " "+m.Unit), strconv.FormatFloat(100*r.Margin, 'g', -1, 64)+" %")
	for _, c := range r.Cells {
		pct := func(x float64) float64 {
			if c.Published.Mean == 0 {
				return 0
			}
			return 100 * x / c.Published.Mean
		}
		fmt.Fprintf(w, "  %s %s %s\n    published %s, new %s\n    difference %+.1f %% (95 %% CI %+.1f %% … %+.1f %%): %s",
			c.Experiment, c.Pair, c.CellKey, val(c.Published), val(c.New), pct(c.Diff), pct(c.DiffLow), pct(c.DiffHigh), c.Verdict)
		if c.Note != "" {
			fmt.Fprintf(w, " (%s)", c.Note)
		}
		fmt.Fprintln(w)
	}
	if len(r.Shapes) > 0 {
		fmt.Fprintf(w, "\nShape: each cell over the first cell of its experiment and pair (ratio of means, 95 %% Fieller interval)\n")
	}
	interval := func(lo, hi float64) string {
		if lo == 0 && hi == 0 {
			return "(interval unbounded)"
		}
		return fmt.Sprintf("[%.3g, %.3g]", lo, hi)
	}
	for _, s := range r.Shapes {
		fmt.Fprintf(w, "  %s %s %s / %s: published %.3g %s, new %.3g %s: %s\n", s.Experiment, s.Pair, s.CellKey, s.Reference,
			s.Published, interval(s.PublishedLow, s.PublishedHi), s.New, interval(s.NewLow, s.NewHigh), s.Verdict)
	}
	if len(r.Expects) > 0 {
		fmt.Fprintf(w, "\nThe spec's expect blocks on the new run:\n")
	}
	for i, o := range r.Expects {
		fmt.Fprintf(w, "  %s: %s", o.Name, o.Verdict)
		if was := r.BundleVerdict(i); operation.FailedExpect(o.Verdict) && was != "" {
			fmt.Fprintf(w, " (on the bundle's run: %s)", was)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\nVerdict: %s\n", r.Verdict)
}
