package spec

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

var expectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "where"}, {Name: "throughput"}, {Name: "retransmits"}, {Name: "ratio"},
		{Name: "latency"}, {Name: "transactions"}, {Name: "loss"}, {Name: "jitter"},
		{Name: "packets"}, {Name: "cpu"}, {Name: "cycles_per_bit"},
		{Name: "published"}, {Name: "margin"}, {Name: "order"},
	},
}

// metricAttrs are the expect attributes on metrics beyond throughput: for
// each key of the attribute's object that names a value, the metric and
// whether it is a maximum (else a band, which needs a tolerance).
var metricAttrs = map[string]struct {
	keys map[string]metricKey
	pct  bool // values are percentages ("0.1%" or 0.1)
}{
	"latency": {keys: map[string]metricKey{
		"mean_us": {"latency_mean_us", false}, "p50_us": {"latency_p50_us", false},
		"p90_us": {"latency_p90_us", false}, "p99_us": {"latency_p99_us", false},
		"max_mean_us": {"latency_mean_us", true}, "max_p50_us": {"latency_p50_us", true},
		"max_p90_us": {"latency_p90_us", true}, "max_p99_us": {"latency_p99_us", true},
	}},
	"transactions": {keys: map[string]metricKey{"per_sec": {"transactions_per_sec", false}}},
	"packets":      {keys: map[string]metricKey{"per_sec": {"packets_per_sec", false}}},
	"cpu": {keys: map[string]metricKey{
		"server_pct": {"server_cpu_pct", false}, "client_pct": {"client_cpu_pct", false}, "router_pct": {"router_cpu_pct", false},
		"max_server_pct": {"server_cpu_pct", true}, "max_client_pct": {"client_cpu_pct", true}, "max_router_pct": {"router_cpu_pct", true},
	}},
	"cycles_per_bit": {keys: map[string]metricKey{
		"server": {"server_cycles_per_bit", false}, "client": {"client_cycles_per_bit", false},
		"max_server": {"server_cycles_per_bit", true}, "max_client": {"client_cycles_per_bit", true},
	}},
	"loss":   {keys: map[string]metricKey{"max": {"loss_pct", true}}, pct: true},
	"jitter": {keys: map[string]metricKey{"max_ms": {"jitter_ms", true}}},
}

// metricKey is a metric (results' key) and whether a value is its maximum.
type metricKey struct {
	metric string
	max    bool
}

// expectDecoder decodes expect blocks of one experiment; it records which
// matrix keys they select on.
type expectDecoder struct {
	l    *loader
	e    *Experiment
	used map[int]bool
}

