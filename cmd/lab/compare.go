package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// runCompare is `lab compare BASE TEST`: one operation call
// (operation.Operation.Compare), two runs of the lab cell by cell, shown
// through compare's view.
func runCompare(g *globals, args []string) error {
	fs := newFlags(g, "compare", "compare [-json] [-format table|svg|html] [-o FILE] [-metric KEY] [-threshold 5%] [-shape-margin 5%] [-adjust holm|bh] [-fail-on regressed[,…]] BASE TEST")
	metric := fs.String("metric", results.MetricThroughput, "the `metric` compared: "+strings.Join(results.MetricKeys(), ", "))
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	format := fs.String("format", "table", "output `format`: "+strings.Join(report.CompareFormats, ", ")+" (svg, html: base and test overlaid per cell with CIs and verdicts)")
	threshold := percentFlag{v: verdicts.DefaultThreshold}
	fs.Var(&threshold, "threshold", "practical-significance `threshold`: smaller relative changes are never improved/regressed (\"2%\" or 0.02)")
	shape := percentFlag{v: verdicts.DefaultShapeMargin}
	fs.Var(&shape, "shape-margin", "the `margin` of a shape's change, a cell over the first cell of its pair, paired by block within each run (\"5%\" or 0.05)")
	out := fs.String("o", "", "write the comparison to `FILE` instead of standard output")
	adjust := fs.String("adjust", verdicts.AdjustHolm, "multiple-comparison `adjustment`: holm (family-wise error ≤ 5 %) or bh (Benjamini–Hochberg, false discovery rate ≤ 5 %)")
	var failOn changesFlag
	fs.Var(&failOn, "fail-on", "exit 2 when a cell's verdict is one of these `changes` (comma-separated: "+changeNames()+")")
	if err := parseFlags(fs, args, arity{2, 2, fmt.Sprintf("two run ids, BASE and TEST (see the results/ directory; %q and %q name the newest two)",
		results.AliasPrevious, results.AliasLatest)}); err != nil {
		return err
	}
	return g.op().Compare(operation.CompareArgs{Base: fs.Arg(0), Test: fs.Arg(1), Metric: *metric, Format: *format,
		Threshold: threshold.v, ShapeMargin: shape.v, Adjust: *adjust, FailOn: failOn},
		view.Compare{Stdout: g.stdout, Stderr: g.stderr, Out: *out, Format: *format, JSON: *asJSON,
			Color: useColor(g, g.stdout), Threshold: threshold.v, Adjust: *adjust})
}

// percentFlag is a fraction given as "2%" or 0.02, in (0, 1).
type percentFlag struct{ v float64 }

func (p *percentFlag) String() string { return strconv.FormatFloat(100*p.v, 'g', -1, 64) + "%" }

func (p *percentFlag) Set(s string) error {
	s = strings.TrimSpace(s)
	scale := 1.0
	if t, ok := strings.CutSuffix(s, "%"); ok {
		s, scale = strings.TrimSpace(t), 0.01
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || f*scale <= 0 || f*scale >= 1 {
		return fmt.Errorf("want a percentage between 0%% and 100%% such as \"2%%\", got %q", s)
	}
	p.v = f * scale
	return nil
}

// changesFlag is a comma-separated list of comparison verdicts.
type changesFlag []verdicts.Change

func (c *changesFlag) String() string {
	var s []string
	for _, ch := range *c {
		s = append(s, string(ch))
	}
	return strings.Join(s, ",")
}

func (c *changesFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		ch := verdicts.Change(strings.TrimSpace(part))
		if !slices.Contains(verdicts.Changes, ch) {
			return fmt.Errorf("unknown verdict %q (known: %s)", part, changeNames())
		}
		*c = append(*c, ch)
	}
	return nil
}

func changeNames() string {
	var s []string
	for _, ch := range verdicts.Changes {
		s = append(s, string(ch))
	}
	return strings.Join(s, ", ")
}
