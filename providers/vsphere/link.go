package vsphere

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// defaultMTU is what a switch that reports no MTU runs at.
const defaultMTU = 1500

// LROOptions are the host-wide vmxnet3 LRO settings recorded (never
// changed) for provenance.
var LROOptions = []string{"Net.Vmxnet3HwLRO", "Net.Vmxnet3SwLRO"}

// Link makes the provider's port group carry the pair's link MTU: it sets
// the MTU of the standard vSwitch behind the port group on the hosts of
// the placement (the pinned host, or the hosts of the cluster or resource
// pool) — never on other hosts of the datacenter — or the MaxMtu of the
// distributed switch. Each switch it changes carries a record of its
// previous MTU and of the links holding it (see mtuRecord), so a switch
// shared by pairs is restored only when the last of them is deleted, and
// an orphan sweep after a lost state finds and restores it. The MTU is
// read back after it is set. Nothing is created. The hosts' LRO settings
// are recorded in the instance's attributes.
func (p *Provider) Link(ctx context.Context, l providers.LinkSpec) (machine.Instance, error) {
	c, env, err := p.session(ctx)
	if err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if env.network == nil {
		return machine.Instance{}, fmt.Errorf("link %s: the provider block names no network (port group)", l.Address)
	}
	// Every check Create makes of the placement runs before the first
	// change (a switch's MTU): a cluster that cannot place a clone must
	// not have its hosts' switches changed first.
	if err := placementCheck(env, p.cfg); err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if p.cfg.linkMode() == OwnSwitch {
		return p.ownLink(ctx, c.Client, env, l)
	}
	ref := env.network.Reference()
	in := machine.Instance{Address: l.Address, Provider: TypeName, Kind: "link", ID: ref.Value, Name: p.cfg.Network, Owner: l.Owner(),
		Attrs: map[string]string{"lab_id": l.LabID, "network": p.cfg.Network, "index": strconv.Itoa(l.Index)}}
	hosts, err := p.placementHosts(ctx, c.Client, env)
	if err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: %w", l.Address, err)
	}
	var switches []switchRef
	switch ref.Type {
	case "DistributedVirtualPortgroup":
		in.Attrs["switch"] = "dvs"
		switches, err = p.dvsOf(ctx, c.Client, ref)
	case "Network":
		in.Attrs["switch"] = "vswitch"
		switches, err = p.vswitchesOf(ctx, c.Client, ref, hosts)
	default:
		err = fmt.Errorf("network %s is a %s: only standard and distributed port groups carry an MTU", p.cfg.Network, ref.Type)
	}
	if err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: %w", l.Address, err)
	}
	in.Attrs["switches"] = joinSwitches(switches)
	in.Attrs["host_lro"] = hostLRO(ctx, c.Client, hosts)
	if l.MTU <= 0 {
		return in, nil
	}
	in.Attrs["mtu"] = strconv.Itoa(l.MTU)
	holder := l.Owner().Tag(l.Address)
	for _, sw := range switches {
		unlock, err := p.lockSwitches(ctx, c.Client, sw.entity())
		if err == nil {
			err = acquire(ctx, c.Client, sw, l.MTU, holder)
			unlock()
		}
		if err != nil {
			// What was acquired before the failure is in the instance's
			// switches: Delete releases it.
			return in, fmt.Errorf("link %s: %w", l.Address, err)
		}
	}
	return in, nil
}

// placementHosts are the hosts machines may be placed on: the pinned host,
// or the hosts of the compute resource owning the resource pool.
func (p *Provider) placementHosts(ctx context.Context, c *vim25.Client, env *inventory) ([]types.ManagedObjectReference, error) {
	if env.host != nil {
		return []types.ManagedObjectReference{env.host.Reference()}, nil
	}
	var rp mo.ResourcePool
	if err := env.pool.Properties(ctx, env.pool.Reference(), []string{"owner"}, &rp); err != nil {
		return nil, fmt.Errorf("read resource pool %s: %w", env.pool.Reference().Value, err)
	}
	var cr mo.ComputeResource
	if err := object.NewCommon(c, rp.Owner).Properties(ctx, rp.Owner, []string{"host"}, &cr); err != nil {
		return nil, fmt.Errorf("read hosts of %s: %w", rp.Owner.Value, err)
	}
	if len(cr.Host) == 0 {
		return nil, fmt.Errorf("%s has no hosts", rp.Owner.Value)
	}
	return cr.Host, nil
}

