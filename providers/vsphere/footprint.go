package vsphere

import (
	"context"
	"fmt"
	"net/url"

	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Footprint is the ESXi host a VM runs on ("vsphere host
// vc.example.com/host-21": the vCenter, since a host's moref is unique
// only within one), when lab can prove the VM's benchmark traffic loads
// nothing else, and the zero Footprint (everything) otherwise:
//
//   - Own-switch mode (which needs a pinned host) joins a pair through a
//     vSwitch with no uplink on that host: nothing past the host.
//   - Shared-switch mode puts the traffic on the network's switch, whose
//     uplinks (or DVS) reach every host on it: everything.
//   - The host is the one recorded at create (Attrs["host"], runtime.host)
//     and read again now: a VM that is on another host, or whose host
//     vCenter does not say, is everything.
//
// It reads one property of the VM (the engine asks again before each run
// that could overlap another).
func (p *Provider) Footprint(ctx context.Context, in machine.Instance) (providers.Footprint, error) {
	recorded := in.Attrs["host"]
	if p.cfg.linkMode() != OwnSwitch || p.cfg.Host == "" || recorded == "" || in.ID == "" {
		return providers.Footprint{}, nil
	}
	vc, err := url.Parse(p.cfg.URL)
	if err != nil || vc.Host == "" {
		return providers.Footprint{}, nil
	}
	c, _, err := p.session(ctx)
	if err != nil {
		return providers.Footprint{}, err
	}
	var vm mo.VirtualMachine
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: in.ID}
	if err := c.PropertyCollector().RetrieveOne(ctx, ref, []string{"runtime.host"}, &vm); err != nil {
		return providers.Footprint{}, fmt.Errorf("%s: read its host: %w", in.Address, err)
	}
	if vm.Runtime.Host == nil || vm.Runtime.Host.Value != recorded {
		return providers.Footprint{}, nil // moved since create (or unknown): prove nothing
	}
	return providers.FootprintOf("vsphere host " + vc.Host + "/" + recorded), nil
}
