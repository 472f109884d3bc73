package libvirt

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest/guesttest"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// routedLinks are a routed pair's two lab networks as Link records them.
func routedLinks() (server, client machine.Instance) {
	link := func(addr, name, subnet string) machine.Instance {
		return machine.Instance{Address: addr, Provider: TypeName, Kind: "link", Name: name,
			Attrs: map[string]string{attrNetwork: networkName(name), attrOwned: "true", "subnet": subnet,
				attrMgmtNetwork: mgmtNetworkName(name), attrMgmtOwned: "true"}}
	}
	return link("pair.fw.link", "kvm-fw-1a2b3c", "198.18.7.0/24"), link("pair.fw.client_link", "kvm-fw-1a2b3c-c", "198.19.40.0/24")
}

// TestRoutedAddressPlan: the router sits on both lab networks with .2 on
// each (outside the DHCP range), its second NIC on the client's network;
// the server routes the client's /24 via the router's address on the
// server's network and the client the server's via the router's on its
// own. Nothing else gets a static address.
func TestRoutedAddressPlan(t *testing.T) {
	sl, cl := routedLinks()
	p := &Provider{cfg: Config{Pool: "lab", Management: ManagementLab}}
	var out strings.Builder
	for _, m := range []machine.Machine{
		{Address: "pair.fw.server", LabID: "kvm", Role: "server", Name: "kvm-fw-1a2b3c-s", Routed: true, Link: sl, Link2: cl},
		{Address: "pair.fw.client", LabID: "kvm", Role: "client", Name: "kvm-fw-1a2b3c-c", Routed: true, Link: cl, Link2: sl},
		{Address: "pair.fw.router", LabID: "kvm", Role: "router", Name: "kvm-fw-1a2b3c-r", Link: sl, Link2: cl},
	} {
		c := newCreation(p, m)
		for _, step := range []func(context.Context) error{c.placeLink, c.placeManagement} {
			if err := step(context.Background()); err != nil {
				t.Fatalf("%s: %v", m.Role, err)
			}
		}
		fmt.Fprintf(&out, "%s:", m.Role)
		for _, k := range []string{attrNetwork, attrMAC, attrStaticAddr, attrNetwork2, attrMAC2, attrStaticAddr2, attrRouteNet, attrRouteVia, attrMgmtNetwork} {
			if v := c.in.Attrs[k]; v != "" {
				fmt.Fprintf(&out, " %s=%s", k, v)
			}
		}
		out.WriteString("\n")
	}
	golden.Check(t, filepath.Join("testdata", "routed-address-plan.golden"), out.String())
}