// vswitchesOf returns the vSwitch behind a standard port group on each
// placement host that has the port group.
func (p *Provider) vswitchesOf(ctx context.Context, c *vim25.Client, ref types.ManagedObjectReference, placement []types.ManagedObjectReference) ([]switchRef, error) {
	var n mo.Network
	if err := object.NewCommon(c, ref).Properties(ctx, ref, []string{"name", "host"}, &n); err != nil {
		return nil, fmt.Errorf("read port group %s: %w", p.cfg.Network, err)
	}
	if len(n.Host) == 0 {
		// Some inventories (the simulator) do not fill Network.host: take
		// the hosts that list the network.
		hosts, err := hostsWithNetwork(ctx, c, ref)
		if err != nil {
			return nil, err
		}
		n.Host = hosts
	}
	var out []switchRef
	for _, h := range n.Host {
		if !containsRef(placement, h) {
			continue
		}
		_, sw, err := vswitchOf(ctx, c, h, n.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, switchRef{host: h, name: sw.Name})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no host of the placement (%s) carries port group %s", refValues(placement), p.cfg.Network)
	}
	return out, nil
}

// dvsOf returns the distributed switch behind a port group.
func (p *Provider) dvsOf(ctx context.Context, c *vim25.Client, ref types.ManagedObjectReference) ([]switchRef, error) {
	var pg mo.DistributedVirtualPortgroup
	if err := object.NewCommon(c, ref).Properties(ctx, ref, []string{"config.distributedVirtualSwitch"}, &pg); err != nil {
		return nil, fmt.Errorf("read port group %s: %w", p.cfg.Network, err)
	}
	if pg.Config.DistributedVirtualSwitch == nil {
		return nil, fmt.Errorf("port group %s has no switch", p.cfg.Network)
	}
	return []switchRef{{dvs: *pg.Config.DistributedVirtualSwitch}}, nil
}

// hostsWithNetwork lists the hosts whose network property has ref.
func hostsWithNetwork(ctx context.Context, c *vim25.Client, ref types.ManagedObjectReference) ([]types.ManagedObjectReference, error) {
	v, err := view.NewManager(c).CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{"HostSystem"}, true)
	if err != nil {
		return nil, fmt.Errorf("list hosts: %w", err)
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }() // a view left behind ends with the session
	var hs []mo.HostSystem
	if err := v.Retrieve(ctx, []string{"HostSystem"}, []string{"network"}, &hs); err != nil {
		return nil, fmt.Errorf("list hosts: %w", err)
	}
	var out []types.ManagedObjectReference
	for _, h := range hs {
		if containsRef(h.Network, ref) {
			out = append(out, h.Self)
		}
	}
	return out, nil
}

// vswitchOf returns a host's network system and the vSwitch carrying the
// named port group.
func vswitchOf(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, portgroup string) (*object.HostNetworkSystem, *types.HostVirtualSwitch, error) {
	ns, info, err := hostNetwork(ctx, c, host)
	if err != nil {
		return nil, nil, err
	}
	name := ""
	for _, pg := range info.Portgroup {
		if pg.Spec.Name == portgroup {
			name = pg.Spec.VswitchName
		}
	}
	for i, sw := range info.Vswitch {
		if sw.Name == name || name == "" && contains(sw.Portgroup, portgroup) {
			return ns, &info.Vswitch[i], nil
		}
	}
	return nil, nil, fmt.Errorf("host %s: no vSwitch carries port group %q", host.Value, portgroup)
}

