package providers

import (
	"context"
	"fmt"

	"github.com/lab-bench/lab/guest"
)

// Back ends that give a guest more than one NIC (a management NIC for
// SSH beside the benchmark NIC) find the benchmark NIC inside the guest by
// its MAC and, where nothing hands out addresses, give it one over SSH.
// How is the guest OS's to say (guest.Driver's NICs).

// FindNIC names the guest's interface with mac, asking the guest the way
// its OS (a template's os) can answer: `ip -o link show` on Linux,
// `ifconfig -a` on FreeBSD (which has no ip).
func FindNIC(ctx context.Context, t guest.Transport, osName, mac string) (string, error) {
	nics := guest.For(osName).NICs
	res, err := t.Run(ctx, nics.List)
	if err != nil {
		return "", fmt.Errorf("find the NIC: %w", err)
	}
	iface := nics.ByMAC(string(res.Stdout), mac)
	if iface == "" {
		return "", fmt.Errorf("no interface with MAC %s in the guest (%s)", mac, nics.List)
	}
	return iface, nil
}

// StaticAddress6 are the commands that give iface the IPv6 address
// prefix (a CIDR) on a guest of osName (guest.NICs.Static6: `ip -6 addr
// add … nodad` on Linux, `ifconfig IF inet6 ADDR prefixlen LEN alias` on
// FreeBSD); nil when the OS has no way registered.
func StaticAddress6(osName, iface, prefix string) []guest.Cmd {
	if f := guest.For(osName).NICs.Static6; f != nil {
		return f(iface, prefix)
	}
	return nil
}

// StaticAddress are the commands that give iface the address prefix (a
// CIDR) as its only IPv4 address and bring it up: iproute2's `ip addr
// flush` / `ip addr add` / `ip link set up` on Linux, ifconfig(8)'s
// `ifconfig IF inet ADDR/LEN up` on FreeBSD (which replaces the first
// address).
func StaticAddress(osName, iface, prefix string) []guest.Cmd {
	return guest.For(osName).NICs.Static(iface, prefix)
}
