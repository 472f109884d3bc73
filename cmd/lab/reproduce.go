package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/verdicts"
)

// parseReproduceFlags parses reproduce's flags into the operation's
// arguments; asJSON is -json.
func parseReproduceFlags(g *globals, args []string) (a operation.ReproduceArgs, asJSON bool, err error) {
	fl := newFlags(g, "reproduce", "reproduce [-json] [-strict] [-margin 10%] [-shape-margin 5%] [-metric KEY] [-auto-approve] [-work DIR] [-results RUN] [-allowed-signers FILE] [-var k=v] [-var-file F] BUNDLE")
	var vars varFlags
	margin, shape := percentFlag{v: defaultMargin}, percentFlag{v: verdicts.DefaultShapeMargin}
	vars.register(fl)
	fl.BoolVar(&asJSON, "json", false, "print the verdicts as one JSON object (and apply's events as JSON lines)")
	fl.BoolVar(&a.Strict, "strict", false, "exit 2 on an inconclusive verdict too (for CI)")
	fl.BoolVar(&a.Apply.AutoApprove, "auto-approve", false, "skip the interactive approval of the plan")
	fl.Var(&margin, "margin", "equivalence `margin`, a share of each published mean (\"10%\" or 0.1; default: the bundle's)")
	fl.Var(&shape, "shape-margin", "the `margin` of a shape's change, a cell over its reference (\"5%\" or 0.05; default: the bundle's)")
	fl.StringVar(&a.Metric, "metric", results.MetricThroughput, "the `metric` compared: "+strings.Join(results.MetricKeys(), ", "))
	fl.StringVar(&a.Work, "work", "", "run the spec in `DIR` (new or empty; default: a new temporary directory, kept)")
	fl.StringVar(&a.AllowedSigners, "allowed-signers", "", "refuse the bundle unless its manifest is signed by a key of `FILE` (ssh-keygen's allowed signers format)")
	fl.StringVar(&a.Results, "results", "", "compare `RUN`, an existing run of the lab directory (-chdir), instead of applying")
	if err := parseFlags(fl, args, arity{1, 1, "the bundle's directory"}); err != nil {
		return a, asJSON, err
	}
	fl.Visit(func(fg *flag.Flag) {
		a.MarginSet = a.MarginSet || fg.Name == "margin"
		a.ShapeMarginSet = a.ShapeMarginSet || fg.Name == "shape-margin"
	})
	if _, ok := results.MetricByKey(a.Metric); !ok {
		return a, asJSON, fmt.Errorf("reproduce -metric %q: unknown metric (known: %s)", a.Metric, strings.Join(results.MetricKeys(), ", "))
	}
	if a.Results != "" && a.Work != "" {
		return a, asJSON, fmt.Errorf("reproduce: -results compares an existing run, -work runs the spec: give one of them")
	}
	a.Bundle, a.Vars, a.Margin, a.ShapeMargin = fl.Arg(0), vars.opVars(), margin.v, shape.v
	return a, asJSON, nil
}

// runReproduce is `lab reproduce BUNDLE`: one operation call
// (operation.Operation.Reproduce), shown through reproduce's view.
func runReproduce(g *globals, args []string) error {
	a, asJSON, err := parseReproduceFlags(g, args)
	if err != nil {
		return err
	}
	a.Apply.Parallelism, a.Apply.RunsAtOnce = engine.DefaultParallelism, 1
	a.Apply = withDrivers(a.Apply)
	return g.op().Reproduce(context.Background(), a, view.Reproduce{Apply: applyView(g, asJSON)})
}
