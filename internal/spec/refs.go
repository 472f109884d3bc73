package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// stepName returns the name a traversal step selects (.name or ["name"]).
func stepName(s hcl.Traverser) (string, bool) {
	switch t := s.(type) {
	case hcl.TraverseAttr:
		return t.Name, true
	case hcl.TraverseIndex:
		if t.Key.IsKnown() && !t.Key.IsNull() && t.Key.Type() == cty.String {
			return t.Key.AsString(), true
		}
	}
	return "", false
}

// checkRefs checks the variables an expression refers to before it is
// evaluated: var.<declared variable> anywhere, matrix.<key> only when dims
// is non-nil (per-cell blocks). It returns the indexes of the matrix keys
// used (every key when the whole matrix object is used).
func (l *loader) checkRefs(expr hcl.Expression, dims []Dimension) (used []int, diags hcl.Diagnostics) {
	for _, tr := range expr.Variables() {
		root := tr.RootName()
		rng := tr.SourceRange()
		switch root {
		case "var":
			if len(tr) < 2 {
				continue
			}
			name, ok := stepName(tr[1])
			if !ok {
				continue
			}
			if _, ok := l.varDecls[name]; !ok {
				d := errorf(rng, "Reference to undeclared variable",
					"No variable %q is declared; declare it with a variable %q block. Declared: %s.",
					name, name, joinNames(slices.Sorted(maps.Keys(l.varDecls))))
				diags = append(diags, d)
			}
		case "matrix":
			if dims == nil {
				diags = append(diags, errorf(rng, "Matrix value not available here",
					"matrix.* can only be used inside an experiment's guest, server, client, hardware and benchmark blocks."))
				continue
			}
			if len(tr) < 2 {
				for i := range dims {
					used = append(used, i)
				}
				continue
			}
			name, ok := stepName(tr[1])
			if !ok {
				continue
			}
			i := dimIndex(dims, name)
			if i < 0 {
				diags = append(diags, errorf(rng, "Undeclared matrix key",
					"matrix has no key %s; the experiment's matrix keys are: %s.", name, joinNames(dimNames(dims))))
				continue
			}
			used = append(used, i)
		case "template", "pair", "provider":
			diags = append(diags, errorf(rng, "Invalid reference",
				"A %s reference is only valid as the value of a %s attribute, not inside an expression.", root, root))
		default:
			hint := "var.*"
			if dims != nil {
				hint += " and matrix.*"
			}
			diags = append(diags, errorf(rng, "Unknown variable",
				"There is no variable named %q; expressions here may use %s and functions.", root, hint))
		}
	}
	return used, diags
}

// refTraversal reads a reference such as template.host (n = 1 name) or
// provider.local.default (n = 2 names) and returns the names.
func refTraversal(expr hcl.Expression, kind string, n int) ([]string, *hcl.Diagnostic) {
	example := kind + strings.Repeat(".<name>", n)
	if kind == "provider" {
		example = "provider.<type>.<name>"
	}
	bad := func() *hcl.Diagnostic {
		return errorf(expr.Range(), "Invalid reference", "Expected a reference like %s (without quotes).", example)
	}
	tr, diags := hcl.AbsTraversalForExpr(expr)
	if diags.HasErrors() || tr.RootName() != kind || len(tr) != n+1 {
		return nil, bad()
	}
	var names []string
	for _, s := range tr[1:] {
		a, ok := s.(hcl.TraverseAttr)
		if !ok {
			return nil, bad()
		}
		names = append(names, a.Name)
	}
	return names, nil
}

func dimIndex(dims []Dimension, name string) int {
	for i, d := range dims {
		if d.Name == name {
			return i
		}
	}
	return -1
}

func dimNames(dims []Dimension) []string {
	n := make([]string, len(dims))
	for i, d := range dims {
		n[i] = d.Name
	}
	return n
}

// declaredAt names where something was first declared, for duplicate errors.
func declaredAt(r hcl.Range) string { return fmt.Sprintf("%s:%d", r.Filename, r.Start.Line) }
