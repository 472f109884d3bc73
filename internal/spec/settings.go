package spec

import (
	"errors"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"maps"
	"slices"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
)

// endState is one end's settings while a cell is evaluated. Loss is kept
// apart so that loss and loss_method can come from different blocks.
type endState struct {
	s          guest.Settings
	lossSet    bool
	lossPct    float64
	lossMethod string
	lossPort   int
	// fwLanguage is the language s.Firewall was checked in ("" when the
	// end has no template: the guest block on a pair without via).
	fwLanguage string
}

// endSetter applies one guest/server/client attribute's value to an end.
type endSetter func(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic

// offloadNames are the guest offload toggles (Settings.Offloads keys).
var offloadNames = []string{"lro", "gro", "gso", "tso", "rx", "tx"}

// settingsAttrs are the attributes of guest, server and client blocks.
var settingsAttrs = func() map[string]endSetter {
	m := map[string]endSetter{
		"mtu":                setMTU,
		"congestion_control": setCC,
		"sysctl":             setSysctl,
		"loss":               setLoss,
		"loss_method":        setLossMethod,
		"loss_port":          setLossPort,
		"strict":             setStrict,
		"firewall":           setFirewall,
		"rx_ring":            setRing("rx_ring", func(s *guest.Settings, n int) { s.RxRing = n }),
		"tx_ring":            setRing("tx_ring", func(s *guest.Settings, n int) { s.TxRing = n }),
	}
	for _, n := range offloadNames {
		m[n] = setOffload(n)
	}
	return m
}()

// settingsSchema is built from settingsAttrs.
var settingsSchema = func() *hcl.BodySchema {
	s := &hcl.BodySchema{}
	for _, n := range slices.Sorted(maps.Keys(settingsAttrs)) {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: n})
	}
	return s
}()

func setMTU(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	n, d := toInt(v, a.Expr.Range(), "mtu", minMTU, maxMTU)
	if d == nil {
		e.s.MTU = n
	}
	return d
}

// Ring size bounds (descriptors). A NIC's own maximum is lower (vmxnet3
// 4096, virtio-net what the hypervisor offers); the guest driver checks it.
const (
	minRing = 1
	maxRing = 65536
)

// setRing sets a NIC ring size (rx_ring, tx_ring).
func setRing(name string, set func(*guest.Settings, int)) endSetter {
	return func(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		n, d := toInt(v, a.Expr.Range(), name, minRing, maxRing)
		if d == nil {
			set(&e.s, n)
		}
		return d
	}
}

func setOffload(name string) endSetter {
	return func(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
		on, d := toBool(v, a.Expr.Range(), name)
		if d != nil {
			return d
		}
		if e.s.Offloads == nil {
			e.s.Offloads = map[string]bool{}
		}
		e.s.Offloads[name] = on
		return nil
	}
}

// checkCC validates a congestion control algorithm name, by the rule
// the benchmark blocks' congestion_control follows too.
var checkCC = bench.CheckCongestionControl

func setCC(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	s, d := toString(v, a.Expr.Range(), a.Name)
	if d == nil {
		d = checkCC(s, a.Expr.Range())
	}
	if d == nil {
		e.s.CongestionControl = s
	}
	return d
}

// setSysctl merges a map of sysctl name = value into the end's sysctls
// (numbers and bools are written as strings).
func setSysctl(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	rng := a.Expr.Range()
	ty := v.Type()
	if !v.IsWhollyKnown() {
		return nil
	}
	if v.IsNull() || !(ty.IsObjectType() || ty.IsMapType()) {
		return typeErr(rng, "sysctl", "map of string", v)
	}
	for it := v.ElementIterator(); it.Next(); {
		k, ev := it.Element()
		key := k.AsString()
		if err := guest.CheckSysctlName(key); err != nil {
			return errorf(rng, "Invalid sysctl name", "%q is not a sysctl name: %s.", truncate(key, 60), err)
		}
		s, d := toString(ev, rng, "sysctl "+key)
		if d != nil {
			return d
		}
		if err := guest.CheckSysctlValue(s); err != nil {
			return errorf(rng, "Invalid sysctl value", "The value %q of sysctl %s is not allowed: %s.", truncate(s, 60), key, err)
		}
		if e.s.Sysctl == nil {
			e.s.Sysctl = map[string]string{}
		}
		e.s.Sysctl[key] = s
	}
	return nil
}

