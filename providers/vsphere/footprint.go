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
	host, err := p.hostNow(ctx, in)
	if err != nil {
		return providers.Footprint{}, err
	}
	if host == nil || host.Value != recorded {
		return providers.Footprint{}, nil // moved since create (or unknown): prove nothing
	}
	return providers.FootprintOf("vsphere host " + vc.Host + "/" + recorded), nil
}

// hostNow reads the ESXi host in's VM runs on now (runtime.host): nil
// when vCenter names none.
func (p *Provider) hostNow(ctx context.Context, in machine.Instance) (*types.ManagedObjectReference, error) {
	c, _, err := p.session(ctx)
	if err != nil {
		return nil, err
	}
	var vm mo.VirtualMachine
	ref := types.ManagedObjectReference{Type: "VirtualMachine", Value: in.ID}
	if err := c.PropertyCollector().RetrieveOne(ctx, ref, []string{"runtime.host"}, &vm); err != nil {
		return nil, fmt.Errorf("%s: read its host: %w", in.Address, err)
	}
	return vm.Runtime.Host, nil
}
