package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true}, {Name: "error_message", Required: true},
	},
}

// envVarPrefix prefixes environment variables that set lab variables.
const envVarPrefix = "LAB_VAR_"

// variableDecl is a decoded variable block.
type variableDecl struct {
	Name        string
	Type        cty.Type
	Default     *hcl.Attribute // nil: required
	Description string
	Sensitive   bool
	Validations []*hcl.Block
	DeclRange   hcl.Range
	// invalid is set when the block itself has errors (reported already).
	invalid bool
}

// varValue is a variable's value and where it came from.
type varValue struct {
	Value cty.Value
	// Range is where the value was written (default, -var-file, or a
	// synthetic range naming the -var option or environment variable).
	Range hcl.Range
}

// decodeVariables decodes variable blocks and resolves their values:
// default < LAB_VAR_x < -var-file < -var; then runs validations.
func (l *loader) decodeVariables(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var order []*variableDecl
	for _, b := range blocks {
		v, d := decodeVariable(b)
		diags = append(diags, d...)
		v.invalid = d.HasErrors()
		if prev, dup := l.varDecls[v.Name]; dup {
			diags = append(diags, errorf(b.DefRange, "Duplicate variable",
				"A variable named %q was already declared at %s.", v.Name, declaredAt(prev.DeclRange)))
			continue
		}
		l.varDecls[v.Name] = v
		order = append(order, v)
	}

	values := map[string]varValue{}
	funcsOnly := &hcl.EvalContext{Functions: l.funcs}
	for _, v := range order {
		if v.Default == nil {
			continue
		}
		if len(v.Default.Expr.Variables()) > 0 {
			diags = append(diags, errorf(v.Default.Expr.Range(), "Variables not allowed",
				"A variable's default cannot refer to other values."))
			values[v.Name] = varValue{Value: cty.NilVal}
			continue
		}
		val, d := evalExpr(v.Default.Expr, funcsOnly)
		diags = append(diags, d...)
		if d.HasErrors() {
			val = cty.NilVal
		}
		values[v.Name] = varValue{val, v.Default.Expr.Range()}
	}
	diags = append(diags, l.envValues(values)...)
	diags = append(diags, l.varFileValues(values, funcsOnly)...)
	diags = append(diags, l.cliValues(values)...)

	ok := true
	for _, v := range order {
		// Until it has a valid value, a variable is unknown to expressions.
		l.varObject[v.Name] = cty.DynamicVal
		vv, set := values[v.Name]
		if v.invalid || (set && vv.Value == cty.NilVal) {
			ok = false // an invalid value was given: reported where it was read
			continue
		}
		if !set && v.Default == nil && l.opts.UnknownRequired {
			l.varObject[v.Name] = cty.UnknownVal(v.Type)
			l.lab.Variables[v.Name] = l.varObject[v.Name]
			if v.Sensitive {
				l.lab.Sensitive[v.Name] = true
			}
			continue
		}
		if !set {
			if v.Default == nil {
				diags = append(diags, errorf(v.DeclRange, "No value for required variable",
					"The variable %q has no default; set it with -var %s=…, a -var-file, or %s%s.",
					v.Name, v.Name, envVarPrefix, v.Name))
			}
			ok = false
			continue
		}
		cv, err := convert.Convert(vv.Value, v.Type)
		if err != nil {
			diags = append(diags, errorf(vv.Range, "Invalid value for variable",
				"The value for variable %q is not a valid %s: %s.", v.Name, v.Type.FriendlyNameForConstraint(), err))
			ok = false
			continue
		}
		l.varObject[v.Name] = cv
		values[v.Name] = varValue{cv, vv.Range}
		l.lab.Variables[v.Name] = cv
		if v.Sensitive {
			l.lab.Sensitive[v.Name] = true
		}
	}
	if ok {
		diags = append(diags, l.validateVariables(order, values)...)
	}
	return diags
}

