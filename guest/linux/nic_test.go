package linux

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
)

func TestIfaceByMAC(t *testing.T) {
	// Lines as iproute2 6.1 prints them (`ip -o link show` on Debian 12).
	out := "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
		"2: ens192: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether 00:50:56:a1:00:01 brd ff:ff:ff:ff:ff:ff\n" +
		"3: lvb0@if7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000\\    link/ether 00:50:56:A1:00:02 brd ff:ff:ff:ff:ff:ff link-netns x\n"
	tests := []struct{ mac, want string }{
		{"00:50:56:a1:00:01", "ens192"},
		{"00:50:56:a1:00:02", "lvb0"},
		{"00:50:56:a1:00:03", ""},
		{"ff:ff:ff:ff:ff:ff", ""}, // brd, not an address
	}
	for _, tc := range tests {
		if got := IfaceByMAC(out, tc.mac); got != tc.want {
			t.Errorf("IfaceByMAC(%s) = %q, want %q", tc.mac, got, tc.want)
		}
	}
}

// TestStaticAddress6: IPv6 enabled on the interface, its global IPv6
// addresses flushed (the link-local one stays), the address added with
// nodad (ip-address(8)), the link up.
func TestStaticAddress6(t *testing.T) {
	var got []string
	for _, c := range StaticAddress6("enp2s0", "fd12:3456:789a:2::2/64") {
		got = append(got, c.String())
	}
	want := "sysctl -qw net.ipv6.conf.enp2s0.disable_ipv6=0\nip -6 addr flush dev enp2s0 scope global\n" +
		"ip -6 addr add fd12:3456:789a:2::2/64 dev enp2s0 nodad\nip link set dev enp2s0 up"
	if g := strings.Join(got, "\n"); g != want {
		t.Errorf("StaticAddress6:\n%s\nwant\n%s", g, want)
	}
}

// TestForwardAndRoute: forwarding through sysctl (IPv6 only when asked),
// a route replaced through iproute2, ip -6 for an IPv6 prefix.
func TestForwardAndRoute(t *testing.T) {
	tests := []struct {
		name string
		cmds []guest.Cmd
		want []string
	}{
		{"forward", Forward(false), []string{"sysctl -qw net.ipv4.ip_forward=1"}},
		{"forward6", Forward(true), []string{"sysctl -qw net.ipv4.ip_forward=1", "sysctl -qw net.ipv6.conf.all.forwarding=1"}},
		{"route", Route("enp2s0", "198.18.7.0/24", "198.18.3.2"), []string{"ip route replace 198.18.7.0/24 via 198.18.3.2 dev enp2s0"}},
		{"route6", Route("enp2s0", "fd12:3456:789a:3::/64", "fd12:3456:789a:2::2"),
			[]string{"ip -6 route replace fd12:3456:789a:3::/64 via fd12:3456:789a:2::2 dev enp2s0"}},
	}
	for _, tc := range tests {
		var got []string
		for _, c := range tc.cmds {
			got = append(got, c.String())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
