package spec

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/lab-bench/lab/internal/diagtext"
	"github.com/zclconf/go-cty/cty"
)

// Sensitive variables (sensitive = true) keep their values out of what lab
// writes: experiments may not use them (every cell's settings and matrix
// values are recorded in plans, results and progress output), and
// diagnostics about them are redacted (see Lab.Redact).

// checkSensitiveRefs refuses any reference to a sensitive variable (or to
// the whole var object, which holds it) inside an experiment block.
func (l *loader) checkSensitiveRefs(b *hcl.Block) hcl.Diagnostics {
	body, ok := b.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var diags hcl.Diagnostics
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics { // reports through diags
		ste, ok := n.(*hclsyntax.ScopeTraversalExpr)
		if !ok || ste.Traversal.RootName() != "var" {
			return nil
		}
		name := ""
		if len(ste.Traversal) > 1 {
			name, _ = stepName(ste.Traversal[1])
		}
		for _, v := range slices.Sorted(maps.Keys(l.varDecls)) {
			if l.varDecls[v].Sensitive && (name == "" || name == v) {
				diags = append(diags, errorf(ste.Traversal.SourceRange(), "Sensitive variable in an experiment",
					"var.%s is sensitive, and an experiment's values are recorded in every plan and result and shown as runs progress; use sensitive variables outside experiments only (provider and template blocks).", v))
				break
			}
		}
		return nil
	})
	return diags
}

// redacted replaces a sensitive value in diagnostics.
const redacted = "(sensitive value)"

// minRedact is the shortest value text Redact replaces: shorter ones
// ("1", "on") would garble every message and hide nothing.
const minRedact = 4

// Redact returns diags with the values of sensitive variables replaced by
// "(sensitive value)" in summaries and details, and without the
// evaluation context (which the text writer would print as "with var.x
// as …") on diagnostics whose expression reads a sensitive variable.
// WriteDiagnostics redacts by itself.
func (l *Lab) Redact(diags hcl.Diagnostics) hcl.Diagnostics {
	var secrets []string
	for name := range l.Sensitive {
		secrets = appendLeaves(secrets, l.Variables[name])
	}
	for _, s := range l.derived {
		secrets = appendLeaves(secrets, cty.StringVal(s))
	}
	if len(l.Sensitive) == 0 {
		return diags
	}
	out := make(hcl.Diagnostics, len(diags))
	for i, d := range diags {
		c := *d
		for _, s := range secrets {
			c.Summary = strings.ReplaceAll(c.Summary, s, redacted)
			c.Detail = strings.ReplaceAll(c.Detail, s, redacted)
		}
		if c.Expression != nil && l.readsSensitive(c.Expression) {
			c.EvalContext = nil
		}
		out[i] = &c
	}
	return out
}

func (l *Lab) readsSensitive(expr hcl.Expression) bool {
	for _, tr := range expr.Variables() {
		if tr.RootName() != "var" {
			continue
		}
		if len(tr) < 2 {
			return true
		}
		if name, ok := stepName(tr[1]); !ok || l.Sensitive[name] {
			return true
		}
	}
	return false
}

// appendLeaves adds the text of every primitive value in v (of at least
// minRedact bytes), longest first is not needed: each is replaced whole.
func appendLeaves(out []string, v cty.Value) []string {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return out
	}
	ty := v.Type()
	switch {
	case ty.IsPrimitiveType():
		s := valueText(v)
		out = appendText(out, s)
		// As a message cuts it short ("got \"first 40 bytes…\"").
		for _, n := range cutLengths {
			if len(s) > n {
				out = appendText(out, truncate(s, n))
			}
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			out = appendLeaves(out, ev)
		}
	}
	return out
}

// cutLengths are the lengths at which the loader's and the benchmark
// blocks' messages cut a value they quote (truncate, hclvalue.Truncate).
var cutLengths = []int{20, 40, 60}

// appendText adds s (of at least minRedact bytes) as it is written and
// as a message quotes it with %q ("got \"a\\x1b\""), and as diagtext.EscapeText
// shows its control bytes: replaced in the diagnostics, before the text
// writer wraps the detail, which may split it at a space.
func appendText(out []string, s string) []string {
	if len(s) < minRedact {
		return out
	}
	out = append(out, s)
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		out = append(out, q[1:len(q)-1])
	}
	if e := diagtext.EscapeText(s, true); e != s {
		out = append(out, e)
	}
	return out
}

// SensitiveValues is the text of every sensitive variable's value, by a
// label unique per value: the variable's name, or name.KEY / name.N for an
// element of a collection; and of every value the lab's expressions
// compute from them (upper(var.key)), labelled NAMES#DIGEST.N (see
// findDerived). lab redacts them in everything it writes (package redact).
func (l *Lab) SensitiveValues() map[string]string {
	out := map[string]string{}
	for name := range l.Sensitive {
		addLeaves(out, name, l.Variables[name])
	}
	maps.Copy(out, l.derived)
	return out
}

func addLeaves(out map[string]string, label string, v cty.Value) {
	if v == cty.NilVal || v.IsNull() || !v.IsKnown() {
		return
	}
	ty := v.Type()
	switch {
	case ty.IsPrimitiveType():
		out[label] = valueText(v)
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		n := 0
		for it := v.ElementIterator(); it.Next(); n++ {
			k, ev := it.Element()
			key := strconv.Itoa(n)
			if k.Type() == cty.String {
				key = k.AsString()
			}
			addLeaves(out, label+"."+key, ev)
		}
	}
}
