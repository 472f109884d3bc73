package spec

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Published is a published block: one table of a post's numbers, where
// it came from, what hardware produced it and which cells of an
// experiment's matrix it reports. expect blocks refer to it as
// published.<name>.
type Published struct {
	Name string
	// Source and Hardware say where the numbers come from and what
	// produced them (free text, required).
	Source   string
	Hardware string
	// Match is what a run's provenance must show for the table's
	// absolute numbers to be comparable: "provider" (the provider type),
	// "cpu" (a case-insensitive substring of both ends' CPU model), "os"
	// (a case-insensitive substring of both ends' kernel), "server_driver"
	// and "client_driver" (of that end's NIC driver). Empty: the
	// absolute numbers are never comparable, only shapes are.
	Match map[string]string
	// Tool is the tool the post used ("iperf2"); informational, and a
	// mismatch with the experiment's tool is a warning.
	Tool string
	// Side is whose figure the post reports: SideSender or SideReceiver
	// for throughput, SideServer or SideClient for an end's own figures
	// (publishedMetrics lists each metric's sides).
	Side string
	// Metric is what the values measure: MetricThroughput (Gb/s) or
	// another key of publishedMetrics.
	Metric string
	// Experiment is the experiment whose cells the table reports.
	Experiment string
	Cells      []PublishedCell
	DeclRange  hcl.Range
}

// PublishedCell is one published number and the cell it reports: Where
// names the pair (when the experiment has more than one) and every matrix
// key with more than one value.
type PublishedCell struct {
	Where map[string]cty.Value
	Value float64
	Range hcl.Range
}

// Sides of a published throughput figure.
const (
	SideSender   = "sender"
	SideReceiver = "receiver"
)

// MetricThroughput is the published metric "throughput", in Gb/s.
const MetricThroughput = "throughput"

// Sides of a figure one end measures about itself (CPU, counters).
const (
	SideServer = "server"
	SideClient = "client"
)

// publishedMetrics are the metrics a published table can report: for
// each side, the results' metric key it is checked against, its values
// in that metric's displayed unit. Throughput is in Gb/s; CPU in % of
// the end's CPUs (seed 000's per-cell figures); retransmits as the tool
// counts them; the TCP counters (seed 003's netstat -s figures) as the
// end's stack counted them over the run; reverse_throughput is the
// opposite direction of a bidirectional test (iperf 2 -d, seed 004), the
// client's receiving figure.
var publishedMetrics = map[string]map[string]string{
	MetricThroughput:         {SideSender: "sender_throughput_bps", SideReceiver: "throughput_bps"},
	"reverse_throughput":     {SideReceiver: "reverse_throughput_bps"},
	"cpu":                    {SideServer: "server_cpu_pct", SideClient: "client_cpu_pct"},
	"retransmits":            {SideSender: "retransmits"},
	"retransmitted_segments": {SideServer: "server_retransmitted_segments", SideClient: "client_retransmitted_segments"},
	"timeouts":               {SideServer: "server_timeouts", SideClient: "client_timeouts"},
	"recoveries":             {SideServer: "server_recoveries", SideClient: "client_recoveries"},
}

// MetricKey is the results' metric key the table's values are checked
// against ("sender_throughput_bps" for sender throughput).
func (p *Published) MetricKey() string { return publishedMetrics[p.Metric][p.Side] }

// matches reports whether the cell is consistent with sel: every key both
// name has the same value.
func (c PublishedCell) matches(sel map[string]cty.Value) bool {
	for k, v := range sel {
		if w, ok := c.Where[k]; ok && valueText(w) != valueText(v) {
			return false
		}
	}
	return true
}

var publishedSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "source", Required: true}, {Name: "hardware", Required: true}, {Name: "match"},
		{Name: "tool"}, {Name: "side", Required: true}, {Name: "metric"},
		{Name: "experiment", Required: true}, {Name: "cells", Required: true},
	},
}

// matchKeys are the keys of a published block's match object.
var matchKeys = []string{"client_driver", "cpu", "os", "provider", "server_driver"}

// decodePublished decodes published blocks; experiments must be decoded
// first.
func (l *loader) decodePublished(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		p, d := l.decodePublishedBlock(b)
		diags = append(diags, d...)
		if prev := l.lab.Published[p.Name]; prev != nil {
			diags = append(diags, errorf(b.DefRange, "Duplicate published table",
				"A published block named %q was already declared at %s.", p.Name, declaredAt(prev.DeclRange)))
			continue
		}
		l.lab.Published[p.Name] = p
	}
	return diags
}

