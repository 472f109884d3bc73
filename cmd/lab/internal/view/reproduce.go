package view

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
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
		fmt.Fprintf(w, "  %s %s %s\n    published %s, new %s\n    difference %+.1f %% (95 %% CI %+.1f %% … %+.1f %%), MDE %.1f %%: %s",
			c.Experiment, c.Pair, c.CellKey, val(c.Published), val(c.New), pct(c.Diff), pct(c.DiffLow), pct(c.DiffHigh), 100*c.MDE, c.Verdict)
		if c.Note != "" {
			fmt.Fprintf(w, " (%s)", c.Note)
		}
		fmt.Fprintln(w)
	}
	if len(r.Shapes) > 0 {
		fmt.Fprintf(w, "\nShape: each cell over the first cell of its experiment and pair, paired by block (geometric mean of\nthe blocks' ratios, 95 %% interval); reproduced when its change stays within ±%s, not reproduced when\nit lies wholly beyond (MDE: the change seen with 80 %% power)\n",
			strconv.FormatFloat(100*r.ShapeMargin, 'g', -1, 64)+" %")
	}
	for _, s := range r.Shapes {
		name := fmt.Sprintf("%s %s %s / %s", s.Experiment, s.Pair, s.CellKey, s.Reference)
		if s.ReferencePair != "" { // a duet: the same cell, two pairs' flows at once
			name = fmt.Sprintf("%s %s: pair %s / pair %s (flows at once, paired by repeat)", s.Experiment, s.CellKey, s.Pair, s.ReferencePair)
		}
		fmt.Fprintf(w, "  %s\n    published %s, new %s\n    %s\n", name,
			ShapeText(s.PublishedShape), ShapeText(s.NewShape), ShapeChangeText(s.ShapeChange))
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

// ShapeText renders a block-paired ratio: "1.98 [1.90, 2.05] (10 blocks)".
func ShapeText(l verdicts.LogRatio) string {
	if l.Blocks == 0 {
		return "— (no paired block)"
	}
	if !l.Known {
		return fmt.Sprintf("%.3g (%d block)", l.Ratio, l.Blocks)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] (%d blocks)", l.Ratio, l.Low, l.High, l.Blocks)
}

// ShapeChangeText renders a shape's change, its interval, MDE and verdict:
// "change -48.5 % (95 % CI -55.1 % … -41.2 %), MDE 18.3 %: not
// reproduced", with the blocks a 10 % change needs when inconclusive.
func ShapeChangeText(c verdicts.ShapeChange) string {
	s := fmt.Sprintf("change %+.1f %%", 100*c.Change)
	if c.SE > 0 {
		s += fmt.Sprintf(" (95 %% CI %+.1f %% … %+.1f %%), MDE %.1f %%", 100*c.ChangeLow, 100*c.ChangeHigh, 100*c.MDE)
	}
	s += ": " + string(c.Verdict)
	if c.Verdict == verdicts.Inconclusive && c.BlocksNeeded > 0 {
		s += fmt.Sprintf(" — needs ≈ %d blocks a run to see %.0f %%", c.BlocksNeeded, 100*verdicts.MDETarget)
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return s
}

// Reproduce is reproduce's view (operation.ReproduceView): apply's, then
// the verdicts as text or, with JSON, as one JSON object.
type Reproduce struct{ *Apply }

// Signed says on stderr who signed the bundle's manifest.
func (v Reproduce) Signed(who, file string) {
	fmt.Fprintf(v.Stderr, "Bundle signed by %q (%s).\n", who, file)
}

// Reproducing says which run is reproduced where.
func (v Reproduce) Reproducing(runID, lab, bundle, work string) {
	fmt.Fprintf(v.say(), "Reproducing run %s of lab %q from %s in %s.\n\n", runID, lab, bundle, work)
}

// Notes is where lines on the bundle's spec go.
func (v Reproduce) Notes() io.Writer { return v.say() }

// Reproduction shows the verdicts.
func (v Reproduce) Reproduction(r *operation.Reproduction) error {
	if v.JSON {
		return json.NewEncoder(v.Stdout).Encode(r)
	}
	Reproduction(v.Stdout, r)
	return nil
}
