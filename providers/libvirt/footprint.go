package libvirt

import (
	"context"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Footprint is the machine lab runs on for a libvirt on this host
// (qemu:///system): all its domains share the host, so their runs never
// overlap, nor overlap the local back end's. A remote libvirt is
// everything: its host is known only by the name in the URI, and two
// names may be one machine.
func (p *Provider) Footprint(context.Context, machine.Instance) (providers.Footprint, error) {
	if onThisHost(p.cfg.URI) {
		return providers.FootprintOf(providers.ThisMachine), nil
	}
	return providers.Footprint{}, nil
}
