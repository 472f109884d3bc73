package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Default margins of checks against a published table (README, "Published
// tables"). A post's figure is one run of unknown spread; at a run-to-run
// CV of 5 % one run lies within ±1.96 × 5 % ≈ ±10 % of its system's mean
// 95 % of the time, so a reproduction is not asked to come closer than
// that. A ratio of two such runs varies by √2 × 5 % ≈ 7.1 %, so ±1.96 ×
// 7.1 % ≈ ±14 %, rounded to 15 %.
const (
	DefaultCellMargin  = 0.10
	DefaultRatioMargin = 0.15
)

// publishedAttrs decodes an expect block's published = published.<name>
// and margin = "10%".
func (x *expectDecoder) publishedAttrs(ex *Expect, attrs hcl.Attributes) hcl.Diagnostics {
	a, m := attrs["published"], attrs["margin"]
	if a == nil {
		if m != nil {
			return hcl.Diagnostics{attrErr(m, "Margin without a table",
				"margin is the band around each published cell: it needs published = published.<name> in the same block (a ratio or order takes its own margin).")}
		}
		return nil
	}
	ex.Published = &PublishedCheck{Margin: DefaultCellMargin, Range: a.Expr.Range()}
	var diags hcl.Diagnostics
	names, d := refTraversal(a.Expr, "published", 1)
	if d != nil {
		diags = append(diags, d)
	} else {
		ex.Published.Table = names[0]
	}
	if m != nil {
		v, vd := x.l.evalValue(m)
		diags = append(diags, vd...)
		if !vd.HasErrors() {
			f, d := parseMargin(objItem{Key: "margin", Value: v, ValueRange: m.Expr.Range()})
			if d != nil {
				diags = append(diags, d)
			} else {
				ex.Published.Margin = f
			}
		}
	}
	return diags
}

// parseMargin reads a margin: a percentage above 0 and below 100.
func parseMargin(it objItem) (float64, *hcl.Diagnostic) {
	if !it.Value.IsWhollyKnown() {
		return 0, nil
	}
	pct, d := parsePercent(it.Value, it.ValueRange, it.Key)
	if d != nil {
		return 0, d
	}
	if pct <= 0 || pct >= 100 {
		return 0, errorf(it.ValueRange, "Invalid margin", "%s must be above 0%% and below 100%%, got %g%%.", it.Key, pct)
	}
	return pct / 100, nil
}

// publishedOrder decodes order = { published = published.<name>, margin =
// "15%" }: the table's ordering of its cells must hold, for cells whose
// published values differ by more than the margin.
func publishedOrder(a *hcl.Attribute, items []objItem, ref hcl.Expression) (*PublishedCheck, hcl.Diagnostics) {
	o := &PublishedCheck{Margin: DefaultRatioMargin, Range: a.Expr.Range()}
	var diags hcl.Diagnostics
	for _, it := range items {
		if it.Key != "margin" {
			diags = append(diags, errorf(it.KeyRange, "Unsupported key",
				"order has no key %q (keys: published, margin).", truncate(it.Key, 40)))
			continue
		}
		m, d := parseMargin(it)
		if d != nil {
			diags = append(diags, d)
			continue
		}
		o.Margin = m
	}
	if ref == nil {
		return o, append(diags, errorf(a.Expr.Range(), "Missing key", "order needs published = published.<name>."))
	}
	o.Range = ref.Range()
	names, d := refTraversal(ref, "published", 1)
	if d != nil {
		return o, append(diags, d)
	}
	o.Table = names[0]
	return o, diags
}

// takeRefItem takes the item key = … out of an object written { … } and
// returns the rest and the item's value expression (nil when there is no
// such item, or the expression is not written as an object).
func takeRefItem(expr hcl.Expression, key string) (rest, ref hcl.Expression) {
	oc, ok := expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return expr, nil
	}
	out := *oc
	out.Items = nil
	for _, it := range oc.Items {
		if ref == nil && hcl.ExprAsKeyword(it.KeyExpr) == key {
			ref = it.ValueExpr
			continue
		}
		out.Items = append(out.Items, it)
	}
	if ref == nil {
		return expr, nil
	}
	return &out, ref
}