func (l *loader) decodePublishedBlock(b *hcl.Block) (*Published, hcl.Diagnostics) {
	p := &Published{Name: b.Labels[0], Metric: MetricThroughput, DeclRange: b.DefRange}
	var diags hcl.Diagnostics
	if d := checkName(b, 0, "published", blockNameRe, blockNameRule); d != nil {
		diags = append(diags, d)
	}
	content, d := b.Body.Content(publishedSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	evaluated := map[string]bool{}
	for _, n := range []string{"source", "hardware", "tool", "side", "metric"} {
		a := attrs[n]
		if a == nil {
			continue
		}
		s, d := l.evalString(a)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		evaluated[n] = true
		if strings.TrimSpace(s) == "" && (n == "source" || n == "hardware") {
			diags = append(diags, attrErr(a, "Empty "+n, "A published table needs its %s: %s.", n,
				map[string]string{"source": "which post, table and author", "hardware": "what machine produced the numbers"}[n]))
		}
		*map[string]*string{"source": &p.Source, "hardware": &p.Hardware, "tool": &p.Tool, "side": &p.Side, "metric": &p.Metric}[n] = s
	}
	if a := attrs["metric"]; evaluated["metric"] && publishedMetrics[p.Metric] == nil {
		diags = append(diags, attrErr(a, "Unsupported metric",
			"metric is %s, not %q.", joinNames(slices.Sorted(maps.Keys(publishedMetrics))), truncate(p.Metric, 40)))
		p.Metric = ""
	}
	if a := attrs["side"]; evaluated["side"] && p.Metric == MetricThroughput && p.Side != SideSender && p.Side != SideReceiver {
		diags = append(diags, attrErr(a, "Invalid side",
			"side is %q (the post reports what the sending end measured) or %q (the receiving end), not %q.",
			SideSender, SideReceiver, truncate(p.Side, 40)))
	} else if sides := publishedMetrics[p.Metric]; evaluated["side"] && sides != nil && sides[p.Side] == "" {
		diags = append(diags, attrErr(a, "Invalid side",
			"For metric %q, side is %s, not %q.", p.Metric, joinNames(slices.Sorted(maps.Keys(sides))), truncate(p.Side, 40)))
	}
	if a := attrs["match"]; a != nil {
		p.Match, d = l.decodeMatch(a)
		diags = append(diags, d...)
	}
	var e *Experiment
	if a := attrs["experiment"]; a != nil {
		e, d = l.experimentRef(a.Expr)
		diags = append(diags, d...)
	}
	if e == nil {
		return p, diags
	}
	p.Experiment = e.Name
	diags = append(diags, checkPublishedTool(p, e, attrs)...)
	if a := attrs["cells"]; a != nil {
		p.Cells, d = l.decodeCells(a, e)
		diags = append(diags, d...)
	}
	return p, diags
}

// experimentRef resolves experiment.<name>.
func (l *loader) experimentRef(expr hcl.Expression) (*Experiment, hcl.Diagnostics) {
	names, d := refTraversal(expr, "experiment", 1)
	if d != nil {
		return nil, hcl.Diagnostics{d}
	}
	for _, e := range l.lab.Experiments {
		if e.Name == names[0] {
			return e, nil
		}
	}
	var known []string
	for _, e := range l.lab.Experiments {
		known = append(known, e.Name)
	}
	return nil, hcl.Diagnostics{errorf(expr.Range(), "Reference to undeclared experiment",
		"No experiment %q is declared (declared: %s).", names[0], joinNames(known))}
}

// checkPublishedTool checks the side against what the experiment's tool
// measures and warns when the post used another tool.
func checkPublishedTool(p *Published, e *Experiment, attrs hcl.Attributes) hcl.Diagnostics {
	if e.eval == nil || e.eval.bench == nil {
		return nil // no benchmark block: reported at the experiment
	}
	// Each tool says which sides its records carry (bench.Tool.ThroughputSides).
	tool, sides := e.eval.bench.Name, e.eval.bench.ThroughputSides
	var diags hcl.Diagnostics
	if a := attrs["side"]; a != nil && p.Metric == MetricThroughput && (p.Side == SideSender || p.Side == SideReceiver) && !slices.Contains(sides, p.Side) {
		diags = append(diags, attrErr(a, "Side not measured",
			"experiment.%s runs %s, whose records carry only the %s's throughput; the post's %s figure cannot be checked against it.",
			e.Name, tool, joinNames(sides), p.Side))
	}
	if a := attrs["tool"]; a != nil && p.Tool != "" && p.Tool != tool {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Different tool",
			Detail: fmt.Sprintf("The post used %s but experiment.%s runs %s: tools count and time differently (iperf 2 and iperf3 differ in what they buffer and when they stop), so expect absolute numbers to differ more than the runs' spread.",
				truncate(p.Tool, 40), e.Name, tool),
			Subject: a.Expr.Range().Ptr()})
	}
	return diags
}

// decodeMatch decodes match = { provider = "vsphere", cpu = "i3-6100U" }.
func (l *loader) decodeMatch(a *hcl.Attribute) (map[string]string, hcl.Diagnostics) {
	if _, d := l.checkRefs(a.Expr, nil); d.HasErrors() {
		return nil, d
	}
	items, diags := objectItems(a.Expr, l.ctx, "match")
	m := map[string]string{}
	for _, it := range items {
		if !slices.Contains(matchKeys, it.Key) {
			diags = append(diags, errorf(it.KeyRange, "Unsupported key",
				"match has no key %q (keys: %s).", truncate(it.Key, 40), joinNames(matchKeys)))
			continue
		}
		s, d := toString(it.Value, it.ValueRange, "match."+it.Key)
		if d == nil && strings.TrimSpace(s) == "" && it.Value.IsWhollyKnown() {
			d = errorf(it.ValueRange, "Empty match", "match.%s must not be empty.", it.Key)
		}
		if d != nil {
			diags = append(diags, d)
			continue
		}
		m[it.Key] = s
	}
	return m, diags
}

