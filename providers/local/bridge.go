package local

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"regexp"
	"strconv"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// A local block with bridge and address makes one machine on a network
// that exists already: a namespace whose eth0 is one end of a veth pair
// whose other end lab adds as a port to the named Linux bridge of this
// host. That machine can be one end of a cross pair — the other end a
// hosts machine, a VM of another back end on the same bridge, or another
// bridged local block. lab adds and removes only its own port (tagged like
// every veth of lab's); the bridge, its addresses and its MTU stay as they
// are: the port takes the bridge's MTU, so it never lowers it.

// bridgeRE is a Linux interface name (IFNAMSIZ 16 with the NUL).
var bridgeRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$`)

// checkBridge checks bridge and address: both or neither, a plausible
// interface name and an IPv4 CIDR.
func checkBridge(cd *providers.ConfigDiags, bridge, address string) {
	switch {
	case bridge == "" && address == "":
		return
	case bridge == "":
		cd.Errorf("address", "Missing bridge", "address is the machine's address on an existing bridge: set bridge = \"<name>\" too.")
		return
	case address == "":
		cd.Errorf("bridge", "Missing address", "A machine on an existing bridge needs its address there: set address = \"<ip>/<prefix>\" (a free address of the bridge's network).")
		return
	}
	if !bridgeRE.MatchString(bridge) {
		cd.Errorf("bridge", "Invalid bridge", "bridge must be a Linux interface name (letters, digits, _ . -; at most 15), got %q.", bridge)
	}
	if p, err := netip.ParsePrefix(address); err != nil || !p.Addr().Is4() || p.Bits() < 8 || p.Bits() > 30 {
		cd.Errorf("address", "Invalid address", "address must be an IPv4 address with its prefix length (8 to 30), as \"198.18.250.10/24\"; got %q.", address)
	}
}

// bridged reports whether the block puts its machine on an existing bridge.
func (p *Provider) bridged() bool { return p.Bridge != "" }

// bridgeLink is Link for a bridged block: one veth pair, its near end
// (server_if) for the namespace, its far end (client_if) a port of the
// bridge, brought up in the bridge's MTU.
func (p *Provider) bridgeLink(ctx context.Context, l providers.LinkSpec, in machine.Instance) (machine.Instance, error) {
	mtu, err := p.bridgeMTU(ctx)
	if err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: %w", l.Address, err)
	}
	port := in.Attrs["client_if"]
	for _, argv := range [][]string{
		{"ip", "link", "set", "dev", port, "mtu", strconv.Itoa(mtu)},
		{"ip", "link", "set", "dev", port, "master", p.Bridge},
		{"ip", "link", "set", "dev", port, "up"},
	} {
		if _, err := p.exec(ctx, argv...); err != nil {
			_ = p.Delete(context.WithoutCancel(ctx), in)
			return machine.Instance{}, fmt.Errorf("link %s: add port %s to bridge %s: %w", l.Address, port, p.Bridge, err)
		}
	}
	prefix := netip.MustParsePrefix(p.Address)
	in.Attrs["bridge"], in.Attrs["ns_if"] = p.Bridge, in.Attrs["server_if"]
	in.Attrs["addr"], in.Attrs["prefix"] = prefix.Addr().String(), strconv.Itoa(prefix.Bits())
	return in, nil
}

// bridgeMTU is the bridge's MTU; it fails, naming the bridge, when there
// is no such device or it is not a bridge.
func (p *Provider) bridgeMTU(ctx context.Context) (int, error) {
	out, err := p.exec(ctx, "ip", "-j", "-d", "link", "show", "dev", p.Bridge)
	if err != nil {
		return 0, fmt.Errorf("bridge %s (the provider block's bridge): %w", p.Bridge, err)
	}
	// ip -j -d link show: [{"ifname":…,"mtu":1500,"linkinfo":{"info_kind":"bridge",…}}]
	// (iproute2 ip/ipaddress.c print_linkinfo).
	var links []struct {
		MTU      int `json:"mtu"`
		LinkInfo struct {
			Kind string `json:"info_kind"`
		} `json:"linkinfo"`
	}
	if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
		return 0, fmt.Errorf("bridge %s: cannot read `ip -j -d link show dev %s`: %v", p.Bridge, p.Bridge, err)
	}
	if links[0].LinkInfo.Kind != "bridge" {
		return 0, fmt.Errorf("%s is not a bridge (it is %q): bridge must name an existing Linux bridge", p.Bridge, links[0].LinkInfo.Kind)
	}
	return links[0].MTU, nil
}