// decodeTopExpects decodes expect blocks written outside an experiment:
// they check a published table, and belong to the table's experiment.
func (l *loader) decodeTopExpects(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		name, rng := topExpectTable(b)
		p := l.lab.Published[name]
		switch {
		case name == "":
			diags = append(diags, errorf(b.DefRange, "Expect outside an experiment",
				"An expect block outside an experiment checks a published table: give it published = published.<name> (or a ratio or order with published = …), or move it into its experiment."))
			continue
		case p == nil:
			diags = append(diags, undeclaredTable(l, rng, name))
			continue
		}
		e := l.experiment(p.Experiment)
		if e == nil {
			continue // the table's experiment reference was reported
		}
		if i := slices.IndexFunc(e.Expects, func(x *Expect) bool { return x.Name == b.Labels[0] }); i >= 0 {
			diags = append(diags, errorf(b.DefRange, "Duplicate expect",
				"An expect block named %q was already declared at %s.", b.Labels[0], declaredAt(e.Expects[i].DeclRange)))
			continue
		}
		x := &expectDecoder{l: l, e: e, used: map[int]bool{}}
		ex, d := x.decode(b)
		diags = append(diags, d...)
		e.Expects = append(e.Expects, ex)
	}
	return diags
}

// topExpectTable finds the published table an expect block refers to:
// its published attribute, or the published item of its ratio or order.
func topExpectTable(b *hcl.Block) (string, hcl.Range) {
	content, _, _ := b.Body.PartialContent(&hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "published"}, {Name: "ratio"}, {Name: "order"}}})
	for _, n := range []string{"published", "ratio", "order"} {
		a := content.Attributes[n]
		if a == nil {
			continue
		}
		ref := a.Expr
		if n != "published" {
			if _, ref = takeRefItem(a.Expr, "published"); ref == nil {
				continue
			}
		}
		if names, d := refTraversal(ref, "published", 1); d == nil {
			return names[0], ref.Range()
		}
	}
	return "", hcl.Range{}
}

func (l *loader) experiment(name string) *Experiment {
	for _, e := range l.lab.Experiments {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func undeclaredTable(l *loader, rng hcl.Range, name string) *hcl.Diagnostic {
	return errorf(rng, "Reference to undeclared published table",
		"No published %q is declared (declared: %s).", name, joinNames(slices.Sorted(maps.Keys(l.lab.Published))))
}

// resolvePublished checks every expect block's references to published
// tables, once all tables are decoded: the table exists, reports the
// expect's experiment, and (for a ratio) publishes both of its cells.
func (l *loader) resolvePublished() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, e := range l.lab.Experiments {
		for _, ex := range e.Expects {
			for _, c := range []*PublishedCheck{ex.Published, ex.Order} {
				if c != nil && c.Table != "" {
					if _, d := l.tableOf(e, c.Table, c.Range); d != nil {
						diags = append(diags, d)
					}
				}
			}
			if r := ex.Ratio; r != nil && r.Published != "" {
				p, d := l.tableOf(e, r.Published, r.PublishedRange)
				if d == nil {
					d = ratioCells(p, ex)
				}
				if d != nil {
					diags = append(diags, d)
				}
			}
		}
	}
	return diags
}

// tableOf finds table name and checks that it reports e.
func (l *loader) tableOf(e *Experiment, name string, rng hcl.Range) (*Published, *hcl.Diagnostic) {
	p := l.lab.Published[name]
	switch {
	case p == nil:
		return nil, undeclaredTable(l, rng, name)
	case p.Experiment != "" && p.Experiment != e.Name:
		return nil, errorf(rng, "Published table of another experiment",
			"published.%s reports experiment.%s, not experiment.%s.", name, p.Experiment, e.Name)
	}
	return p, nil
}

// ratioCells checks that the table publishes a cell for the ratio's of
// and for its over side within the expect's where.
func ratioCells(p *Published, ex *Expect) *hcl.Diagnostic {
	for _, side := range []string{ex.Ratio.Of, ex.Ratio.Over} {
		sel := maps.Clone(ex.Where)
		if sel == nil {
			sel = map[string]cty.Value{}
		}
		k, v, _ := cutSelector(side)
		sel[k] = cty.StringVal(v)
		if !slices.ContainsFunc(p.Cells, func(c PublishedCell) bool { return c.matches(sel) }) {
			return errorf(ex.Ratio.PublishedRange, "Ratio not published",
				"published.%s has no cell with %s%s, so it gives no expected ratio.", p.Name, side, whereText(ex.Where))
		}
	}
	return nil
}

// cutSelector splits "key=value" (spaces and quotes around the value dropped).
func cutSelector(s string) (string, string, bool) {
	k, v, ok := strings.Cut(s, "=")
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	return k, v, ok
}

func whereText(where map[string]cty.Value) string {
	s := ""
	for _, k := range slices.Sorted(maps.Keys(where)) {
		s += fmt.Sprintf(", %s=%s", k, valueText(where[k]))
	}
	return s
}
