package plan

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/spec"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// offloadToggles are the guest settings that ride on a NIC's offered
// features (gso is software on Linux but still needs the NIC's
// scatter-gather).
var offloadToggles = []string{"lro", "tso", "gro", "gso", "rx", "tx"}

// CheckCapabilities refuses, one diagnostic each, whatever a group of p asks
// of its provider beyond what the provider declares it can do: a router
// guest, a NIC model, queues, host-side or guest offloads, sizing, a link
// MTU. caps gives each provider key's capabilities. Diagnostics point at the
// spec line that asks, when lab is given (a saved plan has no lab: then they
// name the pair).
func CheckCapabilities(p *Plan, lab *spec.Lab, caps func(providerKey string) (providers.Capabilities, bool)) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]bool{}
	add := func(d *hcl.Diagnostic) {
		key := d.Summary + d.Detail
		if d.Subject != nil {
			key += d.Subject.String()
		}
		if !seen[key] {
			seen[key] = true
			diags = append(diags, d)
		}
	}
	checkOneMachine(p, lab, caps, add)
	checkAddressesOneShape(p, lab, add)
	for _, g := range p.Groups {
		c, ok := caps(g.ProviderKey)
		if !ok {
			continue
		}
		var cc providers.Capabilities
		if g.Cross() {
			if cc, ok = caps(g.ClientProviderKey); !ok {
				continue
			}
		}
		var pair *spec.Pair
		if lab != nil {
			pair = lab.Pairs[g.Pair]
		}
		refuse := func(path, summary, format string, args ...any) {
			d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
				Detail: fmt.Sprintf("pair %s, provider %s: ", g.Pair, g.providerNames()) + fmt.Sprintf(format, args...)}
			if c.Why != "" {
				d.Detail += " " + c.Why
			}
			if pair != nil {
				r := pair.RangeOf(path)
				d.Subject = &r
			}
			add(d)
		}
		checkGroupRoles(g, caps, refuse)
		checkGroupAddresses(g, caps, refuse)
		if g.Cross() {
			checkGroupCross(g, c, cc, refuse)
			c = c.Meet(cc)
		}
		checkGroupHardware(g, c, refuse)
		checkGroupCloudInit(g, c, lab, add)
		checkGroupOffloads(g, c, lab, add)
		checkGroupRings(g, c, lab, add)
		checkGroupIPv6(g, c, lab, add)
	}
	return diags
}

// checkGroupRoles refuses a machine whose provider block cannot fill its
// role (a hosts block without a block for it), at the template attribute
// that names it.
func checkGroupRoles(g *Group, caps func(string) (providers.Capabilities, bool), refuse func(path, summary, format string, args ...any)) {
	for _, m := range g.Machines() {
		key := g.ProviderKeyFor(m.Address)
		c, ok := caps(key)
		if !ok || len(c.Roles) == 0 || slices.Contains(c.Roles, m.Role) {
			continue
		}
		path := m.Role
		if m.Role == "router" {
			path = "via"
		}
		refuse(path, "No "+m.Role+" in the provider block",
			"the %s's template comes from provider %s, whose block names no %s machine (it has: %s): add a %s { … } block to it, or use another provider's template.",
			m.Role, key, m.Role, strings.Join(c.Roles, ", "), m.Role)
	}
}

// checkGroupAddresses refuses a spec address (pair addresses) for an end
// whose back end does not take one, and asks for one where a cross pair's
// end is on a back end that addresses its machines itself.
func checkGroupAddresses(g *Group, caps func(string) (providers.Capabilities, bool), refuse func(path, summary, format string, args ...any)) {
	for _, m := range []machine.Machine{g.Server, g.Client} {
		key := g.ProviderKeyFor(m.Address)
		c, ok := caps(key)
		switch {
		case !ok:
		case m.LinkAddress != "" && !c.LinkAddresses:
			refuse("addresses", "Address not taken",
				"the %s's provider %s does not take its machines' benchmark addresses from the pair (they are its own, or its block's): remove addresses.%s.", m.Role, key, m.Role)
		case m.LinkAddress == "" && c.LinkAddresses && g.Cross():
			refuse("addresses", "Missing link address",
				"the %s's provider %s addresses its machines itself, in lab's own plan, which the other end's network does not know: set addresses = { %s = \"<ip>/<prefix>\" } on the pair, a free address of the network the two ends meet on.",
				m.Role, key, m.Role)
		}
	}
}

