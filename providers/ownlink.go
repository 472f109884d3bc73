package providers

import (
	"fmt"
	"net/netip"
	"strconv"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
)

// Back ends whose links are isolated switches of their own (vSphere's
// own-switch mode, bhyve's management_switch) log in over a management
// NIC and address the benchmark NICs themselves, from one plan: link
// index i (LinkSpec.Index, recorded as the link's "index" attr) gets
// 198.(18+i/256).(i%256).0/24 of 198.18.0.0/15 (RFC 2544's benchmarking
// range), the server .1 and the client .2. A routed pair's two links
// have two indexes; on each the router takes the address of the end it
// stands in for — the client's on the server's link (Machine.Link), the
// server's on the client's (Link2) — and the ends route the peer's /24
// via it.

// OwnLinkNet is the range of the own-link address plan.
const OwnLinkNet = "198.18.0.0/15"

// OwnLinkAddr is role's address ("server" or "client") on the own link
// with index attr index.
func OwnLinkAddr(index, role string) (string, error) {
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 || i >= 512 {
		return "", fmt.Errorf("link index %q is outside %s's 512 links", index, OwnLinkNet)
	}
	host := map[string]int{"server": 1, "client": 2}[role]
	if host == 0 {
		return "", fmt.Errorf("role %q has no address of its own on a link (a router takes an end's: OwnLinkMachineAddr)", role)
	}
	return fmt.Sprintf("198.%d.%d.%d", 18+i/256, i%256, host), nil
}

// OwnLinkMachineAddr is m's benchmark address on its Link: a router
// stands in for the client on the server's link.
func OwnLinkMachineAddr(m machine.Machine) (string, error) {
	role := m.Role
	if role == "router" {
		role = "client"
	}
	return OwnLinkAddr(m.Link.Attrs["index"], role)
}

// ownLinkSubnet is the /24 of the own link with index attr index.
func ownLinkSubnet(index string) (string, error) {
	a, err := OwnLinkAddr(index, "server")
	if err != nil {
		return "", err
	}
	return netip.PrefixFrom(netip.MustParseAddr(a), 24).Masked().String(), nil
}

// OwnLinkSetup are the commands that address m's benchmark NICs on a
// guest whose NICs are listed in links (guest.NICs.List's output): the
// NIC with mac gets m's address (OwnLinkMachineAddr); on a router the
// NIC with mac2 gets the server's address on Link2 and forwarding goes
// on (guest.NICs.Forward); a routed pair's end gets the route to the
// peer's /24 via the router (guest.NICs.Route). in's endpoint records
// the interfaces and address (Iface, Addr; a router's Iface2 and attr
// addr2); SSH stays on the management address.
func OwnLinkSetup(m machine.Machine, in *machine.Instance, links, mac, mac2 string) ([]guest.Cmd, error) {
	osName := m.Template.OS
	nics := guest.For(osName).NICs
	addr, err := OwnLinkMachineAddr(m)
	if err != nil {
		return nil, err
	}
	iface := nics.ByMAC(links, mac)
	if iface == "" {
		return nil, fmt.Errorf("the benchmark NIC: no interface with MAC %s in the guest (%s)", mac, nics.List)
	}
	cmds := StaticAddress(osName, iface, addr+"/24")
	in.Endpoint.Addr, in.Endpoint.Iface = addr, iface
	switch {
	case m.Role == "router":
		addr2, err := OwnLinkAddr(m.Link2.Attrs["index"], "server")
		if err != nil {
			return nil, fmt.Errorf("the client's link: %w", err)
		}
		iface2 := nics.ByMAC(links, mac2)
		if iface2 == "" {
			return nil, fmt.Errorf("the NIC on the client's link: no interface with MAC %s in the guest (%s)", mac2, nics.List)
		}
		fwd, err := Forward(osName, false)
		if err != nil {
			return nil, err
		}
		in.Endpoint.Iface2 = iface2
		in.Attrs["addr2"] = addr2
		cmds = append(append(cmds, StaticAddress(osName, iface2, addr2+"/24")...), fwd...)
	case m.Routed:
		peer, err := ownLinkSubnet(m.Link2.Attrs["index"])
		if err != nil {
			return nil, fmt.Errorf("the peer's link: %w", err)
		}
		via := "server" // the router's address on the client's link
		if m.Role == "server" {
			via = "client"
		}
		gw, err := OwnLinkAddr(m.Link.Attrs["index"], via)
		if err != nil {
			return nil, err
		}
		route, err := Route(osName, iface, peer, gw)
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, route...)
	}
	return cmds, nil
}
