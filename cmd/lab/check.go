package main

import (
	"strings"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
)

// runCheck is `lab check [RUN]`: one operation call (operation.Operation.Check)
// evaluates the spec's expect blocks against a run (default: the latest);
// exit 2 when one fails.
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
	// Several runs (ids or aliases) are checked together, each apply's
	// cell mean one observation.
	return g.op().Check(operation.CheckArgs{Vars: v.opVars(), Runs: strings.Fields(strings.Join(fs.Args(), " ")),
		Partial: *partial, Strict: *strict, JUnit: *junit}, view.Check{W: g.stdout, JSON: *asJSON, Color: useColor(g, g.stdout)})
}