func decodeVariable(b *hcl.Block) (*variableDecl, hcl.Diagnostics) {
	v := &variableDecl{Name: b.Labels[0], Type: cty.DynamicPseudoType, DeclRange: b.DefRange}
	var diags hcl.Diagnostics
	if d := checkName(b, 0, "variable", blockNameRe, blockNameRule); d != nil {
		diags = append(diags, d)
	}
	content, d := b.Body.Content(variableSchema)
	diags = append(diags, d...)
	if a := content.Attributes["type"]; a != nil {
		ty, d := typeexpr.TypeConstraint(a.Expr)
		diags = append(diags, d...)
		if !d.HasErrors() {
			v.Type = ty
		}
	}
	v.Default = content.Attributes["default"]
	noVars := &hcl.EvalContext{}
	if a := content.Attributes["description"]; a != nil {
		val, d := evalExpr(a.Expr, noVars)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s, d := toString(val, a.Expr.Range(), a.Name)
			if d != nil {
				diags = append(diags, d)
			}
			v.Description = s
		}
	}
	if a := content.Attributes["sensitive"]; a != nil {
		val, d := evalExpr(a.Expr, noVars)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s, d := toBool(val, a.Expr.Range(), a.Name)
			if d != nil {
				diags = append(diags, d)
			}
			v.Sensitive = s
		}
	}
	for _, vb := range content.Blocks {
		_, d := vb.Body.Content(validationSchema)
		diags = append(diags, d...)
		if !d.HasErrors() {
			v.Validations = append(v.Validations, vb)
		}
	}
	return v, diags
}

// parseRawValue reads a value given on the command line or in the
// environment: verbatim for string (and untyped) variables, otherwise as
// an HCL expression ("9000", "[1, 2]", "true").
func parseRawValue(raw string, decl *variableDecl, source string) (cty.Value, hcl.Range, hcl.Diagnostics) {
	rng := hcl.Range{Filename: source, Start: hcl.InitialPos, End: hcl.Pos{Line: 1, Column: len(raw) + 1, Byte: len(raw)}}
	if decl.Type == cty.String || decl.Type == cty.DynamicPseudoType {
		return cty.StringVal(raw), rng, nil
	}
	shown := fmt.Sprintf("%q", truncate(raw, 60))
	if decl.Sensitive {
		shown = redacted
	}
	bad := hcl.Diagnostics{errorf(rng, "Invalid value for variable",
		"The value %s for variable %q is not a valid %s: write it as an HCL expression, like 9000, true, [1, 2] or \"text\".",
		shown, decl.Name, decl.Type.FriendlyNameForConstraint())}
	if d := checkNesting([]byte(raw), source); d != nil {
		return cty.NilVal, rng, hcl.Diagnostics{d}
	}
	expr, diags := hclsyntax.ParseExpression([]byte(raw), source, hcl.InitialPos)
	if diags.HasErrors() || len(expr.Variables()) > 0 {
		return cty.NilVal, rng, bad
	}
	w := &forDepth{}
	_ = hclsyntax.Walk(expr, w) // the walker reports through w.diag
	if w.diag != nil {
		return cty.NilVal, rng, hcl.Diagnostics{w.diag}
	}
	v, diags := evalExpr(expr, nil)
	if diags.HasErrors() {
		return cty.NilVal, rng, bad
	}
	return v, rng, nil
}

// envValues applies LAB_VAR_<name> environment variables.
func (l *loader) envValues(values map[string]varValue) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, kv := range l.opts.Env {
		k, raw, ok := strings.Cut(kv, "=")
		name, isVar := strings.CutPrefix(k, envVarPrefix)
		if !ok || !isVar {
			continue
		}
		decl := l.varDecls[name]
		if decl == nil {
			continue // the environment may hold variables of other labs
		}
		v, rng, d := parseRawValue(raw, decl, "<environment "+k+">")
		diags = append(diags, d...)
		values[name] = varValue{v, rng} // cty.NilVal: given but invalid
	}
	return diags
}

