package local

import (
	"encoding/hex"
	"net/netip"

	"github.com/lab-bench/lab/machine"
)

// linkAddrs6 gives the IPv6 addresses of link number index: ::1 (server
// side) and ::2 (client side) of the index-th /64 of the lab's unique
// local /48 (RFC 4193: fd00::/8 followed by a 40-bit global ID, here
// derived from the owner — lab and workspace — so that two labs or two
// checkouts of one lab never share a prefix). A routed pair's two links
// have two indexes, so two /64s.
func linkAddrs6(o machine.Owner, index int) (server, client string) {
	id, _ := hex.DecodeString(o.Hash(10, "ipv6 ula"))
	var b [16]byte
	b[0] = 0xfd
	copy(b[1:6], id)
	subnet := index % (1 << 16)
	b[6], b[7] = byte(subnet>>8), byte(subnet)
	b[15] = 1
	s := netip.AddrFrom16(b)
	b[15] = 2
	return s.String(), netip.AddrFrom16(b).String()
}

// ipv6Steps are the commands that give a namespace's interface dev the
// IPv6 address addr/64: IPv6 enabled on it (a namespace takes the
// kernel's defaults, but net.core.devconf_inherit_init_net may hand it
// the host's disable_ipv6), and the address added with nodad, so that
// it is usable at once rather than tentative for the second or so of
// duplicate address detection (ip-address(8): "nodad … do not perform
// Duplicate Address Detection") — nothing else is on the veth to clash.
// Everything runs inside the namespace: the host's settings are never
// touched.
func ipv6Steps(ns, dev, addr string) [][]string {
	return [][]string{
		{"ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf." + dev + ".disable_ipv6=0"},
		{"ip", "-n", ns, "-6", "addr", "add", addr + "/64", "dev", dev, "nodad"},
	}
}
