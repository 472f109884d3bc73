package main

import (
	"encoding/json"
	"fmt"

	"github.com/lab-bench/lab/cmd/lab/internal/view"
	"github.com/lab-bench/lab/internal/operation"
	"github.com/lab-bench/lab/internal/plan"
)

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
	op := g.op()
	lab, err := op.LoadLab(v.opVars())
	if err != nil {
		return err
	}
	if err := only.Check(lab); err != nil {
		return err
	}
	provs, err := op.ConfigureProviders(op.SSHContext(), lab)
	if err != nil {
		return err
	}
	defer op.CloseProviders(provs)
	st, err := op.ReadState(lab.Name)
	if err != nil {
		return err
	}
	p, err := op.MakePlan(lab, st, v.opVars(), provs, operation.Selection{Only: only, OrderSeed: seed})
	if err != nil {
		return err
	}
	ctx, stop := operation.Interruptible(op.SSHContext())
	defer stop()
	if err := op.WarnTemplateDrift(ctx, p, provs); err != nil {
		return err
	}
	if *out != "" {
		operation.RecordTemplates(ctx, g.stderr, p, provs)
	}
	if err := operation.PlanNetworkChanges(ctx, p, provs); err != nil {
		return err
	}
	sensitive := operation.SensitiveVars(lab, v.vars)
	if *out != "" && len(sensitive) > 0 {
		return fmt.Errorf("variable %q is sensitive: a saved plan would hold its value; set it as LAB_VAR_%s in the environment instead (apply reads it again)", sensitive[0], sensitive[0])
	}
	if *asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		shown := *p
		shown.Vars = operation.RedactVars(lab, p.Vars)
		if err := enc.Encode(&shown); err != nil {
			return err
		}
	} else if err := p.Render(g.stdout, plan.RenderOptions{Color: useColor(g, g.stdout)}); err != nil {
		return err
	}
	if *out != "" {
		if err := p.SaveFiltered(*out, g.secrets.Bytes); err != nil {
			return err
		}
		if !*asJSON {
			fmt.Fprintf(g.stdout, "\n%s\n", view.SavedPlanNote(*out))
		}
	}
	if *detailed && operation.HasChanges(p) {
		return reported{exitChanges}
	}
	return nil
}

// exitChanges is plan -detailed-exitcode's status for a plan with changes.
const exitChanges = 2