// varFileValues applies -var-file files, in order.
func (l *loader) varFileValues(values map[string]varValue, ctx *hcl.EvalContext) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, path := range l.opts.VarFiles {
		src, err := readLabFile(path)
		if err != nil {
			diags = append(diags, errorf(*fileStart(path), "Cannot read variable file", "%s.", err))
			continue
		}
		f, d := parseLimited(src, path)
		diags = append(diags, d...)
		if d.HasErrors() {
			if f == nil {
				f = &hcl.File{Body: hcl.EmptyBody(), Bytes: src}
			}
			l.lab.Files[path] = f
			continue
		}
		l.lab.Files[path] = f
		attrs, d := f.Body.JustAttributes()
		diags = append(diags, d...)
		for _, a := range sortedAttrs(attrs) {
			if l.varDecls[a.Name] == nil {
				diags = append(diags, errorf(a.NameRange, "Value for undeclared variable",
					"The lab declares no variable %q (declared: %s).", a.Name, joinNames(slices.Sorted(maps.Keys(l.varDecls)))))
				continue
			}
			values[a.Name] = varValue{cty.NilVal, a.Expr.Range()}
			if len(a.Expr.Variables()) > 0 {
				diags = append(diags, errorf(a.Expr.Range(), "Variables not allowed",
					"A variable file cannot refer to other values."))
				continue
			}
			v, d := evalExpr(a.Expr, ctx)
			diags = append(diags, d...)
			if !d.HasErrors() {
				values[a.Name] = varValue{v, a.Expr.Range()}
			}
		}
	}
	return diags
}

// cliValues applies -var name=value options, in order.
func (l *loader) cliValues(values map[string]varValue) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, opt := range l.opts.Vars {
		name, raw, ok := strings.Cut(opt, "=")
		name = strings.TrimSpace(name)
		src := fmt.Sprintf("<value for -var %s>", name)
		if !ok || name == "" {
			diags = append(diags, errorf(hcl.Range{Filename: "<-var " + opt + ">"}, "Invalid -var option",
				"The option -var %q is not of the form name=value.", opt))
			if l.varDecls[name] != nil {
				values[name] = varValue{Value: cty.NilVal} // given, but invalid
			}
			continue
		}
		decl := l.varDecls[name]
		if decl == nil {
			diags = append(diags, errorf(hcl.Range{Filename: src}, "Value for undeclared variable",
				"The lab declares no variable %q (declared: %s).", name, joinNames(slices.Sorted(maps.Keys(l.varDecls)))))
			continue
		}
		v, rng, d := parseRawValue(raw, decl, src)
		diags = append(diags, d...)
		values[name] = varValue{v, rng}
	}
	return diags
}

// validateVariables runs every validation block against the final values.
func (l *loader) validateVariables(order []*variableDecl, values map[string]varValue) hcl.Diagnostics {
	var diags hcl.Diagnostics
	ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(l.varObject)}, Functions: l.funcs}
	for _, v := range order {
		for _, vb := range v.Validations {
			content, _ := vb.Body.Content(validationSchema)
			cond, msgAttr := content.Attributes["condition"], content.Attributes["error_message"]
			if _, d := l.checkRefs(cond.Expr, nil); d.HasErrors() {
				diags = append(diags, d...)
				continue
			}
			cv, d := evalExpr(cond.Expr, ctx)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			if !cv.IsWhollyKnown() {
				continue // it reads a variable without a value yet (validate)
			}
			ok, dd := toBool(cv, cond.Expr.Range(), "condition")
			if dd != nil {
				diags = append(diags, dd)
				continue
			}
			if ok {
				continue
			}
			msg := "The value is not valid."
			if mv, d := evalExpr(msgAttr.Expr, ctx); !d.HasErrors() && mv.Type() == cty.String && mv.IsKnown() && !mv.IsNull() {
				msg = mv.AsString()
			}
			// Point at the value when it was written in a file, else at the rule.
			// A sensitive value is never shown, not even as a source line.
			subject := values[v.Name].Range
			if _, inFile := l.lab.Files[subject.Filename]; !inFile || v.Sensitive {
				subject = cond.Expr.Range()
			}
			diags = append(diags, errorf(subject, "Invalid value for variable",
				"%s\n\nThis was checked by the validation rule at %s (variable %q).",
				msg, declaredAt(cond.Expr.Range()), v.Name))
		}
	}
	return diags
}

func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, n := range slices.Sorted(maps.Keys(attrs)) {
		out = append(out, attrs[n])
	}
	return out
}
