package spec

import (
	"maps"
	"net/netip"
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

var pairSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "template"}, {Name: "server"}, {Name: "client"}, {Name: "via"}, {Name: "vcpu"}, {Name: "memory"}, {Name: "addresses"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "nic"}, {Type: "link"}},
}

var nicSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "model"}, {Name: "queues"}, {Name: "host"}, {Name: "rx_queue_size"}, {Name: "tx_queue_size"}},
}

var linkSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "mtu"}},
}

// Limits shared by pairs and per-cell hardware.
const (
	maxVCPU   = 1024
	minMTU    = 68
	maxMTU    = 65535
	maxQueues = 256
	// Host-side virtio ring sizes: QEMU's virtio-net takes a power of two
	// from 256 to 1024 (hw/net/virtio-net.c, "Invalid rx_queue_size").
	minQueueSize = 256
	maxQueueSize = 1024
)

// decodePairs decodes pair blocks; templates must be decoded first.
func (l *loader) decodePairs(blocks []*hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, b := range blocks {
		p, d := l.decodePair(b)
		diags = append(diags, d...)
		if prev := l.lab.Pairs[p.Name]; prev != nil {
			diags = append(diags, errorf(b.DefRange, "Duplicate pair",
				"A pair named %q was already declared at %s.", p.Name, declaredAt(prev.DeclRange)))
			continue
		}
		l.lab.Pairs[p.Name] = p
	}
	return diags
}

// decodePair decodes one pair block: its name, which templates make its
// ends (and its router), its per-end hardware, its addresses and its
// nic and link blocks. Diagnostics come in the order the parts are read.
func (l *loader) decodePair(b *hcl.Block) (*Pair, hcl.Diagnostics) {
	p := &Pair{Name: b.Labels[0], DeclRange: b.DefRange}
	var diags hcl.Diagnostics
	if d := checkName(b, 0, "pair", labNameRe, labNameRule); d != nil {
		diags = append(diags, d)
	}
	content, d := b.Body.Content(pairSchema)
	diags = append(diags, d...)

	diags = append(diags, l.decodePairEnds(b, content, p)...)
	if a := content.Attributes["via"]; a != nil {
		diags = append(diags, l.decodePairVia(a, content.Attributes["client"], p)...)
	}
	diags = append(diags, l.decodePairSize(content, p)...)

	if a := content.Attributes["addresses"]; a != nil {
		p.Addresses, d = l.decodeAddresses(a)
		diags = append(diags, d...)
		p.rangeOf("addresses", a)
	}

	nb, d := singleBlock(content.Blocks.OfType("nic"), "nic")
	diags = append(diags, d...)
	if nb != nil {
		diags = append(diags, l.decodeNIC(nb, p)...)
	}
	lb, d := singleBlock(content.Blocks.OfType("link"), "link")
	diags = append(diags, d...)
	if lb != nil {
		diags = append(diags, l.decodePairLink(lb, p)...)
	}
	return p, diags
}

// decodePairEnds reads which templates make the pair's ends: template = …
// for both, or server = … and client = … together, never both forms.
func (l *loader) decodePairEnds(b *hcl.Block, content *hcl.BodyContent, p *Pair) hcl.Diagnostics {
	var diags hcl.Diagnostics
	tmpl, server, client := content.Attributes["template"], content.Attributes["server"], content.Attributes["client"]
	switch {
	case tmpl != nil && (server != nil || client != nil):
		other := server
		if other == nil {
			other = client
		}
		diags = append(diags, errorf(other.NameRange, "Conflicting template attributes",
			"A pair uses either template = … for both ends or server = … and client = …, not both."))
	case tmpl != nil:
		name, d := l.templateRef(tmpl)
		diags = append(diags, d...)
		p.Server, p.Client = name, name
		p.rangeOf("server", tmpl)
		p.rangeOf("client", tmpl)
	case server != nil && client != nil:
		p.rangeOf("server", server)
		p.rangeOf("client", client)
		var d hcl.Diagnostics
		p.Server, d = l.templateRef(server)
		diags = append(diags, d...)
		p.Client, d = l.templateRef(client)
		diags = append(diags, d...)
	case server != nil || client != nil:
		missing := "client"
		if server == nil {
			missing = "server"
		}
		diags = append(diags, errorf(b.DefRange, "Missing "+missing+" template",
			"A pair with server = … needs client = … too (and the other way round)."))
	default:
		diags = append(diags, errorf(b.DefRange, "Missing template",
			"A pair needs template = template.<name>, or server = template.<a> and client = template.<b>."))
	}
	return diags
}

