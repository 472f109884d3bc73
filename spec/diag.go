package spec

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// errorf makes one error diagnostic pointing at rng.
func errorf(rng hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	r := rng
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  &r,
	}
}

// attrErr makes an error diagnostic for an attribute's value.
func attrErr(a *hcl.Attribute, summary, format string, args ...any) *hcl.Diagnostic {
	d := errorf(a.Expr.Range(), summary, format, args...)
	d.Expression = a.Expr
	return d
}

// typeErr is the diagnostic for a value of the wrong type.
func typeErr(rng hcl.Range, name, want string, v cty.Value) *hcl.Diagnostic {
	return errorf(rng, "Incorrect attribute value type",
		"Inappropriate value for attribute %q: %s required, got %s.", name, want, describe(v))
}

// describe names a value's type for messages ("string \"big\"").
func describe(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "an unknown value"
	case v.Type() == cty.String:
		return fmt.Sprintf("string %q", truncate(v.AsString(), 40))
	case v.Type() == cty.Number:
		return "number " + v.AsBigFloat().Text('g', -1)
	case v.Type() == cty.Bool:
		return fmt.Sprintf("bool %t", v.True())
	default:
		return v.Type().FriendlyName()
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Unknown values come from variables that have no valid value, which is
// reported once where the variable is declared, or that have no value yet
// (Options.UnknownRequired, for validate); the converters below accept them
// silently (returning zero) so that an error does not cascade and a value
// not known yet is not checked.

// toString converts v to a string (numbers and bools as HCL writes them).
func toString(v cty.Value, rng hcl.Range, name string) (string, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return "", nil
	}
	if v.IsNull() {
		return "", typeErr(rng, name, "string", v)
	}
	if v.Type() == cty.Number {
		return numberText(v), nil
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", typeErr(rng, name, "string", v)
	}
	return s.AsString(), nil
}

// numberText writes a number as HCL does, fast for whole numbers (cty's
// own conversion formats a 512-bit float, which dominates Eval otherwise).
func numberText(v cty.Value) string {
	bf := v.AsBigFloat()
	if bf.IsInt() {
		if i, acc := bf.Int64(); acc == big.Exact {
			return strconv.FormatInt(i, 10)
		}
	}
	return bf.Text('f', -1)
}

// toBool converts v to a bool ("true"/"false" strings are accepted, as HCL does).
func toBool(v cty.Value, rng hcl.Range, name string) (bool, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return false, nil
	}
	if v.IsNull() {
		return false, typeErr(rng, name, "bool", v)
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		return false, typeErr(rng, name, "bool", v)
	}
	return b.True(), nil
}

// toFloat converts v to a float64.
func toFloat(v cty.Value, rng hcl.Range, name string) (float64, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return 0, nil
	}
	if v.IsNull() {
		return 0, typeErr(rng, name, "number", v)
	}
	n, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, typeErr(rng, name, "number", v)
	}
	f, _ := n.AsBigFloat().Float64()
	return f, nil
}

// toInt converts v to a whole number within [lo, hi].
func toInt(v cty.Value, rng hcl.Range, name string, lo, hi int) (int, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return 0, nil
	}
	if v.IsNull() {
		return 0, typeErr(rng, name, "number", v)
	}
	n, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, typeErr(rng, name, "number", v)
	}
	bf := n.AsBigFloat()
	if !bf.IsInt() {
		return 0, errorf(rng, "Invalid "+name, "%s must be a whole number, got %s.", name, bf.Text('g', -1))
	}
	if bf.Cmp(big.NewFloat(float64(lo))) < 0 || bf.Cmp(big.NewFloat(float64(hi))) > 0 {
		return 0, errorf(rng, "Invalid "+name, "%s must be between %d and %d, got %s.", name, lo, hi, bf.Text('g', -1))
	}
	i, _ := bf.Int64()
	return int(i), nil
}

// valueText renders a primitive value the way a selector writes it
// ("1500", "true", "cubic").
func valueText(v cty.Value) string {
	if v.IsNull() || !v.IsKnown() {
		return ""
	}
	switch v.Type() {
	case cty.String:
		return v.AsString()
	case cty.Number:
		return numberText(v)
	case cty.Bool:
		if v.True() {
			return "true"
		}
		return "false"
	}
	return v.GoString()
}

// displayValue renders a primitive value as HCL writes it (strings quoted).
func displayValue(v cty.Value) string {
	if v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
		return fmt.Sprintf("%q", v.AsString())
	}
	return valueText(v)
}

// joinNames lists names for messages.
func joinNames(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
