package plan

import (
	"strings"
	"testing"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestCheckRoutedWhy: a routed pair on a back end without routed pairs is
// refused with RoutedWhy (what to change in the provider block) when the
// back end gives one, and a pointer to the capability table otherwise;
// RoutedWhy never reaches another refusal.
func TestCheckRoutedWhy(t *testing.T) {
	g := &Group{Pair: "fw", ProviderKey: "x", Router: &machine.Machine{}}
	g.Server.NIC.Model = "no-such-nic"
	for _, tt := range []struct {
		caps         providers.Capabilities
		routed, nics string // in the routed refusal; not in the NIC model's
	}{
		{providers.Capabilities{NICModels: []string{"virtio"}, RoutedWhy: "set management = \"lab\"."}, `set management = "lab".`, "management"},
		{providers.Capabilities{NICModels: []string{"virtio"}}, "capability table", "capability table"},
	} {
		diags := CheckCapabilities(&Plan{Groups: []*Group{g}}, nil, func(string) (providers.Capabilities, bool) { return tt.caps, true })
		var routed, nic string
		for _, d := range diags {
			switch d.Summary {
			case "Routed pairs not supported":
				routed = d.Detail
			case "NIC model not supported":
				nic = d.Detail
			}
		}
		if !strings.Contains(routed, tt.routed) || nic == "" || strings.Contains(nic, tt.nics) {
			t.Errorf("caps %+v:\nrouted %q\nnic    %q", tt.caps, routed, nic)
		}
	}
}