// decodeCells decodes cells = [{ where = {…}, value = 2.4 }, …] against
// e's matrix: every row names exactly one cell, and no cell twice.
func (l *loader) decodeCells(a *hcl.Attribute, e *Experiment) ([]PublishedCell, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(a.Expr)
	if diags.HasErrors() {
		return nil, hcl.Diagnostics{attrErr(a, "Invalid cells",
			"cells must be a list written [{ where = { … }, value = … }, …].")}
	}
	if len(exprs) == 0 {
		return nil, hcl.Diagnostics{attrErr(a, "Empty table", "A published table needs at least one cell.")}
	}
	x := &expectDecoder{l: l, e: e, used: map[int]bool{}}
	var cells []PublishedCell
	seen := map[string]hcl.Range{}
	for _, ex := range exprs {
		c, d := x.cell(ex)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		key, complete := cellKey(e, c.Where)
		if !complete {
			cells = append(cells, c)
			continue
		}
		if prev, dup := seen[key]; dup {
			diags = append(diags, errorf(c.Range, "Duplicate published cell",
				"The cell %s was already published at %s.", key, declaredAt(prev)))
			continue
		}
		seen[key] = c.Range
		cells = append(cells, c)
	}
	return cells, diags
}

// cell decodes one row { where = {…}, value = … } and checks that it names
// one cell of the matrix.
func (x *expectDecoder) cell(ex hcl.Expression) (PublishedCell, hcl.Diagnostics) {
	c := PublishedCell{Range: ex.Range()}
	if _, d := x.l.checkRefs(ex, nil); d.HasErrors() {
		return c, d
	}
	items, diags := objectItems(ex, x.l.ctx, "cell")
	if diags.HasErrors() {
		return c, diags
	}
	haveValue := false
	for _, it := range items {
		switch it.Key {
		case "where":
			wi, d := objectItems(it.Expr, x.l.ctx, "where")
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			c.Where, d = x.where(wi)
			diags = append(diags, d...)
		case "value":
			haveValue = true
			f, d := toFloat(it.Value, it.ValueRange, "value")
			if d == nil && (math.IsInf(f, 0) || math.IsNaN(f) || f < 0) {
				d = errorf(it.ValueRange, "Invalid published value", "value must be a finite number ≥ 0 (Gb/s for throughput).")
			}
			if d != nil {
				diags = append(diags, d)
				continue
			}
			c.Value = f
		default:
			diags = append(diags, errorf(it.KeyRange, "Unsupported key",
				"a published cell has no key %q (keys: where, value).", truncate(it.Key, 40)))
		}
	}
	if diags.HasErrors() {
		return c, diags
	}
	if !haveValue {
		diags = append(diags, errorf(ex.Range(), "Missing key", "a published cell needs value = …."))
	}
	if d := x.oneCell(c.Where, ex.Range()); d != nil {
		diags = append(diags, d)
	}
	return c, diags
}

// oneCell checks that where names exactly one cell of the experiment: the
// pair when there are several, and every matrix key with several values.
func (x *expectDecoder) oneCell(where map[string]cty.Value, rng hcl.Range) *hcl.Diagnostic {
	var missing []string
	n := 1
	if _, ok := where["pair"]; !ok && len(x.e.Pairs) > 1 {
		missing = append(missing, "pair")
		n *= len(x.e.Pairs)
	}
	for _, d := range x.e.Matrix {
		if _, ok := where[d.Name]; !ok && len(d.Values) > 1 {
			missing = append(missing, d.Name)
			n *= len(d.Values)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return errorf(rng, "Published cell is not one cell",
		"This row selects %d cells of experiment.%s: a published number is one cell's, so where = { … } must also give %s.",
		n, x.e.Name, joinNames(missing))
}

// cellKey renders where as "pair=fbsd,lro=true,…" in matrix order, with
// single-valued keys and a lone pair filled in; complete is false when a
// value is not known yet.
func cellKey(e *Experiment, where map[string]cty.Value) (key string, complete bool) {
	var parts []string
	pair := ""
	if v, ok := where["pair"]; ok {
		pair = valueText(v)
	} else if len(e.Pairs) == 1 {
		pair = e.Pairs[0]
	}
	parts = append(parts, "pair="+pair)
	for _, d := range e.Matrix {
		v, ok := where[d.Name]
		if !ok && len(d.Values) == 1 {
			v, ok = d.Values[0], true
		}
		if !ok || !v.IsWhollyKnown() {
			return "", false
		}
		parts = append(parts, d.Name+"="+valueText(v))
	}
	return strings.Join(parts, ","), true
}
