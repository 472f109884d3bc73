package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Values derived from sensitive variables (upper(var.key), a substring of
// it, a condition on it) are as secret as the variables: lab carries
// sensitivity as a cty value mark, as Terraform does. Each sensitive
// variable's value is marked where it enters a marked evaluation context;
// operators, templates, conditionals and go-cty functions (which unmark
// their arguments for the call and mark the result, unless a parameter
// sets AllowMarked) carry the mark to everything computed from it.
//
// The spec's consumers (the loader's decoders, the providers' gohcl
// decoding, go-cty's AsString and gocty) refuse or panic on marked values,
// so they keep evaluating with the unmarked context (Lab.EvalContext). At
// load, before any diagnostic is written, every expression of the lab's
// files that reads a sensitive variable is evaluated once more in the
// marked context, sub-expressions included; each text it finds marked is
// recorded (Lab.derived) and redacted from then on like the variables'
// own values (Lab.Redact, SensitiveValues, package redact).

// valueMark is the type of lab's cty value marks.
type valueMark string

// sensitiveMark marks a value read from a sensitive variable or computed
// from one.
const sensitiveMark = valueMark("sensitive")

// markedContext is ctx's var.* with every sensitive variable's value
// marked sensitive.
func (l *loader) markedContext() *hcl.EvalContext {
	vars := make(map[string]cty.Value, len(l.varObject))
	for name, v := range l.varObject {
		if l.lab.Sensitive[name] {
			v = v.Mark(sensitiveMark)
		}
		vars[name] = v
	}
	return &hcl.EvalContext{Variables: map[string]cty.Value{"var": cty.ObjectVal(vars)}, Functions: l.funcs}
}

// findDerived records the texts computed from sensitive variables by the
// expressions in the lab's files (see above). An expression that does not
// evaluate on its own (it reads a for expression's symbol, a matrix key)
// is covered by the one around it.
func (l *loader) findDerived() {
	if len(l.lab.Sensitive) == 0 {
		return
	}
	ctx := l.markedContext()
	own := slices.Collect(maps.Values(l.lab.SensitiveValues()))
	slices.SortFunc(own, func(a, b string) int { return len(b) - len(a) })
	for _, name := range slices.Sorted(maps.Keys(l.lab.Files)) {
		f := l.lab.Files[name]
		body, ok := f.Body.(*hclsyntax.Body)
		if !ok {
			continue
		}
		_ = hclsyntax.VisitAll(body, func(node hclsyntax.Node) hcl.Diagnostics { // never fails
			expr, ok := node.(hclsyntax.Expression)
			if !ok || !l.lab.readsSensitive(expr) {
				return nil
			}
			v, diags := evalExpr(expr, ctx)
			if diags.HasErrors() || !v.ContainsMarked() {
				return nil
			}
			src := expr.Range().SliceBytes(f.Bytes)
			label := derivedLabel(expr, src)
			n := 0
			eachMarkedText(v, false, func(s string) {
				if len(s) < minRedact || writtenAround(s, own, src) {
					return
				}
				if l.lab.derived == nil {
					l.lab.derived = map[string]string{}
				}
				l.lab.derived[label+"."+strconv.Itoa(n)] = s
				n++
			})
			return nil
		})
	}
}

// derivedLabel names an expression's derived values in what redact.Set.Seal
// leaves in the state: the sensitive variables it reads and a digest of its
// source text, so that the same expression finds its value again on the
// next load (wherever it moved in the file).
func derivedLabel(expr hcl.Expression, src []byte) string {
	var names []string
	for _, tr := range expr.Variables() {
		if len(tr) > 1 {
			if name, ok := stepName(tr[1]); ok && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	sum := sha256.Sum256(src)
	return strings.Join(names, "+") + "#" + hex.EncodeToString(sum[:4])
}

// eachMarkedText calls f with the text of every string or number in v
// that is marked, or inside a marked value (marked is true when v is
// inside one). Bools are left out: "true" and "false" would blank every
// such word of every output, hiding nothing.
func eachMarkedText(v cty.Value, marked bool, f func(string)) {
	marked = marked || v.IsMarked()
	v, _ = v.Unmark()
	if v.IsNull() || !v.IsKnown() {
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String || ty == cty.Number:
		if marked {
			f(valueText(v))
		}
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			_, ev := it.Element()
			eachMarkedText(ev, marked, f)
		}
	}
}

// writtenAround reports whether s is sensitive values (own, longest
// first) with only text written in the expression's source around them:
// "${var.dir}/key" yields the value of var.dir, redacted already, and
// "/key", which is no secret. Such a text is left to the variables' own
// redaction, which keeps "/key" readable. A text with no sensitive value
// in it is not: a literal a condition on a secret chose tells the secret.
func writtenAround(s string, own []string, src []byte) bool {
	for _, o := range own {
		if len(o) >= minRedact {
			s = strings.ReplaceAll(s, o, "\x00")
		}
	}
	if !strings.Contains(s, "\x00") {
		return false
	}
	for _, piece := range strings.Split(s, "\x00") {
		if piece != "" && !bytes.Contains(src, []byte(piece)) {
			return false
		}
	}
	return true
}
