package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lab-bench/lab/atomicfile"
	"github.com/lab-bench/lab/plan"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/spec"
	"github.com/lab-bench/lab/state"
)

func runPlan(g *globals, args []string) error {
	fs := newFlags(g, "plan", "plan [-out FILE] [-only key=value,…] [-detailed-exitcode] [-lock-timeout D] [-var k=v] [-var-file F] [-json]")
	var v varFlags
	v.register(fs)
	var only onlyFlags
	only.register(fs)
	out := fs.String("out", "", "save the plan to `FILE` for `lab apply FILE`")
	registerLockTimeout(g, fs)
	asJSON := fs.Bool("json", false, "print the plan as JSON")
	detailed := fs.Bool("detailed-exitcode", false, "exit 0 when apply would change nothing, 2 when it would create, replace or destroy something or run a benchmark (1: error)")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	lab, err := loadLab(g, v)
	if err != nil {
		return err
	}
	if err := only.check(lab); err != nil {
		return err
	}
	provs, err := configureProviders(sshContext(g), g, lab)
	if err != nil {
		return err
	}
	defer closeProviders(g, provs)
	st, err := readState(g, lab.Name)
	if err != nil {
		return err
	}
	p, err := makePlan(g, lab, st, v, provs, selection{only: only})
	if err != nil {
		return err
	}
	ctx, stop := interruptible(sshContext(g))
	defer stop()
	if err := warnTemplateDrift(ctx, g, p, provs); err != nil {
		return err
	}
	if *out != "" {
		recordTemplates(ctx, g.stderr, p, provs)
	}
	if err := planNetworkChanges(ctx, p, provs); err != nil {
		return err
	}
	sensitive := sensitiveVars(lab, v.vars)
	if *out != "" && len(sensitive) > 0 {
		return fmt.Errorf("variable %q is sensitive: a saved plan would hold its value; set it as LAB_VAR_%s in the environment instead (apply reads it again)", sensitive[0], sensitive[0])
	}
	if *asJSON {
		enc := json.NewEncoder(g.stdout)
		enc.SetIndent("", "  ")
		shown := *p
		shown.Vars = redactVars(lab, p.Vars)
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
			fmt.Fprintf(g.stdout, "\n%s\n", savedPlanNote(*out))
		}
	}
	if *detailed && hasChanges(p) {
		return reported{exitChanges}
	}
	return nil
}

// exitChanges is plan -detailed-exitcode's status for a plan with changes.
const exitChanges = 2

// hasChanges reports whether applying p would do anything: an action on a
// machine or link other than keeping it, or a run.
func hasChanges(p *plan.Plan) bool {
	add, replace, del, _ := p.Counts()
	return add+replace+del > 0 || len(p.Runs()) > 0
}

// readState loads the state under a short-lived lock, so a plan never reads
// a state that an apply is writing.
func readState(g *globals, labID string) (*state.State, error) {
	store := stateStore(g)
	unlock, err := lockState(g, store, labID, "plan")
	if err != nil {
		return nil, err
	}
	defer releaseLock(g, unlock)
	st, err := store.Load()
	if err != nil {
		return nil, err
	}
	return st, claim(g, st, labID)
}

// makePlan plans the lab against its state and refuses, at the spec lines
// that ask, what a back end cannot do — before anything is created.
func makePlan(g *globals, lab *spec.Lab, st *state.State, v varFlags, provs map[string]providers.Provider, sel selection) (*plan.Plan, error) {
	keep, desc := sel.options()
	v = v.in(g.dir)
	p, diags := plan.New(lab, st, plan.Options{Vars: v.vars, VarFiles: v.files, Now: time.Now(), Select: keep, Selection: desc})
	if !diags.HasErrors() {
		// nft -c on this host, as validate does: a ruleset nft cannot
		// parse is refused before anything is created.
		diags = append(diags, lab.CheckRulesets(context.Background())...)
	}
	if len(diags) > 0 {
		_ = lab.WriteDiagnostics(g.stderr, diags, termWidth(), useColor(g, g.stderr))
	}
	if diags.HasErrors() {
		return nil, reported{exitError}
	}
	if err := sel.checkSelected(p); err != nil {
		return nil, err
	}
	if err := checkCapabilities(g, lab, p, provs); err != nil {
		return nil, err
	}
	return p, nil
}

// sensitiveVars lists the sensitive variables that -var options set.
func sensitiveVars(lab *spec.Lab, vars []string) []string {
	var out []string
	for _, kv := range vars {
		name, _, _ := strings.Cut(kv, "=")
		if lab.Sensitive[strings.TrimSpace(name)] {
			out = append(out, strings.TrimSpace(name))
		}
	}
	return out
}

// redactVars replaces the values of sensitive variables in -var options.
func redactVars(lab *spec.Lab, vars []string) []string {
	out := slices.Clone(vars)
	for i, kv := range out {
		if name, _, _ := strings.Cut(kv, "="); lab.Sensitive[strings.TrimSpace(name)] {
			out[i] = name + "=(sensitive value)"
		}
	}
	return out
}

// savedPlanNote tells where -out wrote the plan: a file (or a symlink's
// target) can be applied later; a device, FIFO or /dev/stdout was written
// through (atomicfile.WriteFunc), and `lab apply` of it would find nothing.
func savedPlanNote(out string) string {
	t, err := atomicfile.Resolve(out)
	switch {
	case err != nil || t.Kind == atomicfile.Regular && !t.Linked:
		return fmt.Sprintf("Saved the plan to %s; run `lab apply %s` to carry it out exactly.", out, out)
	case t.Kind == atomicfile.Regular:
		return fmt.Sprintf("Saved the plan to %s (the target of the symlink %s); run `lab apply %s` to carry it out exactly.", t.Path, out, out)
	}
	return fmt.Sprintf("Wrote the plan to %s (not a regular file, so written through: nothing to `lab apply` later).", out)
}
