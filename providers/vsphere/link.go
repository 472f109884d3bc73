package vsphere

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/providers"
)

// defaultMTU is what a switch that reports no MTU runs at.
const defaultMTU = 1500

// LROOptions are the host-wide vmxnet3 LRO settings recorded (never
// changed) for provenance.
var LROOptions = []string{"Net.Vmxnet3HwLRO", "Net.Vmxnet3SwLRO"}

// Link makes the provider's port group carry the pair's link MTU: it sets
// the MTU of the standard vSwitch behind the port group on every host that
// has it, or the MaxMtu of the distributed switch, and records the
// previous values so Delete restores them. Nothing is created. The host-wide
// LRO settings are recorded in the instance's attributes.
func (p *Provider) Link(ctx context.Context, l providers.LinkSpec) (providers.Instance, error) {
	c, env, err := p.session(ctx)
	if err != nil {
		return providers.Instance{}, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if env.network == nil {
		return providers.Instance{}, fmt.Errorf("link %s: the provider block names no network (port group)", l.Address)
	}
	ref := env.network.Reference()
	in := providers.Instance{Address: l.Address, Provider: TypeName, Kind: "link", ID: ref.Value, Name: p.cfg.Network,
		Attrs: map[string]string{"lab_id": l.LabID, "network": p.cfg.Network, "index": strconv.Itoa(l.Index)}}
	var hosts []types.ManagedObjectReference
	switch ref.Type {
	case "DistributedVirtualPortgroup":
		in.Attrs["switch"] = "dvs"
		hosts, err = p.linkDVS(ctx, c.Client, ref, l.MTU, in.Attrs)
	case "Network":
		in.Attrs["switch"] = "vswitch"
		hosts, err = p.linkVSwitch(ctx, c.Client, ref, l.MTU, in.Attrs)
	default:
		err = fmt.Errorf("network %s is a %s: only standard and distributed port groups carry an MTU", p.cfg.Network, ref.Type)
	}
	if err != nil {
		// What was changed before the failure is recorded: Delete restores it.
		return in, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if l.MTU > 0 {
		in.Attrs["mtu"] = strconv.Itoa(l.MTU)
	}
	in.Attrs["host_lro"] = hostLRO(ctx, c.Client, hosts)
	return in, nil
}

// linkVSwitch sets the MTU of the vSwitch behind a standard port group on
// each host that has it.
func (p *Provider) linkVSwitch(ctx context.Context, c *vim25.Client, ref types.ManagedObjectReference, mtu int, attrs map[string]string) ([]types.ManagedObjectReference, error) {
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
	var prev []string
	var vswitches []string
	defer func() {
		if len(prev) > 0 {
			attrs["prev_mtu"] = strings.Join(prev, ",")
		}
		attrs["vswitch"] = strings.Join(dedupe(vswitches), ",")
	}()
	for _, h := range n.Host {
		ns, sw, err := vswitchOf(ctx, c, h, n.Name)
		if err != nil {
			return n.Host, err
		}
		vswitches = append(vswitches, sw.Name)
		cur := int(sw.Mtu)
		if cur == 0 {
			cur = defaultMTU
		}
		if mtu <= 0 || cur == mtu {
			continue
		}
		spec := sw.Spec
		spec.Mtu = int32(mtu)
		if err := ns.UpdateVirtualSwitch(ctx, sw.Name, spec); err != nil {
			return n.Host, fmt.Errorf("set MTU %d on %s of host %s: %w", mtu, sw.Name, h.Value, err)
		}
		prev = append(prev, h.Value+"="+strconv.Itoa(cur))
	}
	return n.Host, nil
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
		for _, n := range h.Network {
			if n == ref {
				out = append(out, h.Self)
			}
		}
	}
	return out, nil
}

// vswitchOf returns a host's network system and the vSwitch carrying the
// named port group.
func vswitchOf(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, portgroup string) (*object.HostNetworkSystem, *types.HostVirtualSwitch, error) {
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
	name := ""
	for _, pg := range o.NetworkInfo.Portgroup {
		if pg.Spec.Name == portgroup {
			name = pg.Spec.VswitchName
		}
	}
	for i, sw := range o.NetworkInfo.Vswitch {
		if sw.Name == name || name == "" && contains(sw.Portgroup, portgroup) {
			return ns, &o.NetworkInfo.Vswitch[i], nil
		}
	}
	return nil, nil, fmt.Errorf("host %s: no vSwitch carries port group %q", host.Value, portgroup)
}

// linkDVS sets the MaxMtu of the distributed switch behind a port group.
func (p *Provider) linkDVS(ctx context.Context, c *vim25.Client, ref types.ManagedObjectReference, mtu int, attrs map[string]string) ([]types.ManagedObjectReference, error) {
	var pg mo.DistributedVirtualPortgroup
	if err := object.NewCommon(c, ref).Properties(ctx, ref, []string{"config.distributedVirtualSwitch", "host"}, &pg); err != nil {
		return nil, fmt.Errorf("read port group %s: %w", p.cfg.Network, err)
	}
	if pg.Config.DistributedVirtualSwitch == nil {
		return pg.Host, fmt.Errorf("port group %s has no switch", p.cfg.Network)
	}
	dref := *pg.Config.DistributedVirtualSwitch
	attrs["dvs"] = dref.Value
	attrs["dvs_type"] = dref.Type
	cur, version, err := dvsMTU(ctx, c, dref)
	if err != nil {
		return pg.Host, err
	}
	if mtu <= 0 || cur == mtu {
		return pg.Host, nil
	}
	if err := setDVSMTU(ctx, c, dref, version, mtu); err != nil {
		return pg.Host, fmt.Errorf("set MaxMtu %d on %s: %w", mtu, dref.Value, err)
	}
	attrs["prev_mtu"] = dref.Value + "=" + strconv.Itoa(cur)
	return pg.Host, nil
}

func dvsMTU(ctx context.Context, c *vim25.Client, dref types.ManagedObjectReference) (mtu int, version string, err error) {
	var d mo.DistributedVirtualSwitch
	if err := object.NewCommon(c, dref).Properties(ctx, dref, []string{"config"}, &d); err != nil {
		return 0, "", fmt.Errorf("read switch %s: %w", dref.Value, err)
	}
	mtu = defaultMTU
	if d.Config == nil {
		return mtu, "", nil
	}
	info := d.Config.GetDVSConfigInfo()
	if v, ok := d.Config.(*types.VMwareDVSConfigInfo); ok && v.MaxMtu > 0 {
		mtu = int(v.MaxMtu)
	}
	return mtu, info.ConfigVersion, nil
}

func setDVSMTU(ctx context.Context, c *vim25.Client, dref types.ManagedObjectReference, version string, mtu int) error {
	dvs := object.NewDistributedVirtualSwitch(c, dref)
	spec := &types.VMwareDVSConfigSpec{DVSConfigSpec: types.DVSConfigSpec{ConfigVersion: version}, MaxMtu: int32(mtu)}
	return wait(ctx, func() (*object.Task, error) { return dvs.Reconfigure(ctx, spec) })
}

// deleteLink restores the MTUs Link changed. A link recorded only as
// pending changed nothing that state knows of, so it restores nothing.
func (p *Provider) deleteLink(ctx context.Context, c *vim25.Client, env *inventory, in providers.Instance) error {
	prev := in.Attrs["prev_mtu"]
	if prev == "" {
		return nil
	}
	var errs []string
	for _, kv := range strings.Split(prev, ",") {
		id, v, ok := strings.Cut(kv, "=")
		mtu, err := strconv.Atoi(v)
		if !ok || err != nil {
			errs = append(errs, fmt.Sprintf("bad prev_mtu entry %q", kv))
			continue
		}
		if in.Attrs["switch"] == "dvs" {
			typ := in.Attrs["dvs_type"]
			if typ == "" {
				typ = "VmwareDistributedVirtualSwitch"
			}
			dref := types.ManagedObjectReference{Type: typ, Value: id}
			cur, version, err := dvsMTU(ctx, c, dref)
			if isNotFound(err) {
				continue
			}
			if err == nil && cur != mtu {
				err = setDVSMTU(ctx, c, dref, version, mtu)
			}
			if err != nil {
				errs = append(errs, fmt.Sprintf("restore MaxMtu %d on %s: %v", mtu, id, err))
			}
			continue
		}
		host := types.ManagedObjectReference{Type: "HostSystem", Value: id}
		ns, sw, err := vswitchOf(ctx, c, host, in.Attrs["network"])
		if isNotFound(err) {
			continue
		}
		if err == nil && int(sw.Mtu) != mtu {
			spec := sw.Spec
			spec.Mtu = int32(mtu)
			err = ns.UpdateVirtualSwitch(ctx, sw.Name, spec)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("restore MTU %d on host %s: %v", mtu, id, err))
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

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
