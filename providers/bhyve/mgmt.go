package bhyve

import (
	"context"
	"fmt"
	"strconv"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// With management_switch set, every guest's first NIC joins that existing
// switch (vm-bhyve) or bridge (raw mode): lab's way in, where the guest's
// address is discovered as without it (arp, dhcp, static). The pairs'
// links are switches lab makes without an uplink, and lab addresses the
// benchmark NICs on them itself over SSH, by the own-link plan
// (providers.OwnLinkSetup: a /24 of 198.18.0.0/15 per link index). This
// is what routed pairs need: the client behind the router has no other way
// in, and an uplink belongs to one bridge only. A router has a benchmark
// NIC on each of its two links.

// benchMAC is the MAC of a VM's benchmark NIC n (1: on Link, 2: a
// router's on Link2) in management-switch mode; the management NIC has
// MAC(vm), which address discovery looks for.
func benchMAC(vm string, n int) string { return MAC(vm + "/" + strconv.Itoa(n)) }

// routedWhy says why routed pairs are refused in this configuration; ""
// when they are not.
func (c Config) routedWhy() string {
	if c.ManagementSwitch == "" {
		return `Routed pairs need a management NIC on every guest beside its links (the client behind the router has no other way in, and an uplink joins one switch only): ` +
			`set management_switch = "<an existing vm-bhyve switch or bridge lab reaches the guests on>" in the bhyve provider block.`
	}
	return ""
}

// vmNIC is one of a VM's NICs: the switch (vm-bhyve) or bridge (raw
// mode) it joins, its MAC and its MTU (0: the switch's).
type vmNIC struct {
	sw, mac string
	mtu     string
}

// vmNICs are m's NICs in slot order: the link's NIC alone, or with
// management_switch the management NIC, the benchmark NIC on Link and a
// router's on Link2. attr is the link attribute naming the switch
// ("switch" in vm-bhyve mode, "bridge" in raw mode).
func (p *Provider) vmNICs(m machine.Machine, vm, attr string) ([]vmNIC, error) {
	sw := func(l machine.Instance) (string, error) {
		s := l.Attrs[attr]
		if s == "" {
			s = l.Attrs["switch"] // an existing switch or bridge named in the provider block
		}
		if s == "" {
			return "", fmt.Errorf("link %s has no %s recorded", l.Address, attr)
		}
		return s, nil
	}
	link, err := sw(m.Link)
	if err != nil {
		return nil, err
	}
	mtu := m.Link.Attrs["mtu"]
	if p.cfg.ManagementSwitch == "" {
		if m.Role == "router" {
			return nil, fmt.Errorf("a router needs management_switch (%s)", p.cfg.routedWhy())
		}
		return []vmNIC{{link, MAC(vm), mtu}}, nil
	}
	nics := []vmNIC{{p.cfg.ManagementSwitch, MAC(vm), ""}, {link, benchMAC(vm, 1), mtu}}
	if m.Role == "router" {
		link2, err := sw(m.Link2)
		if err != nil {
			return nil, err
		}
		nics = append(nics, vmNIC{link2, benchMAC(vm, 2), m.Link2.Attrs["mtu"]})
	}
	return nics, nil
}

// addressBenchNICs (management_switch) logs in over the management NIC
// (the address discovery found), pins the guest's host key, finds the
// benchmark NICs by their MACs and addresses them as the own-link plan
// says (providers.OwnLinkSetup): the endpoint's Addr and Iface become the
// benchmark NIC's, SSH stays on the management address.
func (p *Provider) addressBenchNICs(ctx context.Context, m machine.Machine, in *machine.Instance) error {
	vm := in.Attrs["vm"]
	mac2 := ""
	if m.Role == "router" {
		mac2 = benchMAC(vm, 2)
	}
	in.Attrs["mgmt_addr"], in.Attrs["bench_mac"] = in.Endpoint.SSHHost, benchMAC(vm, 1)
	t, err := p.Connect(ctx, *in)
	if err != nil {
		return fmt.Errorf("ssh to the management address %s: %w", in.Endpoint.SSHHost, err)
	}
	defer t.Close()
	if k, ok := t.(interface{ HostKey() string }); ok && in.Endpoint.SSH.HostKey == "" {
		in.Endpoint.SSH.HostKey = k.HostKey() // pinned at first contact
	}
	list := guest.For(m.Template.OS).NICs.List
	res, err := t.Run(ctx, list)
	if err != nil {
		return fmt.Errorf("find the benchmark NIC: %w", err)
	}
	cmds, err := providers.OwnLinkSetup(m, in, string(res.Stdout), benchMAC(vm, 1), mac2)
	if err != nil {
		return err
	}
	return providers.RunAll(ctx, t, "address the benchmark NICs", cmds)
}
