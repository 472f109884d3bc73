package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/internal/atomicfile"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
)

// runCompare is `lab compare BASE TEST`: two runs of the lab, cell by cell.
func runCompare(g *globals, args []string) error {
	fs := newFlags(g, "compare", "compare [-json] [-format table|svg|html] [-o FILE] [-metric KEY] [-threshold 5%] [-shape-margin 5%] [-adjust holm|bh] [-fail-on regressed[,…]] BASE TEST")
	metric := fs.String("metric", results.MetricThroughput, "the `metric` compared: "+strings.Join(results.MetricKeys(), ", "))
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	format := fs.String("format", "table", "output `format`: "+strings.Join(report.CompareFormats, ", ")+" (svg, html: base and test overlaid per cell with CIs and verdicts)")
	threshold := percentFlag{v: results.DefaultThreshold}
	fs.Var(&threshold, "threshold", "practical-significance `threshold`: smaller relative changes are never improved/regressed (\"2%\" or 0.02)")
	shape := percentFlag{v: results.DefaultShapeMargin}
	fs.Var(&shape, "shape-margin", "the `margin` of a shape's change, a cell over the first cell of its pair, paired by block within each run (\"5%\" or 0.05)")
	out := fs.String("o", "", "write the comparison to `FILE` instead of standard output")
	adjust := fs.String("adjust", results.AdjustHolm, "multiple-comparison `adjustment`: holm (family-wise error ≤ 5 %) or bh (Benjamini–Hochberg, false discovery rate ≤ 5 %)")
	var failOn changesFlag
	fs.Var(&failOn, "fail-on", "exit 2 when a cell's verdict is one of these `changes` (comma-separated: "+changeNames()+")")
	if err := parseFlags(fs, args, arity{2, 2, fmt.Sprintf("two run ids, BASE and TEST (see the results/ directory; %q and %q name the newest two)",
		results.AliasPrevious, results.AliasLatest)}); err != nil {
		return err
	}
	if _, ok := results.MetricByKey(*metric); !ok {
		return fmt.Errorf("compare -metric %q: unknown metric (known: %s)", *metric, strings.Join(results.MetricKeys(), ", "))
	}
	if !slices.Contains(report.CompareFormats, *format) {
		return fmt.Errorf("compare -format %q: want %s", *format, strings.Join(report.CompareFormats, ", "))
	}
	if !slices.Contains(results.Adjustments, *adjust) {
		return fmt.Errorf("compare -adjust %q: want holm or bh", *adjust)
	}
	rs := g.op().ResultStore()
	groups := make([][]results.CellGroup, 2)
	ids := make([]string, 2)
	for i, arg := range fs.Args() {
		id, err := rs.Resolve(arg)
		if err != nil {
			return err
		}
		_, recs, err := rs.Load(id)
		if err != nil {
			return err
		}
		ids[i], groups[i] = id, results.Group(recs)
	}
	ds := results.Compare(groups[0], groups[1], results.CompareOptions{Threshold: threshold.v, Metric: *metric, Adjust: *adjust, ShapeMargin: shape.v})
	o := atomicfile.NewOutput(*out, g.stdout)
	if *asJSON {
		enc := json.NewEncoder(o)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ds); err != nil {
			return err
		}
	} else if err := report.RenderCompareFormat(o, *format, ids[0], ids[1], ds, report.CompareOptions{
		Options: report.Options{Color: !o.ToFile() && useColor(g, g.stdout)}, Threshold: threshold.v, Adjust: *adjust}); err != nil {
		return err
	}
	if where, err := o.Commit(); err != nil {
		return err
	} else if where != "" {
		fmt.Fprintf(g.stderr, "Wrote the comparison of run %s with run %s to %s.\n", ids[0], ids[1], where)
	}
	for _, d := range ds {
		if slices.Contains(failOn, d.Change) {
			return reported{exitExpect}
		}
	}
	return nil
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
type changesFlag []results.Change

func (c *changesFlag) String() string {
	var s []string
	for _, ch := range *c {
		s = append(s, string(ch))
	}
	return strings.Join(s, ",")
}

func (c *changesFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		ch := results.Change(strings.TrimSpace(part))
		if !slices.Contains(results.Changes, ch) {
			return fmt.Errorf("unknown verdict %q (known: %s)", part, changeNames())
		}
		*c = append(*c, ch)
	}
	return nil
}

func changeNames() string {
	var s []string
	for _, ch := range results.Changes {
		s = append(s, string(ch))
	}
	return strings.Join(s, ", ")
}
