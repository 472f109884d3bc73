package spec

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/lab-bench/lab/bench"
)

// IP versions an experiment's benchmark runs over (ip_version).
const (
	// IPv4 is the default: the links carry IPv4 addresses only.
	IPv4 = ""
	// IPv6 addresses the links with IPv6 (unique local addresses on the
	// local back end) besides IPv4, and the benchmark runs over IPv6.
	IPv6 = bench.IPv6
	// IPDual is dual stack: the benchmark runs over IPv6 while IPv4 is
	// configured too, as on most production hosts.
	IPDual = bench.IPDual
)

// decodeIPVersion decodes ip_version = 4 | 6 | "dual" (a number or a
// string: "4" and "6" are accepted too). It is one value per experiment,
// not per cell: a pair's links are addressed once, when they are made.
func (l *loader) decodeIPVersion(e *Experiment, a *hcl.Attribute) hcl.Diagnostics {
	if a == nil {
		return nil
	}
	e.IPVersionRange = a.Expr.Range()
	v, diags := l.evalValue(a)
	if diags.HasErrors() {
		return diags
	}
	text := ""
	switch {
	case v.IsNull():
	case v.Type() == cty.Number:
		if f := v.AsBigFloat(); f.IsInt() {
			text = f.Text('f', 0)
		} else {
			text = f.Text('g', -1)
		}
	case v.Type() == cty.String:
		text = v.AsString()
	}
	switch text {
	case "4":
		e.IPVersion = IPv4
	case "6":
		e.IPVersion = IPv6
	case "dual":
		e.IPVersion = IPDual
	default:
		shown := text
		if v.IsNull() || (v.Type() != cty.Number && v.Type() != cty.String) {
			shown = "a " + v.Type().FriendlyName()
		} else {
			shown = "\"" + truncate(text, 20) + "\""
		}
		diags = append(diags, errorf(a.Expr.Range(), "Invalid ip_version",
			"ip_version is 4 (the default), 6 (the benchmark runs over IPv6) or \"dual\" (IPv4 and IPv6 both configured, the benchmark over IPv6), not %s.", shown))
	}
	return diags
}

// applyIPVersion puts the experiment's IP version into a cell: the
// benchmark runs over it, and every end's settings say so (guest.Settings
// IPv6), so that an iptables or ipfw loss rule matches the benchmark's
// own packets (ip6tables; ipfw's ip6). netem is the same for both.
func (e *Experiment) applyIPVersion(cs *CellSpec) {
	if e.IPVersion == IPv4 {
		return
	}
	cs.Bench.IPVersion = e.IPVersion
	cs.Server.IPv6, cs.Client.IPv6, cs.Router.IPv6 = true, true, true
}

// hintIPVersion adds to HCL's "Unsupported argument" for ipv6 = … (what
// people write first, and what lab once refused without a word) where the
// setting is.
func hintIPVersion(diags hcl.Diagnostics) {
	for _, d := range diags {
		if d.Summary == "Unsupported argument" && (strings.Contains(d.Detail, `"ipv6"`) || strings.Contains(d.Detail, `"ipv4"`)) {
			d.Detail += ` An experiment's IP version is ip_version = 4, 6 or "dual".`
		}
	}
}