// decodePairVia reads via = template.<name>, the router of a routed pair,
// and checks that the router and the client (written at client, nil when
// the pair uses template = …) come from the server's provider.
func (l *loader) decodePairVia(a, client *hcl.Attribute, p *Pair) hcl.Diagnostics {
	name, diags := l.templateRef(a)
	p.Via = name
	p.rangeOf("via", a)
	if name != "" && p.Server != "" {
		diags = append(diags, l.sameProvider(p.Server, name, a, "router")...)
	}
	if name != "" && p.Server != "" && p.Client != "" && client != nil {
		diags = append(diags, l.sameProvider(p.Server, p.Client, client, "client")...)
	}
	return diags
}

// decodePairSize reads the pair's per-machine hardware: vcpu and memory.
func (l *loader) decodePairSize(content *hcl.BodyContent, p *Pair) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if a := content.Attributes["vcpu"]; a != nil {
		n, d := l.evalInt(a, 1, maxVCPU)
		diags = append(diags, d...)
		p.VCPU = n
		p.rangeOf("vcpu", a)
	}
	if a := content.Attributes["memory"]; a != nil {
		v, d := l.evalValue(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			m, dd := parseMemoryMiB(v, a.Expr.Range(), a.Name)
			if dd != nil {
				diags = append(diags, dd)
			}
			p.MemoryMiB = m
		}
		p.rangeOf("memory", a)
	}
	return diags
}

// decodePairLink reads the pair's link block: the MTU of the link(s)
// between its machines.
func (l *loader) decodePairLink(lb *hcl.Block, p *Pair) hcl.Diagnostics {
	c, diags := lb.Body.Content(linkSchema)
	if a := c.Attributes["mtu"]; a != nil {
		n, d := l.evalInt(a, minMTU, maxMTU)
		diags = append(diags, d...)
		p.LinkMTU = n
		p.rangeOf("link.mtu", a)
	}
	return diags
}

// sameProvider refuses a routed pair whose router or client template
// (other, written at a) comes from another provider than its server's: a
// routed pair's three machines and two links come from one provider. (A
// direct pair may cross providers: its ends then meet on the network that
// exists between them, docs/PROVIDERS.md "Cross pairs".)
func (l *loader) sameProvider(server, other string, a *hcl.Attribute, role string) hcl.Diagnostics {
	st, ot := l.lab.Templates[server], l.lab.Templates[other]
	if st == nil || ot == nil || st.Provider == ot.Provider {
		return nil
	}
	return hcl.Diagnostics{errorf(a.Expr.Range(), "Routed pair across providers",
		"The %s's template %q is made by provider %q, the server's template %q by %q. A routed pair's machines and its two links come from one provider: use templates of one provider for the server, the router and the client (a pair without via may cross providers).",
		role, other, ot.Provider, server, st.Provider)}
}

// decodeAddresses reads addresses = { server = "…/24", client = "…/24" }:
// IPv4 addresses with a prefix length of 8 to 30, one per end at most,
// not the same twice.
func (l *loader) decodeAddresses(a *hcl.Attribute) (map[string]string, hcl.Diagnostics) {
	v, diags := l.evalValue(a)
	if diags.HasErrors() {
		return nil, diags
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		return nil, hcl.Diagnostics{attrErr(a, "Invalid addresses", `addresses is an object: { server = "198.18.250.2/24", client = "198.18.250.3/24" }.`)}
	}
	out := map[string]string{}
	seen := map[netip.Addr]string{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		role := k.AsString()
		if role != "server" && role != "client" {
			return nil, hcl.Diagnostics{attrErr(a, "Invalid addresses", "addresses names the ends: server and client, not %q.", truncate(role, 40))}
		}
		if e.IsNull() || !e.Type().Equals(cty.String) {
			return nil, hcl.Diagnostics{attrErr(a, "Invalid addresses", "addresses.%s must be a string like \"198.18.250.2/24\".", role)}
		}
		s := e.AsString()
		pfx, err := netip.ParsePrefix(s)
		if err != nil || !pfx.Addr().Is4() || pfx.Bits() < 8 || pfx.Bits() > 30 {
			return nil, hcl.Diagnostics{attrErr(a, "Invalid addresses",
				"addresses.%s must be an IPv4 address with its prefix length (8 to 30), as \"198.18.250.2/24\"; got %q.", role, truncate(s, 60))}
		}
		if other, dup := seen[pfx.Addr()]; dup {
			return nil, hcl.Diagnostics{attrErr(a, "Invalid addresses", "addresses gives %s to both the %s and the %s.", pfx.Addr(), other, role)}
		}
		seen[pfx.Addr()] = role
		out[role] = s
	}
	return out, nil
}

