package bhyve

import (
	"context"
	"fmt"
	"strings"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Capabilities are virtio-net guests with vCPU and memory, the MTU of the
// bridges lab makes. Offload toggles inside the guest work on the VALE
// backend only: a tap-backed virtio-net is offered no offloads, so on tap
// (when strict) they are refused as silent no-ops, and so are host-side
// bits. Routed pairs with management_switch (mgmt.go); no NIC queue counts.
func (p *Provider) Capabilities() providers.Capabilities {
	c := providers.Capabilities{NICModels: []string{"virtio-net", "virtio"}, VCPU: true, Memory: true, LinkMTU: true,
		GuestOffloads: true, HostOffloads: true, RoutedPairs: p.cfg.routedWhy() == "", RoutedWhy: p.cfg.routedWhy(),
		// An existing switch (bridged to a NIC of the host's) reaches
		// beyond this host: a VM on it can be one end of a cross pair,
		// its address found on that network (address_discovery).
		ExistingNetwork: p.cfg.Switch != ""}
	if p.cfg.NetworkBackend == "tap" && p.cfg.strict() {
		c.GuestOffloads, c.HostOffloads = false, false
		c.Why = `bhyve's tap backend offers the guest's virtio-net no offloads (ifconfig shows them off [fixed]). ` +
			`Use network_backend = "vale" (netmap/VALE, with backend = "vm-bhyve"), drop the toggles, ` +
			"or set strict = false in the bhyve provider block to run anyway and record them as warnings."
	}
	return c
}

// TemplateID identifies the template's ZFS dataset (<datastore>/<source>,
// which both backends clone from) by its GUID, creation transaction group
// and referenced bytes, as `zfs get -Hp -o value guid,createtxg,referenced`
// prints them one per line (zfs-get(8)): "zfs guid 1234…; createtxg 56;
// referenced 2147483648". A dataset destroyed and made again gets a new
// GUID and txg; a change inside it almost always changes referenced. (A
// rewrite of the same size would not: ZFS offers no content checksum of a
// whole dataset short of reading it.)
func (p *Provider) TemplateID(ctx context.Context, m machine.Machine) (string, error) {
	if !nameRE.MatchString(m.Template.Source) {
		return "", fmt.Errorf("template %q: source %q is not a dataset name", m.Template.Name, m.Template.Source)
	}
	ds := p.cfg.Datastore + "/" + m.Template.Source
	out, err := p.run(ctx, "zfs", "get", "-Hp", "-o", "value", "guid,createtxg,referenced", ds)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", ds, err)
	}
	f := strings.Fields(out)
	if len(f) != 3 {
		return "", fmt.Errorf("template %s: zfs get printed %q, not three values", ds, out)
	}
	return fmt.Sprintf("zfs guid %s; createtxg %s; referenced %s", f[0], f[1], f[2]), nil
}
