package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"maps"
	"slices"
)

var labSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}},
}

// decodeLab decodes the one lab block of the directory.
func (l *loader) decodeLab(blocks []*hcl.Block) hcl.Diagnostics {
	if len(blocks) == 0 {
		var rng hcl.Range
		for _, n := range slices.Sorted(maps.Keys(l.lab.Files)) {
			rng = hcl.Range{Filename: n, Start: hcl.InitialPos, End: hcl.InitialPos}
			break
		}
		return hcl.Diagnostics{errorf(rng, "Missing lab block",
			`A lab directory needs exactly one lab "<name>" { … } block.`)}
	}
	b, diags := singleBlock(blocks, "lab")
	if d := checkName(b, 0, "lab", labNameRe, labNameRule); d != nil {
		diags = append(diags, d)
	}
	l.lab.Name = b.Labels[0]
	content, d := b.Body.Content(labSchema)
	diags = append(diags, d...)
	if a := content.Attributes["description"]; a != nil {
		s, d := l.evalString(a)
		diags = append(diags, d...)
		l.lab.Description = s
	}
	return diags
}

// evalValue checks an attribute's references and evaluates it with the
// top-level context (var.* and functions). A value not wholly known comes
// with a notKnownYet error, so that callers skip their checks of it.
func (l *loader) evalValue(a *hcl.Attribute) (cty.Value, hcl.Diagnostics) {
	if _, d := l.checkRefs(a.Expr, nil); d.HasErrors() {
		return cty.NilVal, d
	}
	v, diags := evalExpr(a.Expr, l.ctx)
	if !diags.HasErrors() && !v.IsWhollyKnown() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Value not known yet",
			Detail: "The value reads a variable that has no value yet.", Subject: a.Expr.Range().Ptr(), Extra: notKnownYet{}})
	}
	return v, diags
}

// notKnownYet marks the error evalValue returns for a value that reads a
// variable with no value (one without a valid value, reported where it is
// set, or one not set during validate): it makes callers skip their checks
// of the value, and Load drops it.
type notKnownYet struct{}

// dropNotKnownYet leaves out the notKnownYet errors.
func dropNotKnownYet(diags hcl.Diagnostics) hcl.Diagnostics {
	out := diags[:0:0]
	for _, d := range diags {
		if _, ok := d.Extra.(notKnownYet); !ok {
			out = append(out, d)
		}
	}
	return out
}

// evalString evaluates an attribute that must be a string.
func (l *loader) evalString(a *hcl.Attribute) (string, hcl.Diagnostics) {
	v, diags := l.evalValue(a)
	if diags.HasErrors() {
		return "", diags
	}
	s, d := toString(v, a.Expr.Range(), a.Name)
	if d != nil {
		return "", append(diags, d)
	}
	return s, diags
}

// evalInt evaluates an attribute that must be a whole number in [lo, hi].
func (l *loader) evalInt(a *hcl.Attribute, lo, hi int) (int, hcl.Diagnostics) {
	v, diags := l.evalValue(a)
	if diags.HasErrors() {
		return 0, diags
	}
	i, d := toInt(v, a.Expr.Range(), a.Name, lo, hi)
	if d != nil {
		return 0, append(diags, d)
	}
	return i, diags
}