// templateRef resolves template = template.<name>.
func (l *loader) templateRef(a *hcl.Attribute) (string, hcl.Diagnostics) {
	names, d := refTraversal(a.Expr, "template", 1)
	if d != nil {
		return "", hcl.Diagnostics{d}
	}
	if l.lab.Templates[names[0]] == nil {
		return "", hcl.Diagnostics{errorf(a.Expr.Range(), "Reference to undeclared template",
			"No template %q is declared (declared: %s).", names[0], joinNames(slices.Sorted(maps.Keys(l.lab.Templates))))}
	}
	return names[0], nil
}

func (l *loader) decodeNIC(b *hcl.Block, p *Pair) hcl.Diagnostics {
	content, diags := b.Body.Content(nicSchema)
	if a := content.Attributes["model"]; a != nil {
		s, d := l.evalString(a)
		diags = append(diags, d...)
		if !d.HasErrors() && !nicModelRe.MatchString(s) {
			diags = append(diags, attrErr(a, "Invalid NIC model",
				"%q is not a valid NIC model: use lower-case letters, digits, _ and - (at most 32).", truncate(s, 40)))
		}
		p.NIC.Model = s
		p.rangeOf("nic.model", a)
	}
	if a := content.Attributes["queues"]; a != nil {
		n, d := l.evalInt(a, 1, maxQueues)
		diags = append(diags, d...)
		p.NIC.Queues = n
		p.rangeOf("nic.queues", a)
	}
	for _, k := range []string{"rx_queue_size", "tx_queue_size"} {
		a := content.Attributes[k]
		if a == nil {
			continue
		}
		n, d := l.evalInt(a, minQueueSize, maxQueueSize)
		diags = append(diags, d...)
		if !d.HasErrors() && n&(n-1) != 0 {
			diags = append(diags, attrErr(a, "Invalid virtio ring size",
				"%s = %d: a virtio ring size is a power of two from %d to %d (256, 512 or 1024).", k, n, minQueueSize, maxQueueSize))
			n = 0
		}
		if k == "rx_queue_size" {
			p.NIC.RXQueueSize = n
		} else {
			p.NIC.TXQueueSize = n
		}
		p.rangeOf("nic."+k, a)
	}
	if a := content.Attributes["host"]; a != nil {
		p.rangeOf("nic.host", a)
		if _, d := l.checkRefs(a.Expr, nil); d.HasErrors() {
			return append(diags, d...)
		}
		items, d := objectItems(a.Expr, l.ctx, "host")
		diags = append(diags, d...)
		for _, it := range items {
			if !offloadKeyRe.MatchString(it.Key) {
				diags = append(diags, errorf(it.KeyRange, "Invalid offload name",
					"%q is not a valid offload name: use lower-case letters, digits, _ and - (at most 32).", truncate(it.Key, 40)))
				continue
			}
			on, dd := toBool(it.Value, it.ValueRange, "host."+it.Key)
			if dd != nil {
				diags = append(diags, dd)
				continue
			}
			if p.NIC.Host == nil {
				p.NIC.Host = map[string]bool{}
			}
			p.NIC.Host[it.Key] = on
		}
	}
	return diags
}

// rangeOf records where attribute a of the pair (named by its path, such
// as "nic.model") is written, for diagnostics made after decoding.
func (p *Pair) rangeOf(path string, a *hcl.Attribute) {
	if p.Ranges == nil {
		p.Ranges = map[string]hcl.Range{}
	}
	p.Ranges[path] = a.Range
}

// RangeOf is where the pair's attribute path ("server", "client" — the
// template attribute that names it —, "addresses", "via", "nic.model",
// "nic.queues", "nic.rx_queue_size", "nic.tx_queue_size", "nic.host", "vcpu", "memory", "link.mtu") is written, or the
// pair block's own range when the attribute is not.
func (p *Pair) RangeOf(path string) hcl.Range {
	if r, ok := p.Ranges[path]; ok {
		return r
	}
	return p.DeclRange
}