// hostNetwork returns a host's network system and its network information.
func hostNetwork(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference) (*object.HostNetworkSystem, *types.HostNetworkInfo, error) {
	var h mo.HostSystem
	if err := object.NewCommon(c, host).Properties(ctx, host, []string{"configManager.networkSystem"}, &h); err != nil {
		return nil, nil, fmt.Errorf("read host %s: %w", host.Value, err)
	}
	if h.ConfigManager.NetworkSystem == nil {
		return nil, nil, fmt.Errorf("host %s has no network system", host.Value)
	}
	ns := object.NewHostNetworkSystem(c, *h.ConfigManager.NetworkSystem)
	var o mo.HostNetworkSystem
	if err := ns.Properties(ctx, ns.Reference(), []string{"networkInfo"}, &o); err != nil {
		return nil, nil, fmt.Errorf("read network of host %s: %w", host.Value, err)
	}
	if o.NetworkInfo == nil {
		return nil, nil, fmt.Errorf("host %s reports no network information", host.Value)
	}
	return ns, o.NetworkInfo, nil
}

// readLink reports whether a link still stands as made: its port group is
// configured and every switch it holds still runs at its MTU with the
// link among its holders (false: Delete and Link again).
func (p *Provider) readLink(ctx context.Context, c *vim25.Client, env *inventory, in machine.Instance) (bool, error) {
	if in.Attrs["mode"] == OwnSwitch {
		return readOwnLink(ctx, c, in)
	}
	if env.network == nil {
		return false, nil
	}
	want, _ := strconv.Atoi(in.Attrs["mtu"])
	if want <= 0 {
		return true, nil
	}
	switches, err := parseSwitches(in.Attrs["switches"])
	if err != nil || len(switches) == 0 {
		return false, nil // a link of an earlier version (or a bad entry): make it again
	}
	holder := ownerOf(in).Tag(in.Address)
	for _, sw := range switches {
		cur, err := switchMTU(ctx, c, sw, in.Attrs["network"])
		if isNotFound(err) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		rec, err := readRecord(ctx, c, sw)
		if err != nil {
			return false, err
		}
		if cur != want || !contains(rec.Holders, holder) {
			return false, nil
		}
	}
	return true, nil
}

// deleteLink releases the switches a link holds: a switch is restored to
// its previous MTU when its last holder lets go. A link recorded only as
// pending holds nothing that state knows of; an orphan sweep finds what it
// held through List.
func (p *Provider) deleteLink(ctx context.Context, c *vim25.Client, in machine.Instance) error {
	if in.Attrs["mode"] == OwnSwitch {
		return p.deleteOwnLink(ctx, c, in)
	}
	if in.Attrs["switches"] == "" && in.Attrs["prev_mtu"] != "" {
		return deleteLegacyLink(ctx, c, in)
	}
	switches, err := parseSwitches(in.Attrs["switches"])
	if err != nil {
		return fmt.Errorf("delete link %s: %w", in.Address, err)
	}
	holder := ownerOf(in).Tag(in.Address)
	var errs []string
	for _, sw := range switches {
		unlock, err := p.lockSwitches(ctx, c, sw.entity())
		if err == nil {
			err = release(ctx, c, sw, holder)
			unlock()
		}
		if err != nil && !isNotFound(err) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("delete link %s: %s", in.Address, strings.Join(errs, "; "))
	}
	return nil
}

