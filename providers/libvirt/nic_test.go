package libvirt

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/guesttest"
	"github.com/lab-bench/lab/internal/golden"
)

// TestNICByMAC finds the benchmark NIC the way each guest OS lists its
// interfaces: a Linux guest with ip, a FreeBSD guest (which has no ip)
// with ifconfig -a. The transcript shows the command each was sent.
func TestNICByMAC(t *testing.T) {
	const mac = "52:54:00:4a:1c:07"
	linux := "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
		"2: enp1s0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\\    link/ether 52:54:00:4a:1c:07 brd ff:ff:ff:ff:ff:ff\n"
	// ifconfig -a on FreeBSD 14 (sbin/ifconfig/ifconfig.c status(); the
	// ether line from sbin/ifconfig/af_link.c link_status()).
	freebsd := "vtnet0: flags=1008843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST,LOWER_UP> metric 0 mtu 1500\n" +
		"\toptions=4c07bb<RXCSUM,TXCSUM,VLAN_MTU,VLAN_HWTAGGING,JUMBO_MTU,VLAN_HWCSUM,TSO4,TSO6,LRO,VLAN_HWTSO,LINKSTATE,TXCSUM_IPV6>\n" +
		"\tether 52:54:00:4a:1c:07\n" +
		"\tinet 192.168.122.57 netmask 0xffffff00 broadcast 192.168.122.255\n" +
		"lo0: flags=1008049<UP,LOOPBACK,RUNNING,MULTICAST,LOWER_UP> metric 0 mtu 16384\n" +
		"\tinet 127.0.0.1 netmask 0xff000000\n"
	cases := []struct {
		name, os, mac string
		replies       map[string]guesttest.Reply
	}{
		{"linux", "linux", mac, map[string]guesttest.Reply{"ip -o link show": {Out: linux}}},
		{"freebsd", "freebsd", mac, map[string]guesttest.Reply{"ifconfig -a": {Out: freebsd}}},
		{"freebsd-no-such-mac", "freebsd", "52:54:00:00:00:09", map[string]guesttest.Reply{"ifconfig -a": {Out: freebsd}}},
	}
	var log string
	for _, c := range cases {
		rec := &guesttest.Recorder{Guest: "pair.fbsd.server", Replies: c.replies}
		iface, err := findNIC(context.Background(), rec, c.os, c.mac)
		log += fmt.Sprintf("== %s (os %s, mac %s)\n%s=> iface %q, err %v\n", c.name, c.os, c.mac, rec.Log.String(), iface, err)
	}
	golden.Check(t, filepath.Join("testdata", "nic-by-mac.golden"), log)
}

// findNIC lists the guest's NICs and picks the one with mac, as Connect
// does (guest.For(os).NICs: the OS says how to list them and read one's
// MAC).
func findNIC(ctx context.Context, t guest.Transport, osName, mac string) (string, error) {
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