func (x *expectDecoder) decode(b *hcl.Block) (*Expect, hcl.Diagnostics) {
	ex := &Expect{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(expectSchema)
	if strings.TrimSpace(ex.Name) == "" {
		diags = append(diags, errorf(b.LabelRanges[0], "Invalid expect name",
			"An expect block needs a name saying what is expected."))
	}
	attrs := content.Attributes
	diags = append(diags, x.publishedAttrs(ex, attrs)...)
	for _, n := range slices.Sorted(maps.Keys(attrs)) {
		a := attrs[n]
		if n == "published" || n == "margin" {
			continue // publishedAttrs
		}
		expr, ref := takeRefItem(a.Expr, "published")
		if _, d := x.l.checkRefs(expr, nil); d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		items, d := objectItems(expr, x.l.ctx, a.Name)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		switch n {
		case "where":
			ex.Where, d = x.where(items)
		case "throughput":
			ex.Throughput, d = absolute(a, items, "gbps", true)
		case "retransmits":
			ex.Retransmits, d = absolute(a, items, "max", false)
		case "ratio":
			ex.Ratio, d = x.ratio(a, items, ref)
		case "order":
			ex.Order, d = publishedOrder(a, items, ref)
		default:
			var m MetricExpect
			m, d = metricExpect(a, items)
			if !d.HasErrors() {
				ex.Metrics = append(ex.Metrics, m)
			}
		}
		diags = append(diags, d...)
	}
	checks := len(attrs)
	for _, n := range []string{"where", "margin"} {
		if attrs[n] != nil {
			checks--
		}
	}
	if checks == 0 {
		diags = append(diags, errorf(b.DefRange, "Empty expectation",
			"An expect block needs published = published.<name>, throughput, retransmits, ratio, order, latency, transactions, loss, jitter, packets, cpu or cycles_per_bit = {…}."))
	}
	return ex, diags
}

// where decodes where = { key = value }: matrix keys or "pair".
func (x *expectDecoder) where(items []objItem) (map[string]cty.Value, hcl.Diagnostics) {
	w := map[string]cty.Value{}
	var diags hcl.Diagnostics
	for _, it := range items {
		v, d := x.selector(it.Key, it.Value, it.KeyRange, it.ValueRange)
		if d != nil {
			diags = append(diags, d)
			continue
		}
		w[it.Key] = v
	}
	return w, diags
}

// selector resolves key = value against the pairs and the matrix and
// marks the key used.
func (x *expectDecoder) selector(key string, v cty.Value, keyRng, valRng hcl.Range) (cty.Value, *hcl.Diagnostic) {
	if key == "pair" {
		s, d := toString(v, valRng, "pair")
		if d != nil {
			return cty.NilVal, d
		}
		if !slices.Contains(x.e.Pairs, s) {
			return cty.NilVal, errorf(valRng, "Unknown pair in selector",
				"The experiment has no pair %q (its pairs: %s).", s, joinNames(x.e.Pairs))
		}
		return cty.StringVal(s), nil
	}
	i := dimIndex(x.e.Matrix, key)
	if i < 0 {
		return cty.NilVal, errorf(keyRng, "Undeclared matrix key",
			"matrix has no key %s; a selector uses a matrix key (%s) or pair.", key, joinNames(dimNames(x.e.Matrix)))
	}
	x.used[i] = true
	dv, ok := findDimValue(x.e.Matrix[i], v)
	if !ok && (!v.IsKnown() || hasUnknown(x.e.Matrix[i].Values)) {
		return v, nil // a value not known yet, or one that may be among them
	}
	if !ok {
		var vals []string
		for _, dv := range x.e.Matrix[i].Values {
			vals = append(vals, displayValue(dv))
		}
		return cty.NilVal, errorf(valRng, "Value not in matrix",
			"matrix.%s has no value %s (its values: %s).", key, displayValue(v), strings.Join(vals, ", "))
	}
	return dv, nil
}

// absolute decodes { gbps = 17.5, tolerance = "15%" } or { max = 0 }.
func absolute(a *hcl.Attribute, items []objItem, valueKey string, withTolerance bool) (*Absolute, hcl.Diagnostics) {
	abs := &Absolute{}
	var diags hcl.Diagnostics
	seen := false
	for _, it := range items {
		if !it.Value.IsWhollyKnown() {
			seen = seen || it.Key == valueKey // checked once it is known
			continue
		}
		switch {
		case it.Key == valueKey:
			f, d := toFloat(it.Value, it.ValueRange, valueKey)
			if d == nil && (math.IsInf(f, 0) || f < 0) {
				d = errorf(it.ValueRange, "Invalid expectation", "%s must be a finite number ≥ 0.", valueKey)
			}
			if d != nil {
				diags = append(diags, d)
				continue
			}
			abs.Value, seen = f, true
		case it.Key == "tolerance" && withTolerance:
			pct, d := parsePercent(it.Value, it.ValueRange, "tolerance")
			if d != nil {
				diags = append(diags, d)
				continue
			}
			abs.Tolerance = pct / 100
		default:
			allowed := valueKey
			if withTolerance {
				allowed += ", tolerance"
			}
			diags = append(diags, errorf(it.KeyRange, "Unsupported key",
				"%s has no key %q (keys: %s).", a.Name, truncate(it.Key, 40), allowed))
		}
	}
	if !seen && !diags.HasErrors() {
		diags = append(diags, errorf(a.Expr.Range(), "Missing key", "%s needs %s = ….", a.Name, valueKey))
	}
	return abs, diags
}

// ratio decodes { of = "lro=true", over = "lro=false", at_least = 2.5 }
// (or between = [lo, hi], or published = published.<name> with an
// optional margin; ref is the published item taken out of the object).
func (x *expectDecoder) ratio(a *hcl.Attribute, items []objItem, ref hcl.Expression) (*Ratio, hcl.Diagnostics) {
	r := &Ratio{}
	var diags hcl.Diagnostics
	var haveAtLeast, haveBetween, unknownSel, haveMargin bool
	var sel [2]selected // of, over
	if ref != nil {
		r.PublishedRange = ref.Range()
		names, d := refTraversal(ref, "published", 1)
		if d != nil {
			diags = append(diags, d)
		} else {
			r.Published = names[0]
		}
	}
	for _, it := range items {
		switch it.Key {
		case "margin":
			m, d := parseMargin(it)
			if d != nil {
				diags = append(diags, d)
				continue
			}
			r.Margin, haveMargin = m, true
		case "of", "over":
			if !it.Value.IsKnown() {
				unknownSel = true // checked once it is known
				continue
			}
			s, d := toString(it.Value, it.ValueRange, it.Key)
			var got selected
			if d == nil {
				got, d = x.ratioSelector(s, it.ValueRange)
			}
			if d != nil {
				diags = append(diags, d)
				continue
			}
			if it.Key == "of" {
				r.Of, sel[0] = s, got
			} else {
				r.Over, sel[1] = s, got
			}
		case "at_least":
			if !it.Value.IsKnown() {
				haveAtLeast = true // checked once it is known
				continue
			}
			f, d := toFloat(it.Value, it.ValueRange, "at_least")
			if d == nil && (math.IsInf(f, 0) || f <= 0) {
				d = errorf(it.ValueRange, "Invalid expectation", "at_least must be a finite number > 0.")
			}
			if d != nil {
				diags = append(diags, d)
				continue
			}
			r.AtLeast, haveAtLeast = f, true
		case "between":
			b, d := between(it)
			if d != nil {
				diags = append(diags, d)
				continue
			}
			r.Between, haveBetween = b, true
		default:
			diags = append(diags, errorf(it.KeyRange, "Unsupported key",
				"ratio has no key %q (keys: of, over, at_least, between, published, margin).", truncate(it.Key, 40)))
		}
	}
	if diags.HasErrors() {
		return r, diags
	}
	switch {
	case (r.Of == "" || r.Over == "") && !unknownSel:
		diags = append(diags, errorf(a.Expr.Range(), "Missing key",
			`ratio needs of = "key=value" and over = "key=value".`))
	case ref != nil && (haveAtLeast || haveBetween):
		diags = append(diags, errorf(a.Expr.Range(), "Invalid ratio",
			"ratio takes published = … (the expected ratio is the table's) or at_least / between, not both."))
	case ref == nil && haveMargin:
		diags = append(diags, errorf(a.Expr.Range(), "Invalid ratio",
			"margin is the band around a published ratio: it needs published = published.<name>."))
	case ref == nil && haveAtLeast == haveBetween:
		diags = append(diags, errorf(a.Expr.Range(), "Invalid ratio",
			"ratio needs exactly one of at_least = …, between = [low, high] or published = published.<name>."))
	case r.Of != "" && r.Over != "" && sel[0].same(sel[1]):
		diags = append(diags, errorf(sel[1].rng, "Ratio of a cell over itself",
			"of = %q and over = %q select the same cells, so every cell would be divided by itself (a ratio of 1): over must name another value of %s.",
			truncate(r.Of, 40), truncate(r.Over, 40), sel[0].key))
	}
	if ref != nil && !haveMargin {
		r.Margin = DefaultRatioMargin
	}
	return r, diags
}

// selected is what a ratio's of or over selects: a key and its value
// (unknown when not known yet), and where the selector is written.
type selected struct {
	key string
	val cty.Value
	rng hcl.Range
}

// same reports whether s and o select the same cells: the same key with
// the same known value.
func (s selected) same(o selected) bool {
	if s.key == "" || s.key != o.key || s.val == cty.NilVal || o.val == cty.NilVal || !s.val.IsWhollyKnown() || !o.val.IsWhollyKnown() {
		return false
	}
	return s.val.RawEquals(o.val)
}

func between(it objItem) ([2]float64, *hcl.Diagnostic) {
	var b [2]float64
	v := it.Value
	ty := v.Type()
	if !v.IsWhollyKnown() {
		return b, nil
	}
	if v.IsNull() || !(ty.IsListType() || ty.IsTupleType()) || v.LengthInt() != 2 {
		return b, errorf(it.ValueRange, "Invalid ratio", "between must be a list of two numbers [low, high].")
	}
	for i, ev := range v.AsValueSlice() {
		f, d := toFloat(ev, it.ValueRange, "between")
		if d != nil {
			return b, d
		}
		b[i] = f
	}
	if !(b[0] > 0 && b[0] <= b[1]) || math.IsInf(b[1], 0) {
		return b, errorf(it.ValueRange, "Invalid ratio", "between = [low, high] needs 0 < low ≤ high.")
	}
	return b, nil
}

// ratioSelector checks "key=value" against the matrix (or the pairs) and
// returns what it selects.
func (x *expectDecoder) ratioSelector(s string, rng hcl.Range) (selected, *hcl.Diagnostic) {
	key, val, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return selected{}, errorf(rng, "Invalid selector", `%q is not a selector: write "key=value", like "lro=true".`, truncate(s, 40))
	}
	key = strings.TrimSpace(key)
	v, d := x.selector(key, cty.StringVal(strings.TrimSpace(val)), rng, rng)
	return selected{key: key, val: v, rng: rng}, d
}

