package spec

import (
	"fmt"
	"maps"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// experimentSchema lists the experiment block's contents; benchmark block
// types are added from the registered tools (bench.Names).
func experimentSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{
			{Name: "description"}, {Name: "pairs"}, {Name: "matrix"}, {Name: "repeat"}, {Name: "warmup"}, {Name: "order"}, {Name: "budget"},
			{Name: "ip_version"},
		},
		Blocks: []hcl.BlockHeaderSchema{
			{Type: "guest"}, {Type: "server"}, {Type: "client"}, {Type: "router"}, {Type: "hardware"},
			{Type: "expect", LabelNames: []string{"name"}},
		},
	}
	for _, n := range bench.Names() {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: n})
	}
	s.Attributes = append(s.Attributes, concurrentSchema...)
	s.Attributes = append(s.Attributes, duetSchema...)
	s.Blocks = append(s.Blocks, backgroundBlock...)
	return s
}

const maxRepeat = 1000

// decodeExperiments decodes experiment blocks; pairs must be decoded first.
func (l *loader) decodeExperiments(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]*Experiment{}
	schema := experimentSchema()
	for _, b := range blocks {
		e, d := l.decodeExperiment(b, schema)
		diags = append(diags, d...)
		if prev := seen[e.Name]; prev != nil {
			diags = append(diags, errorf(b.DefRange, "Duplicate experiment",
				"An experiment named %q was already declared at %s.", e.Name, declaredAt(prev.DeclRange)))
			continue
		}
		seen[e.Name] = e
		l.lab.Experiments = append(l.lab.Experiments, e)
	}
	return diags
}

// decodeExperiment decodes one experiment block: its name and body, then
// its attributes (decodeExperimentAttrs), then its blocks
// (decodeExperimentBlocks). Diagnostics come in the order the parts are read.
func (l *loader) decodeExperiment(b *hcl.Block, schema *hcl.BodySchema) (*Experiment, hcl.Diagnostics) {
	e := &Experiment{Name: b.Labels[0], Repeat: 1, Order: OrderRandom, DeclRange: b.DefRange}
	var diags hcl.Diagnostics
	if d := checkName(b, 0, "experiment", blockNameRe, blockNameRule); d != nil {
		diags = append(diags, d)
	}
	content, d := b.Body.Content(schema)
	hintIPVersion(d)
	diags = append(diags, d...)
	attrs := content.Attributes
	if d := l.checkSensitiveRefs(b); d.HasErrors() {
		return e, append(diags, d...)
	}
	keyRanges, d := l.decodeExperimentAttrs(b, attrs, e)
	diags = append(diags, d...)
	return e, l.decodeExperimentBlocks(content, keyRanges, e, diags)
}

// decodeExperimentAttrs reads the experiment's attributes (description,
// pairs, matrix, repeat, order, budget, ip_version, warmup and the
// concurrency ones) and checks the number of cells and runs they make. It
// returns where each matrix key was written, for decodeExperimentBlocks.
func (l *loader) decodeExperimentAttrs(b *hcl.Block, attrs hcl.Attributes, e *Experiment) ([]hcl.Range, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	if a := attrs["description"]; a != nil {
		s, d := l.evalString(a)
		diags = append(diags, d...)
		e.Description = s
	}
	if a := attrs["pairs"]; a != nil {
		diags = append(diags, l.decodePairList(e, a)...)
	} else {
		diags = append(diags, errorf(b.DefRange, "Missing pairs",
			"An experiment needs pairs = [pair.<name>, …]."))
	}
	var keyRanges []hcl.Range
	if a := attrs["matrix"]; a != nil {
		var d hcl.Diagnostics
		e.Matrix, keyRanges, d = l.decodeMatrix(a)
		diags = append(diags, d...)
	}
	if a := attrs["repeat"]; a != nil {
		diags = append(diags, l.decodeRepeat(a, e)...)
	}
	if a := attrs["order"]; a != nil {
		s, d := l.evalString(a)
		diags = append(diags, d...)
		switch {
		case d.HasErrors():
		case s == OrderRandom || s == OrderInterleaved || s == OrderSequential:
			e.Order = s
		default:
			diags = append(diags, errorf(a.Expr.Range(), "Invalid order",
				"order is %q, %q or %q, not %q.", OrderRandom, OrderInterleaved, OrderSequential, truncate(s, 40)))
		}
	}
	diags = append(diags, l.decodeBudget(e, attrs["budget"], attrs["repeat"], attrs["order"])...)
	diags = append(diags, l.decodeIPVersion(e, attrs["ip_version"])...)
	if a := attrs["warmup"]; a != nil {
		n, d := l.evalInt(a, 0, maxRepeat)
		diags = append(diags, d...)
		e.Warmup = n
	}
	diags = append(diags, l.decodeConcurrent(e, attrs)...)
	diags = append(diags, l.decodeDesign(e, attrs)...)

	if cells, d := checkCells(e, attrs["matrix"], attrs["pairs"]); d != nil {
		diags = append(diags, d)
	} else if d := l.checkRuns(e, cells, attrs["repeat"]); d != nil {
		diags = append(diags, d)
	}
	return keyRanges, diags
}

