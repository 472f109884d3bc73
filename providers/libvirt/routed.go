package libvirt

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Routed pairs (pair { via = … }): the pair's two links are each a lab
// network of its own (Link makes them like any link), the server on the
// first, the client on the second and the router guest on both. The
// router's benchmark NICs get lab's fixed address routerHost on each
// network, outside the networks' DHCP range (.10-.250, networkXML), set
// over SSH on the management NIC; the ends keep their DHCP leases and
// route the peer's /24 via the router's address on their own link.

// routerHost is the router's host number on both of its lab networks.
const routerHost = 2

// Attrs of a routed pair's machines.
const (
	// attrNetwork2 and attrMAC2 are the router's second benchmark NIC, on
	// the client's network; attrStaticAddr2 its address/prefix there.
	attrNetwork2    = "network2"
	attrMAC2        = "mac2"
	attrStaticAddr2 = "static_addr2"
	// attrRouteNet and attrRouteVia are an end's route to the peer's link
	// (its /24) via the router's address on the end's own link.
	attrRouteNet = "route_net"
	attrRouteVia = "route_via"
)

// routedWhy says why routed pairs are refused in this configuration; ""
// when they are not.
func (c Config) routedWhy() string {
	switch {
	case c.Network != "":
		return "Routed pairs need two lab networks: remove network from the libvirt provider block."
	case c.LinkBridge != "" || c.LinkMacvtap != "":
		return "Routed pairs need two lab networks: remove link_bridge/link_macvtap from the libvirt provider block."
	case c.Management == "":
		return `Routed pairs need a management NIC, over which lab sets the router's addresses: set management = "lab" in the libvirt provider block.`
	}
	return ""
}

// linkSubnet is a lab network's /24, as Link recorded it.
func linkSubnet(link machine.Instance) (netip.Prefix, error) {
	sn, err := netip.ParsePrefix(link.Attrs["subnet"])
	if err != nil || !sn.Addr().Is4() || sn.Bits() != 24 || link.Attrs[attrOwned] != "true" {
		return netip.Prefix{}, fmt.Errorf("the link %s is no lab network with a recorded subnet (%q): routed pairs need two (apply again to remake them)",
			link.Address, link.Attrs["subnet"])
	}
	return sn.Masked(), nil
}

// hostAddr is host number n in the /24 sn.
func hostAddr(sn netip.Prefix, n byte) netip.Addr {
	a := sn.Addr().As4()
	a[3] = n
	return netip.AddrFrom4(a)
}

// placeRouted is placeLink's part for a routed pair: the router's second
// NIC and both its addresses, or an end's route to the peer's link. Uses:
// m.Link, m.Link2, m.Role. Produces: network2, mac2, the attrs above.
func (c *creation) placeRouted() error {
	m := c.m
	switch {
	case m.Role == "router":
		sn1, err := linkSubnet(m.Link)
		if err != nil {
			return err
		}
		sn2, err := linkSubnet(m.Link2)
		if err != nil {
			return err
		}
		c.network2, c.mac2 = m.Link2.Attrs[attrNetwork], macFor(m.LabID, m.Name+"\x00link2")
		c.staticAddr = hostAddr(sn1, routerHost).String()
		c.in.Attrs[attrStaticAddr] = c.staticAddr + "/24"
		c.in.Attrs[attrNetwork2], c.in.Attrs[attrMAC2] = c.network2, c.mac2
		c.in.Attrs[attrStaticAddr2] = hostAddr(sn2, routerHost).String() + "/24"
	case m.Routed:
		own, err := linkSubnet(m.Link)
		if err != nil {
			return err
		}
		peer, err := linkSubnet(m.Link2)
		if err != nil {
			return err
		}
		c.in.Attrs[attrRouteNet], c.in.Attrs[attrRouteVia] = peer.String(), hostAddr(own, routerHost).String()
	}
	return nil
}

// routedSetup are the commands that finish a routed pair's guest once SSH
// is up, links being the guest's NIC listing (guest.NICs.List): on the
// router, its second NIC found by MAC (recorded as Endpoint.Iface2 and
// attr addr2), addressed, and forwarding on (guest.NICs.Forward); on an
// end, the route to the peer's link via the router (guest.NICs.Route).
// The router's first NIC is addressed by the caller like a host device's.
// Nothing for any other guest.
func routedSetup(in *machine.Instance, osName, iface, links string) ([]guest.Cmd, error) {
	if net, via := in.Attrs[attrRouteNet], in.Attrs[attrRouteVia]; net != "" {
		return providers.Route(osName, iface, net, via)
	}
	prefix := in.Attrs[attrStaticAddr2]
	if prefix == "" {
		return nil, nil
	}
	nics := guest.For(osName).NICs
	iface2 := nics.ByMAC(links, in.Attrs[attrMAC2])
	if iface2 == "" {
		return nil, fmt.Errorf("no interface with MAC %s (the router's NIC on the client's link) in the guest (%s)", in.Attrs[attrMAC2], nics.List)
	}
	in.Endpoint.Iface2 = iface2
	in.Attrs["addr2"], _, _ = strings.Cut(prefix, "/")
	fwd, err := providers.Forward(osName, false)
	if err != nil {
		return nil, err
	}
	return append(providers.StaticAddress(osName, iface2, prefix), fwd...), nil
}
