package plan

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestCheckQueueSizes: nic { rx_queue_size, tx_queue_size } pass only on
// a back end that declares it can set them; the TX refusal says why
// libvirt cannot (vhost-user only).
func TestCheckQueueSizes(t *testing.T) {
	for _, tt := range []struct {
		name   string
		nic    machine.NIC
		caps   providers.Capabilities
		want   string // "": no error
		reason string
	}{
		{"rx on libvirt", machine.NIC{RXQueueSize: 1024}, providers.Capabilities{NICRXQueueSize: true}, "", ""},
		{"rx on veth", machine.NIC{RXQueueSize: 512}, providers.Capabilities{}, "NIC ring size not supported", "RX ring size"},
		{"tx on libvirt", machine.NIC{TXQueueSize: 512}, providers.Capabilities{NICRXQueueSize: true}, "NIC ring size not supported", "only for vhost-user"},
		{"tx where declared", machine.NIC{TXQueueSize: 512}, providers.Capabilities{NICTXQueueSize: true}, "", ""},
	} {
		g := &Group{Pair: "p", ProviderKey: "x"}
		g.Server.NIC, g.Client.NIC = tt.nic, tt.nic
		diags := CheckCapabilities(&Plan{Groups: []*Group{g}}, nil, func(string) (providers.Capabilities, bool) { return tt.caps, true })
		if tt.want == "" {
			if diags.HasErrors() {
				t.Errorf("%s: %v", tt.name, diags)
			}
			continue
		}
		if len(diags) != 1 || !strings.Contains(diags.Error(), tt.want) || !strings.Contains(diags.Error(), tt.reason) {
			t.Errorf("%s: got %v, want one %q naming %q", tt.name, diags, tt.want, tt.reason)
		}
	}
}
