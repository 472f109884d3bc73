package main

import (
	"context"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
)

// runPlan is `lab plan`: one operation call (operation.Operation.Plan),
// shown through plan's view.
func runPlan(g *globals, args []string) error {
	fs := newFlags(g, "plan", "plan [-out FILE] [-only key=value,…] [-order-seed N] [-detailed-exitcode] [-lock-timeout D] [-var k=v] [-var-file F] [-json]")
	var v varFlags
	v.register(fs)
	var only operation.Only
	registerOnly(fs, &only)
	var seed int64
	registerOrderSeed(fs, &seed)
	out := fs.String("out", "", "save the plan to `FILE` for `lab apply FILE`")
	registerLockTimeout(g, fs)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when apply would change nothing, 2 when it would create, replace or destroy something or run a benchmark (1: error)")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	changes, err := g.op().Plan(context.Background(), operation.PlanArgs{Vars: v.opVars(), Only: only, OrderSeed: seed, Out: *out},
		view.Plan{W: g.stdout, JSON: *asJSON, Color: useColor(g, g.stdout)})
	if err == nil && *detailed && changes {
		return reported{exitChanges}
	}
	return err
}

// exitChanges is plan -detailed-exitcode's status for a plan with changes.
const exitChanges = 2
