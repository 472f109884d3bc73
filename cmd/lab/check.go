package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/report"
	"github.com/lab-bench/lab/internal/spec"
)

// runCheck is `lab check [RUN]`: evaluate the spec's expect blocks against
// a run (default: the latest) and exit 2 when one fails.
func runCheck(g *globals, args []string) error {
	fs := newFlags(g, "check", "check [-json] [-strict] [-partial] [-junit FILE] [-var k=v] [-var-file F] [RUN ...]")
	var v varFlags
	v.register(fs)
	asJSON := fs.Bool("json", false, "print the outcomes as JSON")
	strict := fs.Bool("strict", false, "exit 2 on an inconclusive or incomplete expectation too (for CI)")
	partial := fs.Bool("partial", false, "check a run that was interrupted or is still running (its cells are marked incomplete)")
	junit := fs.String("junit", "", "also write the verdicts as JUnit XML to `FILE` (inconclusive/incomplete: skipped; with -strict: failures)")
	if err := parseFlags(fs, args, arity{0, 64, "run ids (at most 64)"}); err != nil {
		return err
	}
	lab, err := loadLab(g, v)
	if err != nil {
		return err
	}
	// Several runs (ids or aliases) are checked together, each apply's
	// cell mean one observation.
	return check(g, lab, strings.Join(fs.Args(), " "), checkOptions{json: *asJSON, strict: *strict, junit: *junit, partial: *partial})
}

type checkOptions struct {
	json, strict bool
	// partial allows checking a run that was interrupted or is running.
	partial bool
	// junit is the JUnit XML file to write ("" for none).
	junit string
}

// check evaluates lab's expectations against run runID ("" = latest; the
// aliases "latest" and "previous" work too),
// prints the verdicts and returns reported{exitExpect} on a failure (with
// strict: on any verdict but pass). A run that did not complete makes
// every verdict that is not a fail incomplete.
func check(g *globals, lab *spec.Lab, runID string, opt checkOptions) error {
	exps, err := operation.Expectations(lab)
	if err != nil {
		return err
	}
	if len(exps) == 0 {
		fmt.Fprintf(g.stdout, "Lab %q has no expect blocks: nothing to check.\n", lab.Name)
		return nil
	}
	runID, outs, err := g.op().Check(lab, exps, strings.Fields(runID), opt.partial)
	if err != nil {
		return err
	}
	if opt.json {
		// One line, so that it fits apply's -json event stream.
		if err := json.NewEncoder(g.stdout).Encode(map[string]any{"type": "check", "run": runID, "outcomes": outs}); err != nil {
			return err
		}
	} else if err := report.RenderChecks(g.stdout, runID, outs, report.Options{Color: useColor(g, g.stdout)}); err != nil {
		return err
	}
	if opt.junit != "" {
		if err := operation.WriteJUnit(opt.junit, runID, outs, opt.strict); err != nil {
			return err
		}
	}
	for _, o := range outs {
		// Not reproduced fails like a fail; not comparable never does (the
		// run is not on the post's hardware: only shapes were judged).
		if o.Verdict.Failing() || opt.strict && !o.Verdict.Settled() {
			return reported{exitExpect}
		}
	}
	return nil
}
