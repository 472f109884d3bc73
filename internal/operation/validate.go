package operation

import (
	"context"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/providers"
)

// UnknownVariables names the variables validate took as unknown, sorted.
func UnknownVariables(lab *spec.Lab) []string {
	var names []string
	for name, v := range lab.Variables {
		if !v.IsKnown() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// ValidateLab loads the lab in validate's mode and configures its
// providers offline; the lab is never nil.
func (o *Operation) ValidateLab(v Vars) (*spec.Lab, hcl.Diagnostics) {
	v = v.In(o.Dir)
	lab, diags := spec.Load(o.Dir, spec.Options{Vars: v.Vars, VarFiles: v.Files, Env: o.Env,
		KnownProviders: providers.Names(), UnknownRequired: true,
		SharesHostKernel: providers.SharesHostKernel})
	o.addSecrets(lab)
	if diags.HasErrors() {
		return lab, diags
	}
	_, pd := o.NewProviders(providers.WithOffline(context.Background()), lab)
	diags = append(diags, dropUnknownErrors(pd, unknownRanges(lab))...)
	// Firewall rulesets: this host's nft -c, in a network namespace of its own.
	return lab, append(diags, lab.CheckRulesets(context.Background())...)
}

// CountCells is how many cells the lab's experiments have.
func CountCells(lab *spec.Lab) int {
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