// decodeExperimentBlocks reads the experiment's blocks (router, background,
// guest, server, client, hardware, the benchmark, expect) after its
// attributes, appending to diags, what was reported so far: a matrix key
// none of them uses is reported only when diags holds no error.
func (l *loader) decodeExperimentBlocks(content *hcl.BodyContent, keyRanges []hcl.Range, e *Experiment, diags hcl.Diagnostics) hcl.Diagnostics {
	if rb := content.Blocks.OfType("router"); len(rb) > 0 && !l.anyVia(e.Pairs) {
		diags = append(diags, errorf(rb[0].DefRange, "Router settings without a router",
			"No pair of this experiment goes via a router guest: add via = template.<name> to a pair, or remove this router block."))
	}
	diags = append(diags, l.decodeBackground(e, content)...)
	used := map[int]bool{}
	ce, cellOK, d := l.decodeCellBlocks(e, content, used)
	diags = append(diags, d...)
	e.eval = ce

	x := &expectDecoder{l: l, e: e, used: used}
	names := map[string]hcl.Range{}
	for _, eb := range content.Blocks.OfType("expect") {
		if prev, dup := names[eb.Labels[0]]; dup {
			diags = append(diags, errorf(eb.DefRange, "Duplicate expect",
				"An expect block named %q was already declared at %s.", eb.Labels[0], declaredAt(prev)))
			continue
		}
		names[eb.Labels[0]] = eb.DefRange
		ex, d := x.decode(eb)
		diags = append(diags, d...)
		e.Expects = append(e.Expects, ex)
	}

	// An unused key is only reported when nothing else is wrong: an
	// attribute rejected above may well have been the one using it.
	for i, dim := range e.Matrix {
		if !used[i] && !diags.HasErrors() {
			diags = append(diags, errorf(keyRanges[i], "Unused matrix key",
				"matrix.%s is not used by any guest, server, client, hardware or benchmark setting, nor by an expect block; every value of it would repeat the same runs. Use it (as in guest { mtu = matrix.%s }) or remove it.",
				dim.Name, dim.Name))
		}
	}
	if cellOK && ce.bench != nil {
		diags = append(diags, ce.validate()...)
	}
	return diags
}

// decodePairList decodes pairs = [pair.a, pair.b].
func (l *loader) decodePairList(e *Experiment, a *hcl.Attribute) hcl.Diagnostics {
	exprs, diags := hcl.ExprList(a.Expr)
	if diags.HasErrors() {
		return hcl.Diagnostics{errorf(a.Expr.Range(), "Invalid pairs",
			"pairs must be a list of pair references, like [pair.a, pair.b].")}
	}
	if len(exprs) == 0 {
		return hcl.Diagnostics{errorf(a.Expr.Range(), "Missing pairs", "pairs must list at least one pair.")}
	}
	for _, ex := range exprs {
		names, d := refTraversal(ex, "pair", 1)
		if d != nil {
			diags = append(diags, d)
			continue
		}
		name := names[0]
		switch {
		case l.lab.Pairs[name] == nil:
			diags = append(diags, errorf(ex.Range(), "Reference to undeclared pair",
				"No pair %q is declared (declared: %s).", name, joinNames(slices.Sorted(maps.Keys(l.lab.Pairs)))))
		case slices.Contains(e.Pairs, name):
			diags = append(diags, errorf(ex.Range(), "Duplicate pair", "pair.%s is listed twice.", name))
		default:
			e.Pairs = append(e.Pairs, name)
		}
	}
	return diags
}

