package spec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// maxDimValues bounds the values of one matrix key (before the product
// of all keys is checked against MaxCells).
const maxDimValues = MaxCells

// decodeMatrix decodes matrix = { key = [values…], … }, keeping the keys
// in the order written. It returns the key ranges too (for "unused key").
func (l *loader) decodeMatrix(a *hcl.Attribute) ([]Dimension, []hcl.Range, hcl.Diagnostics) {
	if _, d := l.checkRefs(a.Expr, nil); d.HasErrors() {
		return nil, nil, d
	}
	items, diags := objectItems(a.Expr, l.ctx, "matrix")
	var dims []Dimension
	var ranges []hcl.Range
	for _, it := range items {
		switch {
		case it.Key == "pair":
			diags = append(diags, errorf(it.KeyRange, "Reserved matrix key",
				`The matrix key "pair" is reserved: the pairs of the experiment are listed in pairs = […], and expectations select them with pair = "…".`))
			continue
		case !hclsyntax.ValidIdentifier(it.Key):
			diags = append(diags, errorf(it.KeyRange, "Invalid matrix key",
				"%q is not a valid matrix key: it must be usable as matrix.<key> (letters, digits, _ and -, starting with a letter).", truncate(it.Key, 40)))
			continue
		}
		vals, d := dimValues(it)
		diags = append(diags, d...)
		if d.HasErrors() {
			// Keep the key, with an unknown value, so that expressions
			// using it do not report it again as undeclared.
			vals = []cty.Value{cty.DynamicVal}
		}
		dims = append(dims, Dimension{Name: it.Key, Values: vals})
		ranges = append(ranges, it.KeyRange)
	}
	if d := ambiguousCellKeys(dims, ranges); d != nil {
		diags = append(diags, d)
	}
	return dims, ranges, diags
}

// ambiguousCellKeys refuses a string value holding ",<key>=" for a key of
// the matrix: a cell key ("a=x,b=1") could then be read two ways, and
// two cells could print the same one.
func ambiguousCellKeys(dims []Dimension, ranges []hcl.Range) *hcl.Diagnostic {
	if len(dims) < 2 {
		return nil
	}
	for i, d := range dims {
		for _, v := range d.Values {
			if !v.IsKnown() || v.IsNull() || v.Type() != cty.String {
				continue
			}
			for _, other := range dims {
				if sep := "," + other.Name + "="; strings.Contains(v.AsString(), sep) {
					return errorf(ranges[i], "Ambiguous matrix value",
						"matrix.%s has the value %q, which holds %q: its cells' keys (like \"%s=…,%s=…\") could not be told apart. Keep \",\" or \"=\" out of it.",
						d.Name, truncate(v.AsString(), 40), sep, d.Name, other.Name)
				}
			}
		}
	}
	return nil
}

// dimValues checks one key's list: non-empty, primitive, no duplicates.
func dimValues(it objItem) ([]cty.Value, hcl.Diagnostics) {
	v := it.Value
	ty := v.Type()
	if !v.IsKnown() {
		// A variable without a valid value (reported already) or with no
		// value yet (validate): one value, unknown.
		return []cty.Value{cty.DynamicVal}, nil
	}
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType()) {
		return nil, hcl.Diagnostics{errorf(it.ValueRange, "Invalid matrix values",
			"matrix.%s must be a list of values like [1500, 9000], got %s.", it.Key, describe(v))}
	}
	n := v.LengthInt()
	if n == 0 {
		return nil, hcl.Diagnostics{errorf(it.ValueRange, "Empty matrix key",
			"matrix.%s has no values; give at least one.", it.Key)}
	}
	if n > maxDimValues {
		return nil, hcl.Diagnostics{errorf(it.ValueRange, "Too many matrix values",
			"matrix.%s has %d values; at most %d are allowed.", it.Key, n, maxDimValues)}
	}
	// Element ranges when the list is written as [ … ].
	var elemRanges []hcl.Range
	if tc, ok := it.Expr.(*hclsyntax.TupleConsExpr); ok && len(tc.Exprs) == n {
		for _, e := range tc.Exprs {
			elemRanges = append(elemRanges, e.Range())
		}
	}
	rangeOf := func(i int) hcl.Range {
		if elemRanges != nil {
			return elemRanges[i]
		}
		return it.ValueRange
	}
	vals := make([]cty.Value, 0, n)
	seen := map[string]bool{}
	for i, ev := range v.AsValueSlice() {
		switch {
		case !ev.IsKnown():
			vals = append(vals, ev) // a variable with no value (yet): no duplicate of anything known
			continue
		case ev.IsNull():
			return nil, hcl.Diagnostics{errorf(rangeOf(i), "Invalid matrix value",
				"matrix.%s values cannot be null.", it.Key)}
		case !(ev.Type() == cty.Number || ev.Type() == cty.Bool || ev.Type() == cty.String):
			return nil, hcl.Diagnostics{errorf(rangeOf(i), "Invalid matrix value",
				"matrix.%s values must be numbers, bools or strings, got %s.", it.Key, ev.Type().FriendlyName())}
		}
		// 1 and "1" are one value: they make the same cell key and result
		// directory, and a selector cannot tell them apart.
		key := valueText(ev)
		if seen[key] {
			return nil, hcl.Diagnostics{errorf(rangeOf(i), "Duplicate matrix value",
				"matrix.%s lists %s more than once.", it.Key, displayValue(ev))}
		}
		seen[key] = true
		vals = append(vals, ev)
	}
	return vals, nil
}

// findDimValue returns the dimension value that v stands for: equal, or
// written the same way ("1500" for 1500).
func findDimValue(d Dimension, v cty.Value) (cty.Value, bool) {
	if v.IsNull() || !v.IsKnown() || !v.Type().IsPrimitiveType() {
		return cty.NilVal, false
	}
	text := valueText(v)
	for _, dv := range d.Values {
		if valueText(dv) == text {
			return dv, true
		}
	}
	return cty.NilVal, false
}

// hasUnknown reports whether a dimension lists a value not known yet.
func hasUnknown(vals []cty.Value) bool {
	for _, v := range vals {
		if !v.IsKnown() {
			return true
		}
	}
	return false
}