// checkAddressesOneShape refuses a pair with spec addresses that the plan
// makes in more than one hardware shape: those groups' machines exist at
// once and would share the addresses.
func checkAddressesOneShape(p *Plan, lab *spec.Lab, add func(*hcl.Diagnostic)) {
	groups := map[string][]string{}
	for _, g := range p.Groups {
		if g.Server.LinkAddress != "" || g.Client.LinkAddress != "" {
			groups[g.Pair] = append(groups[g.Pair], g.Address)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		if len(groups[name]) < 2 {
			continue
		}
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Addresses of one shape",
			Detail: fmt.Sprintf("pair %s gives its ends fixed addresses, but the matrix makes it in %d hardware shapes at once (%s), whose machines would share them: vary vcpu and memory in another pair.",
				name, len(groups[name]), strings.Join(groups[name], ", "))}
		if lab != nil {
			if pr := lab.Pairs[name]; pr != nil {
				r := pr.RangeOf("addresses")
				d.Subject = &r
			}
		}
		add(d)
	}
}

// checkGroupCross refuses a cross pair — ends made by two providers —
// unless both back ends put their machines on a network that exists
// beyond them, and refuses what would change that shared network.
func checkGroupCross(g *Group, server, client providers.Capabilities, refuse func(path, summary, format string, args ...any)) {
	for _, e := range []struct {
		role, key string
		c         providers.Capabilities
	}{{"server", g.ProviderKey, server}, {"client", g.ClientProviderKey, client}} {
		if e.c.ExistingNetwork {
			continue
		}
		msg := "the %s's provider %s makes its own network for each pair, which the other end's machine cannot reach: a pair whose ends come from two providers meets on a network that exists beyond both (an existing switch, bridge or NIC)."
		if e.c.Why != "" {
			msg += " " + e.c.Why
		}
		refuse(e.role, "Cross pair needs an existing network", msg, e.role, e.key)
	}
	if g.Link.MTU > 0 {
		refuse("link.mtu", "Link MTU of an existing network",
			"the ends come from two providers and meet on a network lab does not own, whose MTU lab does not change: remove link { mtu = … } (set mtu in the guests' settings; lab checks the path carries it before the first run).")
	}
}

// checkOneMachine refuses a provider block that describes one machine
// (Capabilities.OneMachine) used for more than one of the plan's machines.
func checkOneMachine(p *Plan, lab *spec.Lab, caps func(string) (providers.Capabilities, bool), add func(*hcl.Diagnostic)) {
	users := map[string][]string{}
	var keys []string
	for _, g := range p.Groups {
		for _, m := range g.Machines() {
			key := g.ProviderKeyFor(m.Address)
			if c, ok := caps(key); ok && c.OneMachine {
				if users[key] == nil {
					keys = append(keys, key)
				}
				users[key] = append(users[key], m.Address)
			}
		}
	}
	for _, key := range keys {
		if len(users[key]) < 2 {
			continue
		}
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "One machine, several uses",
			Detail: fmt.Sprintf("provider %s describes one machine at a fixed address, but %d of the plan's machines would come from it (%s): declare a provider block for each, or use the pair in one hardware shape only.",
				key, len(users[key]), strings.Join(users[key], ", "))}
		if lab != nil {
			if pr := lab.Providers[key]; pr != nil {
				r := pr.DeclRange
				d.Subject = &r
			}
		}
		add(d)
	}
}

// providerNames names the group's provider, or both of a cross pair's.
func (g *Group) providerNames() string {
	if g.Cross() {
		return g.ProviderKey + " (server) and " + g.ClientProviderKey + " (client)"
	}
	return g.ProviderKey
}