// namespacedSysctl reports whether a sysctl belongs to a network namespace
// (net.*), so that setting it in one leaves the host's own value alone.
func namespacedSysctl(key string) bool {
	return strings.HasPrefix(strings.ReplaceAll(key, "/", "."), "net.")
}

// checkHostSysctls refuses, for guests that share this host's kernel (the
// local provider's network namespaces), any sysctl outside net.*: it would
// change the host's own value.
func checkHostSysctls(v cty.Value, rng hcl.Range) *hcl.Diagnostic {
	if !v.IsWhollyKnown() || v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil
	}
	for it := v.ElementIterator(); it.Next(); {
		k, _ := it.Element()
		if key := k.AsString(); !namespacedSysctl(key) {
			return errorf(rng, "Sysctl not namespaced",
				"%q is not a net.* sysctl: the local provider's guests are network namespaces of this host, so setting it would change the host's own value. Only net.* sysctls may be set on them.",
				truncate(key, 60))
		}
	}
	return nil
}

// checkOSSysctls refuses, for the ends of a template of os, a sysctl name
// its driver would refuse at apply (guest.Limits.SysctlName: FreeBSD's).
func checkOSSysctls(v cty.Value, rng hcl.Range, os guest.Driver) *hcl.Diagnostic {
	if !v.IsWhollyKnown() || v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return nil
	}
	for it := v.ElementIterator(); it.Next(); {
		k, _ := it.Element()
		if err := os.Limits.SysctlName(k.AsString()); err != nil {
			return errorf(rng, "Invalid sysctl name", "%q, set on a %s guest: %s.", truncate(k.AsString(), 60), os.Kernel, err)
		}
	}
	return nil
}

func setLoss(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	pct, d := parsePercent(v, a.Expr.Range(), "loss")
	if d == nil {
		e.lossSet, e.lossPct = true, pct
	}
	return d
}

func setLossMethod(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	s, d := toString(v, a.Expr.Range(), a.Name)
	if d != nil {
		return d
	}
	switch s {
	case "nth", "random", "netem":
		e.lossMethod = s
		return nil
	}
	return errorf(a.Expr.Range(), "Invalid loss method", `loss_method must be "nth", "random" or "netem", got %q.`, truncate(s, 40))
}

// setLossPort limits the loss to TCP packets to one destination port
// (seed 003: iptables -p tcp --dport 5001).
func setLossPort(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	n, d := toInt(v, a.Expr.Range(), a.Name, 1, 65535)
	if d == nil {
		e.lossPort = n
	}
	return d
}

func setStrict(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	b, d := toBool(v, a.Expr.Range(), a.Name)
	if d == nil {
		e.s.Strict = b
	}
	return d
}

// firewallLanguage is the language of a firewall attribute on an end
// whose OS lab cannot tell (a router block of a pair without via): an
// nftables ruleset body, the default OS's. spec asks the registry for the
// firewall that reads it (the Linux driver's), never for an OS.
const firewallLanguage = "nftables"

// setFirewall takes a firewall value for an end whose templates' OSes
// lab cannot tell: the default OS's language (firewallLanguage).
func setFirewall(e *endState, v cty.Value, a *hcl.Attribute) *hcl.Diagnostic {
	return setFirewallFor(e, v, a, nil)
}

