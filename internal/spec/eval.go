package spec

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bench"
)

// cellExprs are an experiment's per-cell expressions (guest, server,
// client, hardware and benchmark blocks), ready to evaluate per cell.
type cellExprs struct {
	dims   []Dimension
	ctx    *hcl.EvalContext // var.* and functions; matrix is added per cell
	bench  *bench.Tool
	attrs  []*cellAttr
	checks []*cellCheck
}

// cellAttr is one per-cell attribute.
type cellAttr struct {
	attr *hcl.Attribute
	dims []int // indexes of the matrix keys it reads
	// konst is its value when it reads no matrix key (evaluated once).
	konst cty.Value
	apply func(c *cellState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic

	// cache memoizes the value per combination of the keys it reads:
	// plan evaluates thousands of cells that share a few such combinations.
	mu    sync.Mutex
	cache map[string]cty.Value
}

// cellCheck validates attributes of one block together (duration > omit).
type cellCheck struct {
	attrs []*cellAttr
	check func(c *cellState) *hcl.Diagnostic
}

// cellState is a cell while its attributes are applied.
type cellState struct {
	ends      [3]endState // server, client, router
	bench     bench.Params
	vcpu      int
	memoryMiB int
}

func (ce *cellExprs) newState() *cellState {
	c := &cellState{}
	c.ends[0].s.Strict, c.ends[1].s.Strict, c.ends[2].s.Strict = true, true, true
	if ce.bench != nil {
		c.bench.Tool = ce.bench.Name
		ce.bench.Block.Defaults(&c.bench)
	}
	return c
}

// spec turns the state into a CellSpec. Without its own congestion
// control, the benchmark selects the sending end's (per socket).
func (c *cellState) spec() CellSpec {
	cs := CellSpec{Server: c.ends[0].finish(), Client: c.ends[1].finish(), Router: c.ends[2].finish(), Bench: c.bench,
		VCPU: c.vcpu, MemoryMiB: c.memoryMiB}
	if cs.Bench.CongestionControl == "" {
		sender, receiver := cs.Client, cs.Server
		if cs.Bench.Reverse {
			sender, receiver = receiver, sender
		}
		cs.Bench.CongestionControl = sender.CongestionControl
		if cs.Bench.CongestionControl == "" {
			cs.Bench.CongestionControl = receiver.CongestionControl
		}
	}
	return cs
}

// maxCache bounds the memoized values per attribute.
const maxCache = 1 << 16

// value evaluates the attribute in ctx (or returns its constant value);
// matrix holds the cell's values by key.
func (a *cellAttr) value(ctx *hcl.EvalContext, dims []Dimension, matrix map[string]cty.Value) (cty.Value, hcl.Diagnostics) {
	if len(a.dims) == 0 {
		return a.konst, nil
	}
	var kb strings.Builder
	for _, i := range a.dims {
		v := matrix[dims[i].Name]
		if !v.IsKnown() || v.IsNull() || !v.Type().IsPrimitiveType() {
			return evalExpr(a.attr.Expr, ctx) // not a matrix value: no caching
		}
		kb.WriteString(v.Type().FriendlyName())
		kb.WriteByte(':')
		kb.WriteString(valueText(v))
		kb.WriteByte(0)
	}
	key := kb.String()
	a.mu.Lock()
	v, ok := a.cache[key]
	a.mu.Unlock()
	if ok {
		return v, nil
	}
	v, diags := evalExpr(a.attr.Expr, ctx)
	if !diags.HasErrors() {
		a.mu.Lock()
		if a.cache == nil {
			a.cache = map[string]cty.Value{}
		}
		if len(a.cache) < maxCache {
			a.cache[key] = v
		}
		a.mu.Unlock()
	}
	return v, diags
}

// run evaluates and applies the attribute. A value not wholly known (it
// reads a variable with no value yet) is not applied: the cell keeps its
// default, and the value is checked once known.
func (a *cellAttr) run(c *cellState, ctx *hcl.EvalContext, dims []Dimension, matrix map[string]cty.Value) hcl.Diagnostics {
	v, diags := a.value(ctx, dims, matrix)
	if diags.HasErrors() || !v.IsWhollyKnown() {
		return diags
	}
	if d := a.apply(c, v, a.attr); d != nil {
		if d.Expression == nil {
			d.Expression, d.EvalContext = a.attr.Expr, ctx
		}
		diags = append(diags, d)
	}
	return diags
}

// Eval evaluates the experiment's per-cell expressions for one combination
// of matrix values (keys are dimension names; other keys such as "pair"
// are ignored). Errors carry the range of the offending expression.
func (e *Experiment) Eval(values map[string]cty.Value) (CellSpec, hcl.Diagnostics) {
	ce := e.eval
	if ce == nil {
		return CellSpec{}, hcl.Diagnostics{errorf(e.DeclRange, "Experiment not decoded",
			"The experiment %q was not decoded by spec.Load.", e.Name)}
	}
	m := make(map[string]cty.Value, len(ce.dims))
	var diags hcl.Diagnostics
	for _, d := range ce.dims {
		v, ok := values[d.Name]
		if !ok {
			diags = append(diags, errorf(e.DeclRange, "Missing matrix value",
				"No value was given for matrix key %q of experiment %q.", d.Name, e.Name))
			v = d.Values[0]
		}
		m[d.Name] = v
	}
	c, d := ce.evalCell(m, ce.attrs, ce.checks)
	cs := c.spec()
	e.applyIPVersion(&cs)
	if e.Background != nil && !d.HasErrors() {
		bg, bd := e.Background.forCell(cs.Bench)
		if bd != nil {
			d = append(d, bd)
		}
		cs.Background = bg
	}
	return cs, append(diags, d...)
}

// evalCell applies attrs and runs checks for one cell's matrix values.
func (ce *cellExprs) evalCell(matrix map[string]cty.Value, attrs []*cellAttr, checks []*cellCheck) (*cellState, hcl.Diagnostics) {
	ctx := ce.ctx.NewChild()
	ctx.Variables = map[string]cty.Value{"matrix": cty.ObjectVal(matrix)}
	c := ce.newState()
	var diags hcl.Diagnostics
	for _, a := range attrs {
		diags = append(diags, a.run(c, ctx, ce.dims, matrix)...)
	}
	if !diags.HasErrors() {
		for _, ch := range checks {
			if d := ch.check(c); d != nil {
				diags = append(diags, d)
			}
		}
	}
	return c, diags
}

// maxCheckCombos bounds how many value combinations Load evaluates for one
// attribute (or check) up front.
const maxCheckCombos = 4096

// validate evaluates, at load time, every attribute once per combination
// of the matrix values it reads (and every check once per combination of
// its attributes' keys), so that a bad value in one cell is reported by
// Load with the expression's range. It reports at most one error per
// attribute or check.
func (ce *cellExprs) validate() hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, a := range ce.attrs {
		diags = append(diags, ce.validateCombos(a.dims, []*cellAttr{a}, nil)...)
	}
	if diags.HasErrors() {
		return diags // checks would only repeat an attribute's error
	}
	for _, ch := range ce.checks {
		var dims []int
		for _, a := range ch.attrs {
			dims = unionInts(dims, a.dims)
		}
		diags = append(diags, ce.validateCombos(dims, ch.attrs, []*cellCheck{ch})...)
	}
	return diags
}

