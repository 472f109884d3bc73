package vsphere

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/providers"
)

var _ providers.NetworkPlanner = (*Provider)(nil)

// PlanLink reports what Link(l) would change on the hosts, reading only:
// in shared-switch mode each switch behind network whose MTU would change
// (host, switch, current MTU → the link's), in own-switch mode the
// vSwitch it would add. It runs the placement check Link runs first, so a
// placement apply would refuse fails the plan. Without a configured
// connection (plan offline) it reports nothing.
func (p *Provider) PlanLink(ctx context.Context, l providers.LinkSpec) ([]providers.NetworkChange, error) {
	if p.cfg.URL == "" || p.username == "" {
		return nil, nil
	}
	c, env, err := p.session(ctx)
	if err != nil {
		return nil, err
	}
	if env.network == nil {
		return nil, nil
	}
	if err := placementCheck(env, p.cfg); err != nil {
		return nil, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if p.cfg.linkMode() == OwnSwitch {
		return p.planOwnLink(ctx, c.Client, env, l)
	}
	if l.MTU <= 0 {
		return nil, nil
	}
	hosts, err := p.placementHosts(ctx, c.Client, env)
	if err != nil {
		return nil, fmt.Errorf("link %s: %w", l.Address, err)
	}
	ref := env.network.Reference()
	var switches []switchRef
	switch ref.Type {
	case "DistributedVirtualPortgroup":
		switches, err = p.dvsOf(ctx, c.Client, ref)
	case "Network":
		switches, err = p.vswitchesOf(ctx, c.Client, ref, hosts)
	default:
		return nil, nil // Link refuses it, naming the type
	}
	if err != nil {
		return nil, fmt.Errorf("link %s: %w", l.Address, err)
	}
	holder := l.Owner().Tag(l.Address)
	var out []providers.NetworkChange
	for _, sw := range switches {
		cur, unset, err := readSwitchMTU(ctx, c.Client, sw, "")
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l.Address, err)
		}
		rec, err := readRecord(ctx, c.Client, sw)
		if err != nil {
			return nil, fmt.Errorf("link %s: %w", l.Address, err)
		}
		others := slices.DeleteFunc(slices.Clone(rec.Holders), func(h string) bool { return h == holder })
		ch := providers.NetworkChange{Link: l.Address, Switch: sw.name, Change: "mtu", From: cur, FromUnset: unset, To: l.MTU}
		if sw.isDVS() {
			ch.Switch = entityName(ctx, c.Client, sw.dvs)
		} else {
			ch.Host = entityName(ctx, c.Client, sw.host)
		}
		switch {
		case len(others) > 0 && rec.MTU != l.MTU:
			ch.Note = fmt.Sprintf("held at MTU %d by %s: apply will refuse this link", rec.MTU, strings.Join(others, ", "))
		case cur == l.MTU:
			continue // nothing to change
		}
		out = append(out, ch)
	}
	return out, nil
}

// planOwnLink reports the vSwitch an own-switch link would add on the
// pinned host (none when it exists already).
func (p *Provider) planOwnLink(ctx context.Context, c *vim25.Client, env *inventory, l providers.LinkSpec) ([]providers.NetworkChange, error) {
	host := env.host.Reference()
	swName, pgName := ownNames(l.Owner(), l.Address)
	_, info, err := hostNetwork(ctx, c, host)
	if err != nil {
		return nil, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if findVSwitch(info, swName) != nil {
		return nil, nil
	}
	mtu := l.MTU
	if mtu <= 0 {
		mtu = defaultMTU
	}
	return []providers.NetworkChange{{Link: l.Address, Host: entityName(ctx, c, host), Switch: swName, Change: "add", To: mtu,
		Note: "no uplink; port group " + pgName}}, nil
}

// entityName is an entity's name, or its managed object id when the name
// cannot be read.
func entityName(ctx context.Context, c *vim25.Client, ref types.ManagedObjectReference) string {
	var e mo.ManagedEntity
	if err := object.NewCommon(c, ref).Properties(ctx, ref, []string{"name"}, &e); err != nil || e.Name == "" {
		return ref.Value
	}
	return e.Name
}