// decodeCellBlocks collects the per-cell attributes of the guest, server,
// client, hardware and benchmark blocks. used receives the matrix keys
// they read; ok is false when an attribute could not be prepared.
func (l *loader) decodeCellBlocks(e *Experiment, content *hcl.BodyContent, used map[int]bool) (*cellExprs, bool, hcl.Diagnostics) {
	ce := &cellExprs{dims: e.Matrix, ctx: l.ctx}
	var diags hcl.Diagnostics
	ok := true

	add := func(a *hcl.Attribute, apply cellApply) *cellAttr {
		dims, d := l.checkRefs(a.Expr, e.Matrix)
		for _, i := range dims {
			used[i] = true
		}
		if d.HasErrors() {
			diags = append(diags, d...)
			ok = false
			return nil
		}
		ca := &cellAttr{attr: a, apply: apply, dims: unionInts(nil, dims)}
		if len(ca.dims) == 0 {
			v, d := evalExpr(a.Expr, l.ctx)
			if d.HasErrors() {
				diags = append(diags, d...)
				ok = false
				return nil
			}
			ca.konst = v
		}
		ce.attrs = append(ce.attrs, ca)
		return ca
	}

	lossPorts, d := l.decodeSettingsBlocks(e, content, add)
	diags = append(diags, d...)

	if hw, d := singleBlock(content.Blocks.OfType("hardware"), "hardware"); hw != nil || d != nil {
		diags = append(diags, d...)
		if hw != nil {
			c, d := hw.Body.Content(hardwareSchema)
			diags = append(diags, d...)
			for _, n := range slices.Sorted(maps.Keys(c.Attributes)) {
				add(c.Attributes[n], hardwareAttrs[n])
			}
		}
	}

	var benchBlocks []*hcl.Block
	for _, blk := range content.Blocks {
		if benchTool(blk.Type) != nil {
			benchBlocks = append(benchBlocks, blk)
		}
	}
	bb, d := singleBlock(benchBlocks, "benchmark")
	diags = append(diags, d...)
	if bb == nil {
		diags = append(diags, errorf(e.DeclRange, "Missing benchmark block",
			"An experiment needs one benchmark block: %s { … }.", joinNames(bench.Names())))
		return ce, false, diags
	}
	tool := benchTool(bb.Type)
	ce.bench = tool
	c, d := bb.Body.Content(tool.Block.Schema())
	diags = append(diags, d...)
	byName := map[string]*cellAttr{}
	for _, n := range slices.Sorted(maps.Keys(c.Attributes)) {
		set := tool.Block.Attrs[n]
		byName[n] = add(c.Attributes[n], func(cs *cellState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
			if v.IsNull() {
				// Terraform's meaning of null: as if the attribute were
				// not written, so the tool's default applies
				// (send_size = matrix.msg == "default" ? null : matrix.msg).
				return nil
			}
			return set(&cs.bench, v, a)
		})
	}
	for _, chk := range tool.Block.Checks {
		check := &cellCheck{check: func(cs *cellState) *hcl.Diagnostic {
			return chk.Check(&cs.bench, c.Attributes, bb.DefRange)
		}}
		for _, n := range chk.Attrs {
			if a := byName[n]; a != nil {
				check.attrs = append(check.attrs, a)
			}
		}
		ce.checks = append(ce.checks, check)
	}
	if len(lossPorts) > 0 {
		ce.checks = append(ce.checks, lossPortCheck(lossPorts, byName, bb, tool))
	}
	return ce, ok, diags
}