func checkGroupHardware(g *Group, c providers.Capabilities, refuse func(path, summary, format string, args ...any)) {
	if g.Router != nil && !c.RoutedPairs {
		why := c.RoutedWhy
		if why == "" {
			why = "Use a back end that has them (docs/PROVIDERS.md, the capability table)."
		}
		refuse("via", "Routed pairs not supported", "this back end cannot put a router guest between a pair's ends (via) as configured. %s", why)
	}
	nic := g.Server.NIC
	if !c.AcceptsNICModel(nic.Model) {
		if len(c.NICModels) == 0 {
			refuse("nic.model", "NIC model not supported", "this back end gives its machines a fixed NIC: remove nic { model = %q }.", nic.Model)
		} else {
			refuse("nic.model", "NIC model not supported", "%q is not one of this back end's NIC models (%s).", nic.Model, strings.Join(c.NICModels, ", "))
		}
	}
	checkNICTuning(nic, c, refuse)
	if nic.Queues > 0 && !c.NICQueues {
		refuse("nic.queues", "NIC queues not supported", "this back end cannot set the number of NIC queues.")
	}
	if nic.RXQueueSize > 0 && !c.NICRXQueueSize {
		refuse("nic.rx_queue_size", "NIC ring size not supported", "this back end cannot set the host side's RX ring size (nic { rx_queue_size = … }).")
	}
	if nic.TXQueueSize > 0 && !c.NICTXQueueSize {
		refuse("nic.tx_queue_size", "NIC ring size not supported",
			"this back end cannot set the host side's TX ring size (nic { tx_queue_size = … }): libvirt and QEMU honour tx_queue_size only for vhost-user (and vDPA) interfaces "+
				"(libvirt docs/formatdomain.rst, interface <driver>; QEMU caps it at 256 for every other backend, qemu commit 4271f40), and lab's are tap devices.")
	}
	if len(nic.Host) > 0 && !c.HostOffloads {
		refuse("nic.host", "Host-side offloads not supported", "this back end cannot set host-side NIC offload bits (nic { host = … }).")
	}
	if g.Server.VCPU > 0 && !c.VCPU {
		refuse("vcpu", "vCPU count not supported", "this back end cannot choose a machine's vCPU count: remove vcpu.")
	}
	if g.Server.MemoryMiB > 0 && !c.Memory {
		refuse("memory", "Memory size not supported", "this back end cannot choose a machine's memory: remove memory.")
	}
	if g.Link.MTU > 0 && !c.LinkMTU {
		refuse("link.mtu", "Link MTU not supported", "this back end cannot set the MTU of the network joining the pair (link { mtu = … }); set mtu in the guests' settings instead.")
	}
}

// checkNICTuning refuses, at the line that asks, the NIC settings the
// chosen model does not take on this back end (libvirt: queues, ring sizes
// and host offload bits are virtio's <driver> attributes only; vmxnet3,
// e1000e, e1000 and rtl8139 ignore them).
func checkNICTuning(nic machine.NIC, c providers.Capabilities, refuse func(path, summary, format string, args ...any)) {
	if !c.AcceptsNICModel(nic.Model) || c.TunesNICModel(nic.Model) {
		return
	}
	model := nic.Model
	for _, k := range []struct {
		path string
		set  bool
	}{{"nic.queues", nic.Queues > 0}, {"nic.rx_queue_size", nic.RXQueueSize > 0}, {"nic.tx_queue_size", nic.TXQueueSize > 0}, {"nic.host", len(nic.Host) > 0}} {
		if k.set {
			refuse(k.path, "Setting not taken by this NIC model",
				"nic model %q ignores %s on this back end: only %s takes queues, ring sizes and host offload bits (guest-side settings such as lro, gro, mtu, rx_ring still apply).",
				model, strings.TrimPrefix(k.path, "nic."), strings.Join(c.NICTuningModels, ", "))
		}
	}
}

// checkGroupCloudInit refuses a template's cloud_init {} on a back end
// that cannot seed cloud images, at the block.
func checkGroupCloudInit(g *Group, c providers.Capabilities, lab *spec.Lab, add func(*hcl.Diagnostic)) {
	if c.CloudInit {
		return
	}
	for _, m := range g.Machines() {
		if m.Template.CloudInit == nil {
			continue
		}
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "cloud-init not supported",
			Detail: fmt.Sprintf("template %s, provider %s: this back end cannot seed cloud images: remove cloud_init {} and bake the SSH key into the image.", m.Template.Name, g.ProviderKeyFor(m.Address))}
		if lab != nil {
			if t := lab.Templates[m.Template.Name]; t != nil {
				r := t.CloudInitRange
				d.Subject = &r
			}
		}
		add(d)
	}
}

