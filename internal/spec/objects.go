package spec

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// objItem is one key = value item of an object expression.
type objItem struct {
	Key        string
	KeyRange   hcl.Range
	Value      cty.Value
	ValueRange hcl.Range
	Expr       hcl.Expression
}

// objectItems evaluates an object expression item by item so that every
// item keeps its written position and its own source range. An expression
// that is not written as { … } (var.x, merge(…)) is evaluated whole and its
// items come back in sorted key order with the expression's range.
func objectItems(expr hcl.Expression, ctx *hcl.EvalContext, name string) ([]objItem, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	if oc, ok := expr.(*hclsyntax.ObjectConsExpr); ok {
		items := make([]objItem, 0, len(oc.Items))
		seen := map[string]hcl.Range{}
		for _, it := range oc.Items {
			kv, kd := evalExpr(it.KeyExpr, ctx)
			diags = append(diags, kd...)
			if kd.HasErrors() || !kv.IsWhollyKnown() {
				continue // an unknown key reads a variable with no value yet
			}
			key, d := toString(kv, it.KeyExpr.Range(), name+" key")
			if d != nil {
				diags = append(diags, d)
				continue
			}
			if prev, dup := seen[key]; dup {
				diags = append(diags, errorf(it.KeyExpr.Range(), "Duplicate key",
					"The key %q was already given in %s at %s.", key, name, declaredAt(prev)))
				continue
			}
			seen[key] = it.KeyExpr.Range()
			v, vd := evalExpr(it.ValueExpr, ctx)
			diags = append(diags, vd...)
			if vd.HasErrors() {
				continue
			}
			items = append(items, objItem{Key: key, KeyRange: it.KeyExpr.Range(), Value: v,
				ValueRange: it.ValueExpr.Range(), Expr: it.ValueExpr})
		}
		return items, diags
	}
	v, vd := evalExpr(expr, ctx)
	if vd.HasErrors() {
		return nil, vd
	}
	if v.IsNull() {
		return nil, nil
	}
	ty := v.Type()
	if !v.IsWhollyKnown() {
		return nil, nil
	}
	if !(ty.IsObjectType() || ty.IsMapType()) {
		return nil, hcl.Diagnostics{typeErr(expr.Range(), name, "object", v)}
	}
	var items []objItem
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		items = append(items, objItem{Key: k.AsString(), KeyRange: expr.Range(), Value: ev,
			ValueRange: expr.Range(), Expr: expr})
	}
	return items, nil
}
