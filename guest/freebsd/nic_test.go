package freebsd_test

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/freebsd"
)

// ifconfigA is `ifconfig -a` on a FreeBSD 14 guest under KVM with a
// virtio NIC: interfaces in the order the kernel attached them, each a
// header line (sbin/ifconfig/ifconfig.c status()) and tab-indented detail;
// the ether line comes from sbin/ifconfig/af_link.c link_status().
const ifconfigA = "vtnet0: flags=1008843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST,LOWER_UP> metric 0 mtu 1500\n" +
	"\toptions=4c07bb<RXCSUM,TXCSUM,VLAN_MTU,VLAN_HWTAGGING,JUMBO_MTU,VLAN_HWCSUM,TSO4,TSO6,LRO,VLAN_HWTSO,LINKSTATE,TXCSUM_IPV6>\n" +
	"\tether 52:54:00:4a:1c:07\n" +
	"\tinet 192.168.122.57 netmask 0xffffff00 broadcast 192.168.122.255\n" +
	"\tmedia: Ethernet autoselect (10Gbase-T <full-duplex>)\n" +
	"\tstatus: active\n" +
	"\tnd6 options=29<PERFORMNUD,IFDISABLED,AUTO_LINKLOCAL>\n" +
	"lo0: flags=1008049<UP,LOOPBACK,RUNNING,MULTICAST,LOWER_UP> metric 0 mtu 16384\n" +
	"\toptions=680003<RXCSUM,TXCSUM,LINKSTATE,RXCSUM_IPV6,TXCSUM_IPV6>\n" +
	"\tinet 127.0.0.1 netmask 0xff000000\n" +
	"\tgroups: lo\n" +
	"\tnd6 options=21<PERFORMNUD,AUTO_LINKLOCAL>\n"

func TestIfaceByMAC(t *testing.T) {
	for _, c := range []struct {
		name, out, mac, want string
	}{
		{"kvm-vtnet0", ifconfigA, "52:54:00:4a:1c:07", "vtnet0"},
		{"upper-case-mac", ifconfigA, "52:54:00:4A:1C:07", "vtnet0"},
		{"absent", ifconfigA, "52:54:00:00:00:01", ""},
		{"bhyve-tap-vtnet0", testdata(t, "ifconfig-m-vtnet0-tap.txt"), "58:9c:fc:0e:8c:fb", "vtnet0"},
		{"empty", "", "52:54:00:4a:1c:07", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := freebsd.IfaceByMAC(c.out, c.mac); got != c.want {
				t.Errorf("IfaceByMAC(%s) = %q, want %q", c.mac, got, c.want)
			}
		})
	}
}

// TestStaticAddress6: IPv6 enabled on the interface, no duplicate address
// detection, the address added as an alias (ifconfig(8)), the link up.
func TestStaticAddress6(t *testing.T) {
	var got []string
	for _, c := range freebsd.StaticAddress6("vtnet1", "fd12:3456:789a:2::1/64") {
		got = append(got, c.String())
	}
	want := []string{
		"ifconfig vtnet1 inet6 -ifdisabled",
		"ifconfig vtnet1 inet6 no_dad",
		"ifconfig vtnet1 inet6 fd12:3456:789a:2::1 prefixlen 64 alias",
		"ifconfig vtnet1 up",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("StaticAddress6:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestForwardAndRoute: forwarding through sysctl(8) (IPv6 only when
// asked), a route changed or else added through route(8), -inet6 for an
// IPv6 prefix.
func TestForwardAndRoute(t *testing.T) {
	tests := []struct {
		name string
		cmds []guest.Cmd
		want []string
	}{
		{"forward", freebsd.Forward(false), []string{"sysctl -q net.inet.ip.forwarding=1"}},
		{"forward6", freebsd.Forward(true), []string{"sysctl -q net.inet.ip.forwarding=1", "sysctl -q net.inet6.ip6.forwarding=1"}},
		{"route", freebsd.Route("vtnet1", "198.18.7.0/24", "198.18.3.2"),
			[]string{"sh -c 'route -nq change -net 198.18.7.0/24 198.18.3.2 || route -nq add -net 198.18.7.0/24 198.18.3.2'"}},
		{"route6", freebsd.Route("vtnet1", "fd12:3456:789a:3::/64", "fd12:3456:789a:2::2"),
			[]string{"sh -c 'route -nq change -inet6 -net fd12:3456:789a:3::/64 fd12:3456:789a:2::2 || route -nq add -inet6 -net fd12:3456:789a:3::/64 fd12:3456:789a:2::2'"}},
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