func (ce *cellExprs) validateCombos(dims []int, attrs []*cellAttr, checks []*cellCheck) hcl.Diagnostics {
	var diags hcl.Diagnostics
	ce.eachCombo(dims, func(matrix map[string]cty.Value, idx []int) bool {
		_, diags = ce.evalCell(matrix, attrs, checks)
		if !diags.HasErrors() {
			return true
		}
		if len(dims) > 0 {
			var with []string
			for i, di := range dims {
				with = append(with, fmt.Sprintf("matrix.%s = %s", ce.dims[di].Name, displayValue(ce.dims[di].Values[idx[i]])))
			}
			for _, d := range diags {
				if d.EvalContext != nil {
					continue // the writer shows "with matrix.x as …" itself
				}
				d.Detail += fmt.Sprintf(" (in the cells where %s)", strings.Join(with, ", "))
			}
		}
		return false
	})
	if !diags.HasErrors() {
		return nil
	}
	return diags
}

// eachCombo calls f with the matrix values of every combination of the
// values of dims (the other keys at their first value) and the indexes of
// dims' values, at most maxCheckCombos times, until f returns false.
func (ce *cellExprs) eachCombo(dims []int, f func(matrix map[string]cty.Value, idx []int) bool) {
	base := make(map[string]cty.Value, len(ce.dims))
	for _, d := range ce.dims {
		base[d.Name] = d.Values[0]
	}
	idx := make([]int, len(dims))
	for n := 0; n < maxCheckCombos; n++ {
		for i, di := range dims {
			base[ce.dims[di].Name] = ce.dims[di].Values[idx[i]]
		}
		if !f(base, idx) || !nextCombo(idx, dims, ce.dims) {
			return
		}
	}
}

// nextCombo advances idx (an odometer over the dims' values); false at the end.
func nextCombo(idx, dims []int, all []Dimension) bool {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < len(all[dims[i]].Values) {
			return true
		}
		idx[i] = 0
	}
	return false
}

func unionInts(a, b []int) []int {
	for _, x := range b {
		found := false
		for _, y := range a {
			found = found || x == y
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}
