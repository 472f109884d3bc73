package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/spec"
)

// runValidate is `lab validate`: decode and check the spec, as Terraform
// does, with no variable values and no credentials needed. A required
// variable without a value is an unknown value of its type; providers are
// configured offline; an error about a value not known yet is no error.
func runValidate(g *globals, args []string) error {
	fs := newFlags(g, "validate", "validate [-json] [-var k=v] [-var-file F]")
	var v varFlags
	v.register(fs)
	asJSON := fs.Bool("json", false, "print the outcome and the diagnostics, with their source ranges, as JSON (for editors)")
	if err := parseFlags(fs, args, noArgs); err != nil {
		return err
	}
	lab, diags := validateLab(g, v)
	if *asJSON {
		if err := writeDiagnosticsJSON(g.stdout, g.dir, lab, diags); err != nil {
			return err
		}
		if diags.HasErrors() {
			return reported{exitError}
		}
		return nil
	}
	if len(diags) > 0 {
		_ = lab.WriteDiagnostics(g.stderr, diags, termWidth(), useColor(g, g.stderr))
	}
	if diags.HasErrors() {
		return reported{exitError}
	}
	fmt.Fprintf(g.stdout, "Success! Lab %q is valid: %d experiment(s), %d pair(s), %d cell(s).\n",
		lab.Name, len(lab.Experiments), len(lab.Pairs), countCells(lab))
	if names := unknownVariables(lab); len(names) > 0 {
		fmt.Fprintf(g.stdout, "Variables without a value were taken as unknown (%s): what reads them is checked by plan, which needs their values.\n",
			strings.Join(names, ", "))
	}
	return nil
}

// unknownVariables names the variables validate took as unknown, sorted.
func unknownVariables(lab *spec.Lab) []string {
	var names []string
	for name, v := range lab.Variables {
		if !v.IsKnown() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// validateLab loads the lab in validate's mode and configures its
// providers offline; the lab is never nil.
func validateLab(g *globals, v varFlags) (*spec.Lab, hcl.Diagnostics) {
	v = v.in(g.dir)
	lab, diags := spec.Load(g.dir, spec.Options{Vars: v.vars, VarFiles: v.files, Env: g.env,
		KnownProviders: providers.Names(), UnknownRequired: true})
	addSecrets(g, lab)
	if diags.HasErrors() {
		return lab, diags
	}
	_, pd := newProviders(providers.WithOffline(context.Background()), g, lab)
	diags = append(diags, dropUnknownErrors(pd, unknownRanges(lab))...)
	// Firewall rulesets: this host's nft -c, in a network namespace of its own.
	return lab, append(diags, lab.CheckRulesets(context.Background())...)
}

// countCells is how many cells the lab's experiments have.
func countCells(lab *spec.Lab) int {
	cells := 0
	for _, e := range lab.Experiments {
		n := len(e.Pairs)
		for _, d := range e.Matrix {
			n *= len(d.Values)
		}
		cells += n
	}
	return cells
}

// unknownRanges are the ranges of the provider blocks' attribute
// expressions whose values are not known yet (they read a variable with no
// value): a provider cannot check those, and says so with an error.
func unknownRanges(lab *spec.Lab) []hcl.Range {
	var out []hcl.Range
	for _, pb := range lab.Providers {
		if body, ok := pb.Body.(*hclsyntax.Body); ok {
			out = appendUnknown(out, body, lab.EvalContext())
		}
	}
	return out
}

func appendUnknown(out []hcl.Range, body *hclsyntax.Body, ctx *hcl.EvalContext) []hcl.Range {
	for _, a := range body.Attributes {
		v, d := a.Expr.Value(ctx)
		if !d.HasErrors() && !v.IsWhollyKnown() {
			out = append(out, a.Expr.Range())
		}
	}
	for _, b := range body.Blocks {
		out = appendUnknown(out, b.Body, ctx)
	}
	return out
}

// dropUnknownErrors leaves out the errors about an expression in unknown.
func dropUnknownErrors(diags hcl.Diagnostics, unknown []hcl.Range) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if d.Severity == hcl.DiagError && d.Subject != nil && withinAny(*d.Subject, unknown) {
			continue
		}
		out = append(out, d)
	}
	return out
}

func withinAny(r hcl.Range, in []hcl.Range) bool {
	for _, u := range in {
		if r.Filename == u.Filename && r.Start.Byte >= u.Start.Byte && r.End.Byte <= u.End.Byte {
			return true
		}
	}
	return false
}