// checkGroupOffloads refuses guest offload toggles turned on in any run of
// g when the back end cannot honour them; the diagnostic points at the
// experiment and names each end, setting and cell.
func checkGroupOffloads(g *Group, c providers.Capabilities, lab *spec.Lab, add func(*hcl.Diagnostic)) {
	if c.GuestOffloads {
		return
	}
	byExp := map[string][]string{}
	var order []string
	for _, r := range g.Runs {
		for _, side := range []struct {
			role string
			s    guest.Settings
			os   string
		}{{"server", r.Spec.Server, g.Server.Template.OS}, {"client", r.Spec.Client, g.Client.Template.OS}} {
			for _, name := range offloadsOn(side.s) {
				// A toggle the OS implements itself whatever the NIC
				// offers (Linux GRO) takes effect on any NIC.
				if guest.For(side.os).SoftwareOffload(name) {
					continue
				}
				msg := fmt.Sprintf("%s: %s = true", side.role, name)
				if r.CellKey != "" {
					msg += " (cell " + r.CellKey + ")"
				}
				if _, ok := byExp[r.Experiment]; !ok {
					order = append(order, r.Experiment)
				}
				if !slices.Contains(byExp[r.Experiment], msg) {
					byExp[r.Experiment] = append(byExp[r.Experiment], msg)
				}
			}
		}
	}
	for _, exp := range order {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Offload toggles would be silent no-ops",
			Detail: fmt.Sprintf("pair %s, provider %s: this back end's guests cannot change NIC offloads, so these settings would not take effect: %s.",
				g.Pair, g.providerNames(), strings.Join(byExp[exp], "; "))}
		if c.Why != "" {
			d.Detail += " " + c.Why
		}
		if lab != nil {
			for _, e := range lab.Experiments {
				if e.Name == exp {
					r := e.DeclRange
					d.Subject = &r
				}
			}
		}
		add(d)
	}
}

func offloadsOn(s guest.Settings) []string {
	var out []string
	for _, n := range offloadToggles {
		if on, ok := s.Offloads[n]; ok && on {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// checkGroupRings refuses rx_ring/tx_ring in any run of g where they
// cannot take effect: on guests whose OS sizes rings only at boot
// (guest.Limits.RingHint: FreeBSD's are loader tunables, read when the
// driver attaches) and on back ends whose NICs have no ring
// parameters (veth). The diagnostic points at the experiment and names
// each end, setting and cell.
func checkGroupRings(g *Group, c providers.Capabilities, lab *spec.Lab, add func(*hcl.Diagnostic)) {
	type refusal struct{ exp, summary, why string }
	byKey := map[refusal][]string{}
	var order []refusal
	type end struct {
		role string
		s    guest.Settings
		os   string
	}
	for _, r := range g.Runs {
		ends := []end{{"server", r.Spec.Server, g.Server.Template.OS}, {"client", r.Spec.Client, g.Client.Template.OS}}
		if g.Router != nil {
			ends = append(ends, end{"router", r.Spec.Router, g.Router.Template.OS})
		}
		for _, side := range ends {
			if side.s.RxRing == 0 && side.s.TxRing == 0 {
				continue
			}
			var k refusal
			switch d := guest.For(side.os); {
			case d.Limits.RingHint != "":
				k = refusal{r.Experiment, "Ring sizes are boot-time on " + d.Kernel, d.Limits.RingHint + "."}
			case !c.NICRings:
				k = refusal{r.Experiment, "NIC ring sizes not supported",
					"this back end's guest NICs have no ring parameters (a veth pair's `ethtool -g`/`ethtool -G` fail with \"Operation not supported\"), so these settings cannot take effect."}
				if c.Why != "" {
					k.why += " " + c.Why
				}
			default:
				continue
			}
			var parts []string
			if side.s.RxRing > 0 {
				parts = append(parts, fmt.Sprintf("rx_ring = %d", side.s.RxRing))
			}
			if side.s.TxRing > 0 {
				parts = append(parts, fmt.Sprintf("tx_ring = %d", side.s.TxRing))
			}
			msg := side.role + ": " + strings.Join(parts, ", ")
			if r.CellKey != "" {
				msg += " (cell " + r.CellKey + ")"
			}
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
			}
			if !slices.Contains(byKey[k], msg) {
				byKey[k] = append(byKey[k], msg)
			}
		}
	}
	for _, k := range order {
		d := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: k.summary,
			Detail: fmt.Sprintf("pair %s, provider %s: %s: %s", g.Pair, g.providerNames(), strings.Join(byKey[k], "; "), k.why)}
		if lab != nil {
			for _, e := range lab.Experiments {
				if e.Name == k.exp {
					r := e.DeclRange
					d.Subject = &r
				}
			}
		}
		add(d)
	}
}
