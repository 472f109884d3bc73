package spec

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/internal/hclvalue"
)

// The value converters and diagnostic makers live in internal/hclvalue,
// shared with the benchmark tools' blocks (bench/<tool>).
var (
	errorf     = hclvalue.Errorf
	typeErr    = hclvalue.TypeErr
	describe   = hclvalue.Describe
	truncate   = hclvalue.Truncate
	toString   = hclvalue.String
	numberText = hclvalue.NumberText
	toBool     = hclvalue.Bool
	toFloat    = hclvalue.Float
	toInt      = hclvalue.Int
)

// attrErr makes an error diagnostic for an attribute's value.
func attrErr(a *hcl.Attribute, summary, format string, args ...any) *hcl.Diagnostic {
	d := errorf(a.Expr.Range(), summary, format, args...)
	d.Expression = a.Expr
	return d
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
