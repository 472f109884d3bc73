package libvirt

import (
	"context"
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestTeamFootprint: two runners pointed at one remote libvirt name its
// host alike whatever their user, port, transport or parameters, never
// with a credential; a libvirt on this host (or over loopback) is this
// machine; a URI without a host part beyond those is an error.
func TestTeamFootprint(t *testing.T) {
	tests := []struct{ uri, want string }{
		{"qemu:///system", providers.ThisMachine},
		{"qemu+ssh://root@127.0.0.1/system", providers.ThisMachine},
		{"qemu+ssh://root@kvm1.example.net/system", "libvirt host kvm1.example.net"},
		{"qemu+ssh://ci:s3cret@KVM1.example.net.:2222/system?keyfile=/home/ci/.ssh/id&no_verify=1", "libvirt host kvm1.example.net"},
		{"qemu+tls://kvm1.example.net/system", "libvirt host kvm1.example.net"},
		{"qemu+ssh://kvm1.example.net/session", "libvirt host kvm1.example.net"},
		{"qemu+ssh://[2001:db8::5]:22/system", "libvirt host 2001:db8::5"},
		{"qemu+ssh://kvm2.example.net/system", "libvirt host kvm2.example.net"},
	}
	for _, tc := range tests {
		p := &Provider{cfg: Config{URI: tc.uri}}
		fp, err := p.TeamFootprint(context.Background(), machine.Instance{Address: "pair.p.server"})
		if err != nil || fp.String() != tc.want {
			t.Errorf("%s: team footprint %q (%v), want %q", tc.uri, fp, err, tc.want)
		}
		if strings.Contains(fp.String(), "s3cret") || strings.Contains(fp.String(), "ci") {
			t.Errorf("%s: team footprint %q carries the user or password", tc.uri, fp)
		}
	}
	p := &Provider{cfg: Config{URI: "qemu+ssh://ci:s3cret@%zz/system"}}
	if _, err := p.TeamFootprint(context.Background(), machine.Instance{}); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("unparsable URI: error %v, want one without the password", err)
	}
}
