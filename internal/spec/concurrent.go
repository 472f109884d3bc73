package spec

import (
	"github.com/hashicorp/hcl/v2"
)

// concurrentSchema is the experiment attribute that runs its pairs' flows
// at the same moment (kept apart from experimentSchema's list so that the
// attribute and its rules read together).
var concurrentSchema = []hcl.AttributeSchema{{Name: "concurrent"}}

// decodeConcurrent reads concurrent = true|false. With true, every cell
// runs on all the experiment's pairs at once — one flow per pair, their
// clients started together (seed 001's c1 -> s1 and c2 -> s2 through one
// firewall) — so it needs two pairs or more, and fixed repeats: adaptive
// repeats decide per pair and cell, and stopping one flow of a cell while
// another goes on would change the load the other is measured under.
func (l *loader) decodeConcurrent(e *Experiment, attrs hcl.Attributes) hcl.Diagnostics {
	a := attrs["concurrent"]
	if a == nil {
		return nil
	}
	v, diags := l.evalValue(a)
	if diags.HasErrors() {
		return diags
	}
	on, d := toBool(v, a.Expr.Range(), a.Name)
	if d != nil {
		return append(diags, d)
	}
	e.Concurrent = on
	if !on {
		return diags
	}
	if p := attrs["pairs"]; p != nil && len(e.Pairs) == 1 {
		diags = append(diags, errorf(a.Expr.Range(), "Concurrent flows need two pairs",
			"concurrent = true runs every cell on all the experiment's pairs at the same moment, one flow per pair; pairs lists only pair.%s. List two or more pairs (as seed 001's c1 -> s1 and c2 -> s2), or remove concurrent.",
			e.Pairs[0]))
	}
	if r := attrs["repeat"]; r != nil && (e.MinRepeat > 0 || e.UntilVerdict) {
		diags = append(diags, errorf(r.Expr.Range(), "Adaptive repeats with concurrent flows",
			"Adaptive repeats stop each pair's cell on its own, but with concurrent = true (at %s) the flows of a cell run together: stopping one would change the load the others are measured under. Use repeat = N.",
			declaredAt(a.Range)))
	}
	if b := attrs["budget"]; b != nil && e.Budget > 0 {
		diags = append(diags, errorf(b.Expr.Range(), "Budget with concurrent flows",
			"A budget stops each cell on its verdict, but with concurrent = true (at %s) the flows of a cell run together. Use repeat = N.",
			declaredAt(a.Range)))
	}
	return diags
}
