package operation

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// CompareArgs are compare's arguments, parsed from its flags by the CLI.
type CompareArgs struct {
	// Base and Test are the two runs compared (ids or aliases).
	Base, Test string
	// Metric is the metric compared (a results metric key).
	Metric string
	// Format is the output format (report.CompareFormats), checked here
	// so that a wrong one is refused before any run is read.
	Format string
	// Threshold, ShapeMargin and Adjust are verdicts.CompareOptions'.
	Threshold, ShapeMargin float64
	Adjust                 string
	// FailOn are the verdicts that make compare fail (ErrExpectFailed).
	FailOn []verdicts.Change
}

// CompareView shows a comparison.
type CompareView interface {
	// Comparison shows the verdicts of run testID over run baseID.
	Comparison(baseID, testID string, ds []verdicts.Delta) error
}

// Compare is `lab compare BASE TEST`: it checks the metric, format and
// adjustment, loads the two runs, compares them cell by cell, shows the
// verdicts and returns ErrExpectFailed when one is among FailOn.
func (o *Operation) Compare(args CompareArgs, view CompareView) error {
	if _, ok := results.MetricByKey(args.Metric); !ok {
		return fmt.Errorf("compare -metric %q: unknown metric (known: %s)", args.Metric, strings.Join(results.MetricKeys(), ", "))
	}
	if !slices.Contains(report.CompareFormats, args.Format) {
		return fmt.Errorf("compare -format %q: want %s", args.Format, strings.Join(report.CompareFormats, ", "))
	}
	if !slices.Contains(verdicts.Adjustments, args.Adjust) {
		return fmt.Errorf("compare -adjust %q: want holm or bh", args.Adjust)
	}
	rs := o.ResultStore()
	groups := make([][]results.CellGroup, 2)
	ids := make([]string, 2)
	for i, arg := range []string{args.Base, args.Test} {
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
	ds := verdicts.Compare(groups[0], groups[1], verdicts.CompareOptions{Threshold: args.Threshold, Metric: args.Metric,
		Adjust: args.Adjust, ShapeMargin: args.ShapeMargin})
	if err := view.Comparison(ids[0], ids[1], ds); err != nil {
		return err
	}
	for _, d := range ds {
		if slices.Contains(args.FailOn, d.Change) {
			return ErrExpectFailed
		}
	}
	return nil
}
