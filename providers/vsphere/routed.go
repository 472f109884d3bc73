package vsphere

import (
	"fmt"
	"net/netip"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Routed pairs (pair { via = … }) in own-switch mode: the pair's two links
// are two own switches and port groups (Link makes them like any link,
// each with its own index and so its own /24 of benchNet); the server is
// on the first, the client on the second, and the router VM has a
// benchmark NIC on each besides its management NIC. On each link the
// router takes the address of the end it stands in for — the client's (.2)
// on the server's link, the server's (.1) on the client's — and forwards;
// the ends route the peer's /24 via it. Shared-switch mode has one port
// group for everything and is refused (routedWhy).

// routedWhy says why routed pairs are refused in this configuration; ""
// when they are not.
func (c Config) routedWhy() string {
	if c.linkMode() != OwnSwitch {
		return `Routed pairs need two own switches per pair: set host and link_mode = "own-switch" in the vSphere provider block (shared-switch mode has one port group for every NIC).`
	}
	return ""
}

// linkAddr is a machine's benchmark address on its Link (Machine.Link):
// the router stands in for the client on the server's link.
func linkAddr(m machine.Machine) (string, error) {
	role := m.Role
	if role == "router" {
		role = "client"
	}
	return benchAddr(m.Link.Attrs["index"], role)
}

// benchSubnet is the /24 of an own-switch link.
func benchSubnet(link machine.Instance) (string, error) {
	a, err := benchAddr(link.Attrs["index"], "server")
	if err != nil {
		return "", err
	}
	return netip.PrefixFrom(netip.MustParseAddr(a), 24).Masked().String(), nil
}

// routedNIC is what lab does on a routed pair's machine after its first
// benchmark NIC is addressed (addressBenchNIC), links being the guest's
// NIC listing (guest.NICs.List). The router: its NIC on the client's port
// group found by mac2, given the server's address on that link, and
// forwarding on; in records its interface (Endpoint.Iface2) and address
// (addr2). An end: the route to the peer's /24 via the router's address
// on its own link. Nothing for a direct pair's machine.
func routedNIC(m machine.Machine, in *machine.Instance, iface, links, mac2 string) ([]guest.Cmd, error) {
	switch {
	case m.Role == "router":
		addr2, err := benchAddr(m.Link2.Attrs["index"], "server")
		if err != nil {
			return nil, err
		}
		nics := guest.For(m.Template.OS).NICs
		iface2 := nics.ByMAC(links, mac2)
		if iface2 == "" {
			return nil, fmt.Errorf("no interface with MAC %s (the NIC on port group %s) in the guest (%s)", mac2, m.Link2.Attrs["portgroup"], nics.List)
		}
		fwd, err := providers.Forward(m.Template.OS, false)
		if err != nil {
			return nil, err
		}
		in.Endpoint.Iface2 = iface2
		in.Attrs["addr2"], in.Attrs["bench_mac2"] = addr2, mac2
		return append(providers.StaticAddress(m.Template.OS, iface2, addr2+"/24"), fwd...), nil
	case m.Routed:
		peer, err := benchSubnet(m.Link2)
		if err != nil {
			return nil, fmt.Errorf("the peer's link: %w", err)
		}
		via := "server" // the router's address on the client's link
		if m.Role == "server" {
			via = "client"
		}
		gw, err := benchAddr(m.Link.Attrs["index"], via)
		if err != nil {
			return nil, err
		}
		return providers.Route(m.Template.OS, iface, peer, gw)
	}
	return nil, nil
}
