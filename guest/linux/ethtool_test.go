package linux

import (
	"os"
	"testing"
)

// TestEthtoolField reads driver and firmware from `ethtool -i` output:
// veth and virtio-net (captured here) report an empty firmware version;
// the third text has the shape of a physical NIC's.
func TestEthtoolField(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tt := range []struct{ name, text, driver, firmware string }{
		{"veth", read("veth-ethtool-i.txt"), "veth", ""},
		{"virtio", read("virtio-ethtool-i.txt"), "virtio_net", ""},
		{"physical", "driver: ixgbe\nversion: 6.1.0\nfirmware-version: 0x800007f6, 1.1853.0\nbus-info: 0000:03:00.0\n", "ixgbe", "0x800007f6, 1.1853.0"},
		{"none", "", "", ""},
	} {
		if d, f := ethtoolField(tt.text, "driver"), ethtoolField(tt.text, "firmware-version"); d != tt.driver || f != tt.firmware {
			t.Errorf("%s: driver %q firmware %q, want %q %q", tt.name, d, f, tt.driver, tt.firmware)
		}
	}
}

// TestParseLinkSpeed reads the Speed line of `ethtool IFACE`: veth's and
// virtio-net's texts were captured here (ethtool 6.1, Linux 6.18: veth
// reports SPEED_10000, this machine's virtio-net SPEED_UNKNOWN);
// vmxnet3-qemu-ethtool.txt is built from the sources, not captured: Linux
// 6.1's vmxnet3_get_link_ksettings (vmxnet3_ethtool.c) lists 1000baseT and
// 10000baseT as supported and reports adapter->link_speed, which QEMU's
// device fixes at 1000 (VMXNET3_LINK_SPEED, hw/net/vmxnet3.c), in
// ethtool's format (netlink/settings.c): the supported 10000 must not be
// taken for the speed.
func TestParseLinkSpeed(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tt := range []struct{ name, text, want string }{
		{"veth", read("veth-ethtool.txt"), "10000Mb/s"},
		{"virtio", read("virtio-ethtool.txt"), "unknown"},
		{"vmxnet3-qemu", read("vmxnet3-qemu-ethtool.txt"), "1000Mb/s"},
		{"no speed line", "Settings for eth0:\n\tLink detected: no\n", ""},
		{"garbled", "\tSpeed: fast\n", "unknown"},
		{"empty", "", ""},
	} {
		if got := parseLinkSpeed(tt.text); got != tt.want {
			t.Errorf("%s: link speed %q, want %q", tt.name, got, tt.want)
		}
	}
}
