package plan

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestCheckNICModelTuning: on a back end where only some NIC models take
// queues, ring sizes and host offload bits (libvirt: virtio's <driver>
// element), the plan refuses them for another model at the line that
// asks, naming the model and what it ignores; guest-side settings stay
// allowed. Before, libvirt refused them only when it built the domain XML,
// after the plan had said yes.
func TestCheckNICModelTuning(t *testing.T) {
	libvirt := providers.Capabilities{NICModels: []string{"virtio", "e1000", "e1000e", "rtl8139", "vmxnet3"}, NICTuningModels: []string{"virtio"},
		NICQueues: true, NICRXQueueSize: true, HostOffloads: true}
	for _, tt := range []struct {
		name string
		nic  machine.NIC
		want []string // substrings of the one error; none: no error
	}{
		{"vmxnet3 plain", machine.NIC{Model: "vmxnet3"}, nil},
		{"virtio queues", machine.NIC{Model: "virtio", Queues: 2, RXQueueSize: 1024, Host: map[string]bool{"tso4": false}}, nil},
		{"default model queues", machine.NIC{Queues: 2}, nil},
		{"vmxnet3 queues", machine.NIC{Model: "vmxnet3", Queues: 2}, []string{`nic model "vmxnet3" ignores queues`, "only virtio"}},
		{"vmxnet3 rx ring", machine.NIC{Model: "vmxnet3", RXQueueSize: 1024}, []string{"ignores rx_queue_size"}},
		{"e1000e host offloads", machine.NIC{Model: "e1000e", Host: map[string]bool{"csum": false}}, []string{`"e1000e" ignores host`}},
	} {
		g := &Group{Pair: "p", ProviderKey: "libvirt.host"}
		g.Server.NIC, g.Client.NIC = tt.nic, tt.nic
		diags := CheckCapabilities(&Plan{Groups: []*Group{g}}, nil, func(string) (providers.Capabilities, bool) { return libvirt, true })
		if len(tt.want) == 0 {
			if diags.HasErrors() {
				t.Errorf("%s: %v", tt.name, diags)
			}
			continue
		}
		if len(diags) != 1 {
			t.Errorf("%s: got %v, want one error", tt.name, diags)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(diags.Error(), w) {
				t.Errorf("%s: %v does not say %q", tt.name, diags, w)
			}
		}
	}
	// A cross pair's ends meet: a model both tune stays tunable.
	m := libvirt.Meet(providers.Capabilities{NICModels: []string{"virtio", "vmxnet3"}, NICQueues: true})
	if !m.TunesNICModel("virtio") || m.TunesNICModel("vmxnet3") {
		t.Errorf("met: %+v", m)
	}
}
