// Package hclvalue converts HCL attribute values (cty values) to Go
// values, with a diagnostic that points at the attribute when a value has
// the wrong type or is out of range. The spec loader and every benchmark
// tool's block (bench/<tool>) use it, so a value is refused with the same
// words wherever it is written.
//
// Unknown values come from variables that have no valid value, which is
// reported once where the variable is declared, or that have no value yet
// (spec.Options.UnknownRequired, for validate); the converters accept them
// silently (returning zero) so that an error does not cascade and a value
// not known yet is not checked.
package hclvalue

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Errorf makes one error diagnostic pointing at rng.
func Errorf(rng hcl.Range, summary, format string, args ...any) *hcl.Diagnostic {
	r := rng
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  &r,
	}
}

// TypeErr is the diagnostic for a value of the wrong type.
func TypeErr(rng hcl.Range, name, want string, v cty.Value) *hcl.Diagnostic {
	return Errorf(rng, "Incorrect attribute value type",
		"Inappropriate value for attribute %q: %s required, got %s.", name, want, Describe(v))
}

// Describe names a value's type for messages ("string \"big\"").
func Describe(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "an unknown value"
	case v.Type() == cty.String:
		return fmt.Sprintf("string %q", Truncate(v.AsString(), 40))
	case v.Type() == cty.Number:
		return "number " + v.AsBigFloat().Text('g', -1)
	case v.Type() == cty.Bool:
		return fmt.Sprintf("bool %t", v.True())
	default:
		return v.Type().FriendlyName()
	}
}

// Truncate cuts s to n bytes, marking the cut with "…".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// String converts v to a string (numbers and bools as HCL writes them).
func String(v cty.Value, rng hcl.Range, name string) (string, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return "", nil
	}
	if v.IsNull() {
		return "", TypeErr(rng, name, "string", v)
	}
	if v.Type() == cty.Number {
		return NumberText(v), nil
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", TypeErr(rng, name, "string", v)
	}
	return s.AsString(), nil
}

// NumberText writes a number as HCL does, fast for whole numbers (cty's
// own conversion formats a 512-bit float, which dominates Eval otherwise).
func NumberText(v cty.Value) string {
	bf := v.AsBigFloat()
	if bf.IsInt() {
		if i, acc := bf.Int64(); acc == big.Exact {
			return strconv.FormatInt(i, 10)
		}
	}
	return bf.Text('f', -1)
}

// Bool converts v to a bool ("true"/"false" strings are accepted, as HCL does).
func Bool(v cty.Value, rng hcl.Range, name string) (bool, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return false, nil
	}
	if v.IsNull() {
		return false, TypeErr(rng, name, "bool", v)
	}
	b, err := convert.Convert(v, cty.Bool)
	if err != nil {
		return false, TypeErr(rng, name, "bool", v)
	}
	return b.True(), nil
}

// Float converts v to a float64.
func Float(v cty.Value, rng hcl.Range, name string) (float64, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return 0, nil
	}
	if v.IsNull() {
		return 0, TypeErr(rng, name, "number", v)
	}
	n, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, TypeErr(rng, name, "number", v)
	}
	f, _ := n.AsBigFloat().Float64()
	return f, nil
}

// Int converts v to a whole number within [lo, hi].
func Int(v cty.Value, rng hcl.Range, name string, lo, hi int) (int, *hcl.Diagnostic) {
	if !v.IsWhollyKnown() {
		return 0, nil
	}
	if v.IsNull() {
		return 0, TypeErr(rng, name, "number", v)
	}
	n, err := convert.Convert(v, cty.Number)
	if err != nil {
		return 0, TypeErr(rng, name, "number", v)
	}
	bf := n.AsBigFloat()
	if !bf.IsInt() {
		return 0, Errorf(rng, "Invalid "+name, "%s must be a whole number, got %s.", name, bf.Text('g', -1))
	}
	if bf.Cmp(big.NewFloat(float64(lo))) < 0 || bf.Cmp(big.NewFloat(float64(hi))) > 0 {
		return 0, Errorf(rng, "Invalid "+name, "%s must be between %d and %d, got %s.", name, lo, hi, bf.Text('g', -1))
	}
	i, _ := bf.Int64()
	return int(i), nil
}