// metricExpect decodes latency = { p99_us = 80, tolerance = "20%" } (a
// band) or latency = { max_p99_us = 500 } (a maximum), transactions = {
// per_sec = 40000, tolerance = "10%" }, loss = { max = "0.1%" } and jitter =
// { max_ms = 0.05 }: one value key and, for a band, a tolerance.
func metricExpect(a *hcl.Attribute, items []objItem) (MetricExpect, hcl.Diagnostics) {
	spec := metricAttrs[a.Name]
	var m MetricExpect
	var diags hcl.Diagnostics
	names := slices.Sorted(maps.Keys(spec.keys))
	bands := false
	for _, k := range spec.keys {
		bands = bands || !k.max
	}
	allowed := names
	if bands {
		allowed = append(allowed, "tolerance")
	}
	var tolRange *hcl.Range
	for _, it := range items {
		if key, ok := spec.keys[it.Key]; ok {
			if m.Metric != "" {
				diags = append(diags, errorf(it.KeyRange, "Invalid expectation",
					"%s takes one of %s per expect block; write another expect block for the other.", a.Name, joinNames(names)))
				continue
			}
			var f float64
			var d *hcl.Diagnostic
			if spec.pct {
				f, d = parsePercent(it.Value, it.ValueRange, a.Name+"."+it.Key)
			} else {
				f, d = toFloat(it.Value, it.ValueRange, it.Key)
				if d == nil && (math.IsInf(f, 0) || math.IsNaN(f) || f < 0) {
					d = errorf(it.ValueRange, "Invalid expectation", "%s must be a finite number ≥ 0.", it.Key)
				}
			}
			if d != nil {
				diags = append(diags, d)
				continue
			}
			m.Metric, m.Value, m.Max = key.metric, f, key.max
			continue
		}
		if it.Key == "tolerance" && bands {
			pct, d := parsePercent(it.Value, it.ValueRange, "tolerance")
			if d != nil {
				diags = append(diags, d)
				continue
			}
			m.Tolerance = pct / 100
			rng := it.KeyRange
			tolRange = &rng
			continue
		}
		diags = append(diags, errorf(it.KeyRange, "Unsupported key",
			"%s has no key %q (keys: %s).", a.Name, truncate(it.Key, 40), joinNames(allowed)))
	}
	switch {
	case diags.HasErrors():
	case m.Metric == "":
		diags = append(diags, errorf(a.Expr.Range(), "Missing key", "%s needs one of %s.", a.Name, joinNames(names)))
	case !m.Max && tolRange == nil:
		diags = append(diags, errorf(a.Expr.Range(), "Missing key",
			"%s needs tolerance = \"…%%\": the band the 95%% interval of the mean must lie in.", a.Name))
	case m.Max && tolRange != nil:
		diags = append(diags, errorf(*tolRange, "Invalid expectation",
			"a maximum takes no tolerance: the whole 95%% interval of the mean must lie at or below it."))
	}
	return m, diags
}
