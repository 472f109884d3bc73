package linux

import (
	"os"
	"testing"
)

// FuzzObserve feeds the parsers of `ip -j link`, `ethtool -k`, `ethtool
// -i` and `ethtool -g` output arbitrary text, seeded with recorded output: none
// panics, and an MTU is only accepted from a single link.
func FuzzObserve(f *testing.F) {
	for _, p := range []string{"testdata/veth-ip-link.json", "testdata/veth-ethtool-k.txt", "testdata/veth-ethtool-i.txt",
		"testdata/virtio-ethtool-g.txt", "testdata/vmxnet3-ethtool-g.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`[{"mtu":1500},{"mtu":9000}]`)
	f.Add(`[{"mtu":-1}]`)
	f.Fuzz(func(t *testing.T, out string) {
		if mtu, err := parseLinkMTU(out); err == nil && mtu <= 0 {
			t.Fatalf("MTU %d accepted", mtu)
		}
		for name, state := range parseFeatures(out) {
			if name == "" || len(state) > len(out) {
				t.Fatalf("feature %q = %q", name, state)
			}
		}
		_ = ethtoolField(out, "driver")
		if r, err := ParseRings(out); err == nil && (r.RX < 0 || r.TX < 0 || r.RXMax < 0 || r.TXMax < 0) {
			t.Fatalf("negative ring size accepted: %+v", r)
		}
	})
}