// TestRoutedRefusals: a router without a management NIC, or on a link
// that is no lab network (an existing network records no subnet and is
// not lab's), is refused before anything is made.
func TestRoutedRefusals(t *testing.T) {
	sl, cl := routedLinks()
	bare := machine.Instance{Address: sl.Address, Attrs: map[string]string{attrNetwork: sl.Attrs[attrNetwork], attrOwned: "true", "subnet": sl.Attrs["subnet"]}}
	shared := machine.Instance{Address: "pair.fw.link", Attrs: map[string]string{attrNetwork: "default", attrOwned: "false"}}
	tests := []struct {
		name string
		cfg  Config
		m    machine.Machine
		want string
	}{
		{"no management", Config{}, machine.Machine{Address: "pair.fw.router", Role: "router", Link: bare, Link2: cl}, "needs a management NIC"},
		{"shared network", Config{Management: ManagementLab}, machine.Machine{Address: "pair.fw.router", Role: "router", Link: shared, Link2: cl}, "no lab network"},
		{"end, peer unknown", Config{Management: ManagementLab}, machine.Machine{Address: "pair.fw.server", Role: "server", Routed: true, Link: sl}, "no lab network"},
	}
	for _, tc := range tests {
		c := newCreation(&Provider{cfg: tc.cfg}, tc.m)
		err := c.placeLink(context.Background())
		if err == nil {
			err = c.placeManagement(context.Background())
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestRoutedSetup: what lab runs on a routed pair's guests after login,
// per guest OS: the router's second NIC found by MAC, addressed and
// forwarding on; an end's route to the peer's link. The transcript shows
// each command and the recorded second interface.
func TestRoutedSetup(t *testing.T) {
	linux := "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
		"2: enp1s0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\\    link/ether 52:54:00:ab:cd:ef brd ff:ff:ff:ff:ff:ff\n" +
		"3: enp2s0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\\    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff\n" +
		"4: enp3s0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\\    link/ether 52:54:00:65:43:21 brd ff:ff:ff:ff:ff:ff\n"
	// ifconfig -a on FreeBSD 14 (sbin/ifconfig/ifconfig.c status(); the
	// ether line from sbin/ifconfig/af_link.c link_status()).
	freebsd := "vtnet0: flags=1008843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST,LOWER_UP> metric 0 mtu 1500\n\tether 52:54:00:ab:cd:ef\n" +
		"vtnet1: flags=1008843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST,LOWER_UP> metric 0 mtu 1500\n\tether 52:54:00:12:34:56\n" +
		"vtnet2: flags=1008843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST,LOWER_UP> metric 0 mtu 1500\n\tether 52:54:00:65:43:21\n"
	router := map[string]string{attrStaticAddr2: "198.19.40.2/24", attrMAC2: "52:54:00:65:43:21"}
	end := map[string]string{attrRouteNet: "198.19.40.0/24", attrRouteVia: "198.18.7.2"}
	var log strings.Builder
	for _, tc := range []struct {
		name, os, iface, links string
		attrs                  map[string]string
	}{
		{"linux router", "linux", "enp2s0", linux, router},
		{"linux server", "linux", "enp2s0", linux, end},
		{"freebsd router", "freebsd", "vtnet1", freebsd, router},
		{"freebsd server", "freebsd", "vtnet1", freebsd, end},
		{"router without its second NIC", "linux", "enp2s0", linux, map[string]string{attrStaticAddr2: "198.19.40.2/24", attrMAC2: "52:54:00:00:00:09"}},
		{"direct pair's end", "linux", "enp2s0", linux, map[string]string{}},
	} {
		in := &machine.Instance{Address: "pair.fw." + tc.name, Attrs: tc.attrs, Endpoint: &machine.Endpoint{Iface: tc.iface}}
		rec := &guesttest.Recorder{Guest: in.Address}
		cmds, err := routedSetup(in, tc.os, tc.iface, tc.links)
		if err == nil {
			err = providers.RunAll(context.Background(), rec, "routed pair", cmds)
		}
		fmt.Fprintf(&log, "== %s (os %s)\n%s=> iface2 %q addr2 %q, err %v\n", tc.name, tc.os, rec.Log.String(), in.Endpoint.Iface2, in.Attrs["addr2"], err)
	}
	golden.Check(t, filepath.Join("testdata", "routed-setup.golden"), log.String())
}

// TestRoutedCapability: routed pairs need lab's own networks and a
// management NIC; the refusal says which setting to change.
func TestRoutedCapability(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string // "" : routed pairs offered
	}{
		{Config{Management: ManagementLab}, ""},
		{Config{Management: "mgmt"}, ""},
		{Config{}, `set management = "lab"`},
		{Config{Management: ManagementLab, Network: "default"}, "remove network"},
		{Config{Management: ManagementLab, LinkBridge: "br0"}, "remove link_bridge"},
	}
	for _, tc := range tests {
		c := (&Provider{cfg: tc.cfg}).Capabilities()
		if c.RoutedPairs != (tc.want == "") || !strings.Contains(c.RoutedWhy, tc.want) || (tc.want == "") != (c.RoutedWhy == "") {
			t.Errorf("%+v: RoutedPairs %v, RoutedWhy %q; want %q", tc.cfg, c.RoutedPairs, c.RoutedWhy, tc.want)
		}
	}
}