// hostLRO reads the host-wide vmxnet3 LRO options of each host:
// "host-21: Net.Vmxnet3HwLRO=1 Net.Vmxnet3SwLRO=1; …" ("?" when a host
// does not report an option).
func hostLRO(ctx context.Context, c *vim25.Client, hosts []types.ManagedObjectReference) string {
	var parts []string
	for _, h := range hosts {
		var hs mo.HostSystem
		if err := object.NewCommon(c, h).Properties(ctx, h, []string{"configManager.advancedOption"}, &hs); err != nil || hs.ConfigManager.AdvancedOption == nil {
			parts = append(parts, h.Value+": ?")
			continue
		}
		om := object.NewOptionManager(c, *hs.ConfigManager.AdvancedOption)
		var kv []string
		for _, name := range LROOptions {
			v := "?"
			if opts, err := om.Query(ctx, name); err == nil && len(opts) > 0 {
				v = fmt.Sprint(opts[0].GetOptionValue().Value)
			}
			kv = append(kv, name+"="+v)
		}
		parts = append(parts, h.Value+": "+strings.Join(kv, " "))
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsRef(list []types.ManagedObjectReference, r types.ManagedObjectReference) bool {
	for _, x := range list {
		if x == r {
			return true
		}
	}
	return false
}

func refValues(refs []types.ManagedObjectReference) string {
	var s []string
	for _, r := range refs {
		s = append(s, r.Value)
	}
	return strings.Join(s, ", ")
}

// listLinks finds the links of o that switches still record as holders
// (an orphan sweep after a lost state): each is returned with the
// switches it holds, so Delete releases them and the last restores the
// MTU the switch had.
func listLinks(ctx context.Context, c *vim25.Client, o machine.Owner) ([]machine.Instance, error) {
	if c.ServiceContent.CustomFieldsManager == nil {
		return nil, nil
	}
	key, err := object.NewCustomFieldsManager(c).FindKey(ctx, mtuField)
	if errors.Is(err, object.ErrKeyNameNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list switches: %w", err)
	}
	v, err := view.NewManager(c).CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{"HostSystem", "DistributedVirtualSwitch"}, true)
	if err != nil {
		return nil, fmt.Errorf("list switches: %w", err)
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }() // a view left behind ends with the session
	var ents []mo.ManagedEntity
	if err := v.Retrieve(ctx, []string{"HostSystem", "DistributedVirtualSwitch"}, []string{"customValue"}, &ents); err != nil {
		return nil, fmt.Errorf("list switches: %w", err)
	}
	// Each link is reported with the owner its holder tag names (o's
	// workspace may be AnyWorkspace, for reporting).
	type held struct {
		owner machine.Owner
		addr  string
	}
	heldBy := map[held][]switchRef{}
	var out []machine.Instance
	for _, e := range ents {
		val := fieldValue(e.CustomValue, key)
		if val == "" {
			continue
		}
		recs := map[string]mtuRecord{}
		if err := json.Unmarshal([]byte(val), &recs); err != nil {
			return nil, fmt.Errorf("list switches: %s of %s: %w", mtuField, e.Self.Value, err)
		}
		for k, rec := range recs {
			sw := switchRef{host: e.Self, name: k}
			if e.Self.Type != "HostSystem" {
				sw = switchRef{dvs: e.Self}
			}
			for _, h := range rec.Holders {
				owner, addr, ok := machine.ParseTag(h)
				switch {
				case !ok || !o.Owns(h):
				case rec.Portgroup != "": // a vSwitch lab made (own-switch)
					out = append(out, machine.Instance{Address: addr, Provider: TypeName, Kind: "link", ID: rec.Portgroup, Name: rec.Portgroup, Owner: owner,
						Attrs: map[string]string{"lab_id": owner.Lab, "mode": OwnSwitch, "host": e.Self.Value, "vswitch": k, "portgroup": rec.Portgroup,
							"switches": sw.String()}})
				default:
					heldBy[held{owner, addr}] = append(heldBy[held{owner, addr}], sw)
				}
			}
		}
	}
	keys := slices.SortedFunc(maps.Keys(heldBy), func(a, b held) int {
		return strings.Compare(a.owner.Workspace+"\x00"+a.addr, b.owner.Workspace+"\x00"+b.addr)
	})
	for _, k := range keys {
		out = append(out, machine.Instance{Address: k.addr, Provider: TypeName, Kind: "link", Name: "switch MTU of " + k.addr, Owner: k.owner,
			Attrs: map[string]string{"lab_id": k.owner.Lab, "switches": joinSwitches(heldBy[k])}})
	}
	return out, nil
}
