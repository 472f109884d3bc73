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

// StaticAddress are the commands that give iface the address prefix (a
// CIDR) as its only IPv4 address and bring it up: iproute2's `ip addr
// flush` / `ip addr add` / `ip link set up` on Linux, ifconfig(8)'s
// `ifconfig IF inet ADDR/LEN up` on FreeBSD (which replaces the first
// address).
func StaticAddress(osName, iface, prefix string) []guest.Cmd {
	return guest.For(osName).NICs.Static(iface, prefix)
}

// Forward are the commands that make a guest of osName forward packets
// between its interfaces (IPv6 too with ipv6): guest.NICs.Forward, `sysctl
// -w net.ipv4.ip_forward=1` on Linux, `sysctl net.inet.ip.forwarding=1` on
// FreeBSD. An error when the OS cannot be a router.
func Forward(osName string, ipv6 bool) ([]guest.Cmd, error) {
	d := guest.For(osName)
	if d.NICs.Forward == nil {
		return nil, fmt.Errorf("lab cannot make a %s guest forward packets (its OS driver has no NICs.Forward)", d.Kernel)
	}
	return d.NICs.Forward(ipv6), nil
}

// Route are the commands that send a guest's traffic to prefix (a CIDR)
// via gw on iface: guest.NICs.Route, `ip route replace` on Linux, `route
// change || route add` on FreeBSD. An error when the OS cannot be given a
// route.
func Route(osName, iface, prefix, gw string) ([]guest.Cmd, error) {
	d := guest.For(osName)
	if d.NICs.Route == nil {
		return nil, fmt.Errorf("lab cannot give a %s guest a route (its OS driver has no NICs.Route)", d.Kernel)
	}
	return d.NICs.Route(iface, prefix, gw), nil
}

// RunAll runs cmds on t in order, the first failure naming what they do.
func RunAll(ctx context.Context, t guest.Transport, what string, cmds []guest.Cmd) error {
	for _, c := range cmds {
		if _, err := t.Run(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
	}
	return nil
}