// cellApply sets an evaluated per-cell attribute on a cell's state.
type cellApply = func(c *cellState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic

// decodeSettingsBlocks prepares the guest, server, client and router
// blocks' attributes through add (decodeCellBlocks'); it returns the
// loss_port attributes, which the benchmark is checked against.
func (l *loader) decodeSettingsBlocks(e *Experiment, content *hcl.BodyContent, add func(*hcl.Attribute, cellApply) *cellAttr) ([]*cellAttr, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	var lossPorts []*cellAttr
	// guest applies to every guest of the pair (the router too, when the
	// pair goes via one); server, client and router to one guest, after it.
	hostKernel := l.hostKernelEnds(e.Pairs)
	sysctlRules := l.endsSysctlRules(e.Pairs)
	oses := l.endsOSes(e.Pairs)
	link := l.smallestLinkMTU(e.Pairs)
	for _, role := range []string{"guest", "server", "client", "router"} {
		blk, d := singleBlock(content.Blocks.OfType(role), role)
		diags = append(diags, d...)
		if blk == nil {
			continue
		}
		c, d := blk.Body.Content(settingsSchema)
		diags = append(diags, d...)
		ends := map[string][]int{"guest": {0, 1, 2}, "server": {0}, "client": {1}, "router": {2}}[role]
		for _, n := range slices.Sorted(maps.Keys(c.Attributes)) {
			set := settingsAttrs[n]
			ca := add(c.Attributes[n], func(cs *cellState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
				for _, i := range ends {
					if n == "sysctl" && hostKernel[i] {
						if d := checkHostSysctls(v, a.Expr.Range()); d != nil {
							return d
						}
					}
					for _, os := range sysctlRules[i] {
						if n == "sysctl" {
							if d := checkOSSysctls(v, a.Expr.Range(), os); d != nil {
								return d
							}
						}
					}
					if d := setEnd(role, n, set, oses, i, &cs.ends[i], v, a); d != nil {
						return d
					}
					if n == "mtu" {
						if d := link.check(cs.ends[i].s.MTU, a.Expr.Range()); d != nil {
							return d
						}
					}
				}
				return nil
			})
			if n == "loss_port" && ca != nil {
				lossPorts = append(lossPorts, ca)
			}
		}
	}
	return lossPorts, diags
}

// lossPortCheck checks loss_port against the benchmark: the loss rule
// matches one TCP destination port, so the benchmark must use exactly that
// port (set, not picked: a runner picks the first free port from its
// default up, and a busy default would leave the benchmark's packets
// unmatched — no loss at all, silently) over TCP.
func lossPortCheck(lossPorts []*cellAttr, benchAttrs map[string]*cellAttr, bb *hcl.Block, tool *bench.Tool) *cellCheck {
	attrs := slices.Clone(lossPorts)
	for _, n := range []string{"port", "udp"} {
		if a := benchAttrs[n]; a != nil {
			attrs = append(attrs, a)
		}
	}
	return &cellCheck{attrs: attrs, check: func(cs *cellState) *hcl.Diagnostic {
		for _, a := range lossPorts {
			for _, e := range cs.ends {
				lp := e.lossPort
				switch {
				case lp == 0:
				case tool.LossPortRefusal != "":
					return errorf(a.attr.Expr.Range(), "Invalid loss_port", "%s", tool.LossPortRefusal)
				case cs.bench.UDP:
					return errorf(a.attr.Expr.Range(), "Invalid loss_port",
						"loss_port filters TCP packets (as seed 003's `-p tcp --dport 5001` did); this benchmark runs UDP.")
				case cs.bench.Port != lp:
					return errorf(a.attr.Expr.Range(), "Invalid loss_port",
						"loss_port = %d, but the %s block's port is %s: set port = %d in the %s block, so that the benchmark's packets are the ones the loss rule counts.",
						lp, bb.Type, portText(cs.bench.Port), lp, bb.Type)
				}
			}
		}
		return nil
	}}
}

func portText(p int) string {
	if p == 0 {
		return "not set (the runner picks the first free one)"
	}
	return fmt.Sprint(p)
}

// hostKernelEnds reports, for the server, client and router ends of the
// named pairs, whether any of them is made by a provider whose guests
// share the host's kernel (Options.SharesHostKernel, which the back end
// declares): only namespaced sysctls may be set on them.
func (l *loader) hostKernelEnds(pairs []string) [3]bool {
	return l.endsWhere(pairs, func(t *Template) bool {
		p := l.lab.Providers[t.Provider]
		return p != nil && l.opts.SharesHostKernel != nil && l.opts.SharesHostKernel(p.Type)
	})
}

// linkLimit is the smallest link MTU among an experiment's pairs (0: no
// pair sets one) and the pair that sets it.
type linkLimit struct {
	mtu  int
	pair *Pair
}

// smallestLinkMTU finds the smallest link { mtu } of the named pairs.
func (l *loader) smallestLinkMTU(pairs []string) linkLimit {
	var out linkLimit
	for _, n := range pairs {
		if p := l.lab.Pairs[n]; p != nil && p.LinkMTU > 0 && (out.mtu == 0 || p.LinkMTU < out.mtu) {
			out = linkLimit{p.LinkMTU, p}
		}
	}
	return out
}

// check refuses a guest MTU above the link's: a bridge or vSwitch drops
// the larger frames (a large-MTU cell would measure a black hole), and a
// local veth link would take the guest's MTU, so the record's link MTU
// would be wrong.
func (k linkLimit) check(mtu int, rng hcl.Range) *hcl.Diagnostic {
	if k.mtu == 0 || mtu <= k.mtu {
		return nil
	}
	return errorf(rng, "Guest MTU above the link MTU",
		"mtu = %d is above the MTU of pair %s's link (link { mtu = %d } at %s): a bridge or vSwitch drops the larger frames, and on the local back end, where the link is the guests' own veth, the guest's mtu would silently replace the link's. Raise the link's mtu or lower the guest's.",
		mtu, k.pair.Name, k.mtu, declaredAt(k.pair.RangeOf("link.mtu")))
}

// endsSysctlRules lists, for the server, client and router ends of the
// named pairs, the OSes of their templates that refuse sysctl names by a
// rule of their own (guest.Limits.SysctlName).
func (l *loader) endsSysctlRules(pairs []string) [3][]guest.Driver {
	var out [3][]guest.Driver
	for _, name := range guest.Names() {
		d, _ := guest.Lookup(name)
		if d.Limits.SysctlName == nil {
			continue
		}
		ends := l.endsWhere(pairs, func(t *Template) bool { return guest.For(t.OS).Name == d.Name })
		for i, at := range ends {
			if at {
				out[i] = append(out[i], d)
			}
		}
	}
	return out
}

// setEnd applies one settings attribute to end i. A firewall value is
// read in the language of the end's OSes (setFirewallFor); one in the
// guest block reaches every end, so their OSes must share a language
// unless it is "" (no firewall).
// The guest block reaches the router end of a pair without via too, which
// has no OS and never runs it: its value is kept unchecked there.
func setEnd(role, name string, set endSetter, oses [3][]guest.Driver, i int, e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	if name != "firewall" {
		return set(e, v, a)
	}
	if role == "guest" {
		if v.Type() == cty.String && v.IsKnown() && !v.IsNull() && v.AsString() == "" {
			return setFirewallFor(e, v, a, oses[i]) // no firewall: any OS
		}
		if _, d := endFirewall(a, slices.Concat(oses[0], oses[1], oses[2])); d != nil {
			return d
		}
		if len(oses[i]) == 0 {
			s, d := toString(v, a.Expr.Range(), a.Name)
			if d == nil {
				e.s.Firewall, e.fwLanguage = s, ""
			}
			return d
		}
	}
	return setFirewallFor(e, v, a, oses[i])
}

// endsOSes lists, for the server, client and router ends of the named
// pairs, the distinct OS drivers of their templates.
func (l *loader) endsOSes(pairs []string) [3][]guest.Driver {
	var out [3][]guest.Driver
	for _, name := range guest.Names() {
		d, _ := guest.Lookup(name)
		ends := l.endsWhere(pairs, func(t *Template) bool { return guest.For(t.OS).Name == d.Name })
		for i, at := range ends {
			if at {
				out[i] = append(out[i], d)
			}
		}
	}
	return out
}

// endsWhere reports, for the server, client and router ends of the named
// pairs, whether the template of any of them is one that is(t).
func (l *loader) endsWhere(pairs []string, is func(t *Template) bool) [3]bool {
	var out [3]bool
	match := func(template string) bool {
		t := l.lab.Templates[template]
		return t != nil && is(t)
	}
	for _, n := range pairs {
		if p := l.lab.Pairs[n]; p != nil {
			out[0] = out[0] || match(p.Server)
			out[1] = out[1] || match(p.Client)
			out[2] = out[2] || (p.Via != "" && match(p.Via))
		}
	}
	return out
}

// anyVia reports whether one of the named pairs goes via a router guest.
func (l *loader) anyVia(pairs []string) bool {
	for _, n := range pairs {
		if p := l.lab.Pairs[n]; p != nil && p.Via != "" {
			return true
		}
	}
	return false
}
