package engine

import (
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/internal/results"
)

// TestObservedLinkSpeed: the link speed each end's driver reports reaches
// the record's provenance beside its driver, so QEMU's vmxnet3 (1000Mb/s,
// hw/net/vmxnet3.c VMXNET3_LINK_SPEED) and virtio-net ("unknown": no
// VIRTIO_NET_F_SPEED_DUPLEX speed) are told apart in the records; an end
// whose ethtool could not read it records none.
func TestObservedLinkSpeed(t *testing.T) {
	for _, tt := range []struct {
		name                   string
		server, client         guest.Observed
		wantServer, wantClient string
	}{
		{"vmxnet3", guest.Observed{Driver: "vmxnet3", LinkSpeed: "1000Mb/s"}, guest.Observed{Driver: "vmxnet3", LinkSpeed: "1000Mb/s"}, "1000Mb/s", "1000Mb/s"},
		{"virtio", guest.Observed{Driver: "virtio_net", LinkSpeed: "unknown"}, guest.Observed{Driver: "virtio_net", LinkSpeed: "unknown"}, "unknown", "unknown"},
		{"not read on the client", guest.Observed{LinkSpeed: "10000Mb/s"}, guest.Observed{}, "10000Mb/s", ""},
	} {
		var rec results.Record
		observed(&rec, tt.server, tt.client, nil, end{}, end{})
		if p := rec.Provenance; p.ServerLinkSpeed != tt.wantServer || p.ClientLinkSpeed != tt.wantClient {
			t.Errorf("%s: link speed %q/%q, want %q/%q", tt.name, p.ServerLinkSpeed, p.ClientLinkSpeed, tt.wantServer, tt.wantClient)
		}
		if rec.Observed.Server.LinkSpeed != tt.wantServer {
			t.Errorf("%s: observed server link speed %q, want %q", tt.name, rec.Observed.Server.LinkSpeed, tt.wantServer)
		}
	}
}
