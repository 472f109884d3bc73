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
