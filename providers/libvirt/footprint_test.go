package libvirt

import (
	"context"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestFootprint: domains of a libvirt on this host load this machine (as
// the local back end's namespaces do); a remote libvirt, known only by a
// name, is everything.
func TestFootprint(t *testing.T) {
	tests := []struct{ uri, want string }{
		{"qemu:///system", providers.ThisMachine},
		{"qemu://localhost/system", providers.ThisMachine},
		{"qemu+ssh://root@kvm1.example.net/system", "everything"},
	}
	for _, tc := range tests {
		p := &Provider{cfg: Config{URI: tc.uri}}
		fp, err := p.Footprint(context.Background(), machine.Instance{Address: "pair.p.server"})
		if err != nil || fp.String() != tc.want {
			t.Errorf("%s: footprint %q (%v), want %q", tc.uri, fp, err, tc.want)
		}
	}
}