// setFirewallFor takes the firewall value of an end whose templates run
// oses: in their firewall's language (an nftables ruleset body on Linux,
// a pf preset or pf.conf body on FreeBSD; none given: firewallLanguage).
// It reaches the guest on stdin or as a file, never through a shell; the
// check the driver makes before apply (guest.Firewall.Check) refuses it
// here first, at the offending character when it is written literally.
// Ends of different OSes reading different languages cannot share one
// value other than "" (no firewall).
func setFirewallFor(e *endState, v cty.Value, a *hcl.Attribute, oses []guest.Driver) *hcl.Diagnostic {
	s, d := toString(v, a.Expr.Range(), a.Name)
	if d != nil || s == "" { // "": no firewall, in any language
		if d == nil {
			e.s.Firewall, e.fwLanguage = "", ""
		}
		return d
	}
	fw, d := endFirewall(a, oses)
	if d != nil {
		return d
	}
	var re *guest.RulesetError
	if err := fw.Check(s); errors.As(err, &re) {
		hint := fw.Hint
		if hint == "" {
			hint = "A ruleset is the body of lab's table inet " + fw.Table + ": chains, sets and rules only."
		}
		return errorf(rulesetRange(a.Expr, s, re.Offset), "Invalid firewall ruleset",
			"%s (line %d, column %d of the ruleset). %s", re.Msg, re.Line, re.Column, hint)
	}
	e.s.Firewall, e.fwLanguage = s, fw.Language
	return nil
}

// endFirewall is the one firewall the OSes of an end's templates share
// (the default language's when oses is empty).
func endFirewall(a *hcl.Attribute, oses []guest.Driver) (guest.Firewall, *hcl.Diagnostic) {
	if len(oses) == 0 {
		fw, ok := guest.FirewallFor(firewallLanguage)
		if !ok {
			return fw, errorf(a.Expr.Range(), "No firewall", "No guest OS lab knows loads %s rulesets.", firewallLanguage)
		}
		return fw, nil
	}
	fw := oses[0].Firewall
	for _, o := range oses {
		if o.Firewall.Language == "" {
			return fw, errorf(a.Expr.Range(), "No firewall", "%s guests have no packet filter lab loads rulesets into.", o.Kernel)
		}
		if o.Firewall.Language != fw.Language {
			return fw, errorf(a.Expr.Range(), "Firewall for different packet filters",
				"This firewall value is set on ends whose templates run %s (%s) and %s (%s), whose packet filters read different languages: set it in the server, client or router block of an experiment whose pairs' ends share an OS.",
				oses[0].Kernel, fw.Language, o.Kernel, o.Firewall.Language)
		}
	}
	return fw, nil
}

// rulesetRange points at byte off of a ruleset written literally in expr
// (a heredoc or a string without escapes); otherwise at the expression.
func rulesetRange(expr hcl.Expression, body string, off int) hcl.Range {
	rng := expr.Range()
	te, ok := expr.(*hclsyntax.TemplateExpr)
	if !ok {
		return rng
	}
	start := 0 // of the current part in body
	for _, p := range te.Parts {
		lit, ok := p.(*hclsyntax.LiteralValueExpr)
		if !ok || lit.Val.Type() != cty.String || !lit.Val.IsKnown() || lit.Val.IsNull() {
			return rng
		}
		text := lit.Val.AsString()
		pr := lit.Range()
		if start+len(text) > len(body) || body[start:start+len(text)] != text || pr.End.Byte-pr.Start.Byte != len(text) {
			return rng // escapes or indentation: offsets in the file differ
		}
		if off < start+len(text) {
			pos := pr.Start
			for _, r := range text[:off-start] {
				pos.Byte += len(string(r))
				if r == '\n' {
					pos.Line, pos.Column = pos.Line+1, 1
				} else {
					pos.Column++
				}
			}
			end := pos
			end.Byte, end.Column = end.Byte+1, end.Column+1
			return hcl.Range{Filename: pr.Filename, Start: pos, End: end}
		}
		start += len(text)
	}
	return rng
}

// finish turns the end's state into guest.Settings.
func (e *endState) finish() guest.Settings {
	s := e.s
	if e.lossSet {
		m := e.lossMethod
		if m == "" {
			m = "nth"
		}
		s.Loss = &guest.Loss{Percent: e.lossPct, Method: m, Port: e.lossPort}
	}
	return s
}
