package vsphere

import (
	"context"
	"fmt"
	"strings"

	"github.com/vmware/govmomi/vim25/soap"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TeamFootprint is the footprint as runners of one team name it for their
// shared benchmark lock: the ESXi host the VM runs on now ("vsphere host
// vc.example.com/host-21", the vCenter's host name lower-cased without
// user, password or port, and the host's moref, unique within it), and in
// shared-switch mode also the network whose switch carries the benchmark
// traffic to other hosts ("vsphere network vc.example.com/network-7").
// Unlike Footprint it names the host in every mode: two runners of one
// team on one vCenter read the same names, and where Footprint cannot
// prove that nothing else is loaded the network resource keeps the
// team's shared-switch runs apart.
func (p *Provider) TeamFootprint(ctx context.Context, in machine.Instance) (providers.Footprint, error) {
	vc := vcenterName(p.cfg.URL)
	if vc == "" || in.ID == "" {
		return providers.Footprint{}, fmt.Errorf("%s: no vCenter URL or VM to name its host by", in.Address)
	}
	host, err := p.hostNow(ctx, in)
	if err != nil {
		return providers.Footprint{}, err
	}
	if host == nil {
		return providers.Footprint{}, fmt.Errorf("%s: vCenter names no host for it", in.Address)
	}
	rs := []string{"vsphere host " + vc + "/" + host.Value}
	if p.cfg.linkMode() != OwnSwitch {
		_, inv, err := p.session(ctx)
		if err != nil {
			return providers.Footprint{}, err
		}
		if inv.network == nil {
			return providers.Footprint{}, fmt.Errorf("%s: shared-switch mode without a network to name", in.Address)
		}
		rs = append(rs, "vsphere network "+vc+"/"+inv.network.Reference().Value)
	}
	return providers.FootprintOf(rs...), nil
}

// vcenterName is the vCenter's host name in rawURL (a url or GOVC_URL,
// which may carry user:password): lower-cased, no port; "" when none.
func vcenterName(rawURL string) string {
	u, err := soap.ParseURL(rawURL)
	if err != nil || u == nil {
		return ""
	}
	return strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
}
