package vsphere

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Link modes (link_mode in the provider block).
const (
	// OwnSwitch: per pair, an isolated standard vSwitch (no uplink) and a
	// port group on it, made on the pinned host for the benchmark NICs;
	// each VM keeps a management NIC on the provider's network for SSH.
	OwnSwitch = "own-switch"
	// SharedSwitch: one NIC on the provider's network, whose switch's MTU
	// lab changes (and restores) for the link.
	SharedSwitch = "shared-switch"
)

// linkMode is link_mode with its default: own-switch when a host is
// pinned (a standard vSwitch lives on one host), shared-switch otherwise.
func (c Config) linkMode() string {
	if c.LinkMode != "" {
		return c.LinkMode
	}
	if c.Host != "" {
		return OwnSwitch
	}
	return SharedSwitch
}

// checkLinkMode validates link_mode, pointing at the attribute.
func (c Config) checkLinkMode(cd *providers.ConfigDiags) {
	switch {
	case c.LinkMode == "" || c.LinkMode == SharedSwitch:
	case c.LinkMode != OwnSwitch:
		cd.Errorf("link_mode", "Invalid link_mode",
			"link_mode must be %q (an isolated vSwitch per pair on the pinned host) or %q (change the MTU of the switch behind network), got %q.",
			OwnSwitch, SharedSwitch, c.LinkMode)
	case c.Host == "":
		cd.Errorf("link_mode", "own-switch needs a host",
			"A standard vSwitch exists on one ESXi host: set host in the provider block, so both VMs of a pair run where their switch is.")
	}
}

// ownNames are the vSwitch and port group of a link in own-switch mode:
// fixed by the owner (lab and workspace) and the link's address, so two
// pairs, labs or workspaces never share one. The name alone proves
// nothing: ownership is the host's switch record (see ownLink).
func ownNames(o machine.Owner, address string) (vswitch, portgroup string) {
	h := o.Hash(10, address)
	return "lab-sw-" + h, "lab-pg-" + h
}

// ownLink makes (or, when this link already made it, finds again) the
// link's isolated vSwitch and port group on the pinned host, in a batch
// with the other links asked for on that host meanwhile (makeOwnLinks).
// The host's switch record (mtuField, keyed by the vSwitch's name, with
// the port group and this link as holder) is written before the switch
// exists, so an orphan sweep finds whatever a crash leaves. A vSwitch or
// port group of that name that the record does not give to this link is
// refused and left alone.
func (p *Provider) ownLink(ctx context.Context, c *vim25.Client, env *inventory, l providers.LinkSpec) (machine.Instance, error) {
	host := env.host.Reference()
	swName, pgName := ownNames(l.Owner(), l.Address)
	mtu := l.MTU
	if mtu <= 0 {
		mtu = defaultMTU
	}
	sw := switchRef{host: host, name: swName}
	in := machine.Instance{Address: l.Address, Provider: TypeName, Kind: "link", ID: pgName, Name: pgName, Owner: l.Owner(),
		Attrs: map[string]string{"lab_id": l.LabID, "mode": OwnSwitch, "host": host.Value, "vswitch": swName, "portgroup": pgName,
			"mtu": strconv.Itoa(mtu), "index": strconv.Itoa(l.Index), "switches": sw.String(),
			"host_lro": hostLRO(ctx, c, []types.ManagedObjectReference{host})}}
	if c.ServiceContent.CustomFieldsManager == nil {
		return machine.Instance{}, fmt.Errorf("link %s: own-switch needs custom attributes to record which vSwitch is lab's, and this endpoint has none (a bare ESXi host?): connect to vCenter, or set link_mode = %q", l.Address, SharedSwitch)
	}
	op := &netOp{sw: swName, pg: pgName, mtu: mtu, owner: l.Owner(), holder: l.Owner().Tag(l.Address)}
	p.batches.do(ctx, "make "+host.Value, op, func(ctx context.Context, ops []*netOp) { p.makeOwnLinks(ctx, c, host, ops) })
	switch {
	case op.err == nil:
		return in, nil
	case op.recorded:
		return in, fmt.Errorf("link %s: %w", l.Address, op.err)
	default:
		return machine.Instance{}, fmt.Errorf("link %s: %w", l.Address, op.err)
	}
}

// notOwnedSwitch is the refusal to touch a vSwitch or port group with an
// own-switch link's name that the host's records do not give to o.
func notOwnedSwitch(host types.ManagedObjectReference, sw, pg string, rec mtuRecord, o machine.Owner) error {
	tag := ""
	if rec.Portgroup == pg && len(rec.Holders) > 0 {
		tag = strings.Join(rec.Holders, ", ")
	}
	return &providers.NotOwnedError{Kind: "vSwitch", Name: fmt.Sprintf("%s (port group %s) on %s", sw, pg, host.Value), Tag: tag, Owner: o}
}

func findVSwitch(info *types.HostNetworkInfo, name string) *types.HostVirtualSwitch {
	for i := range info.Vswitch {
		if info.Vswitch[i].Name == name {
			return &info.Vswitch[i]
		}
	}
	return nil
}

func hasPortgroup(info *types.HostNetworkInfo, name string) bool {
	for _, pg := range info.Portgroup {
		if pg.Spec.Name == name {
			return true
		}
	}
	return false
}

// portgroupsOn names the port groups on a vSwitch (by the port groups'
// own vswitchName: HostVirtualSwitch.portgroup holds keys on ESXi).
func portgroupsOn(info *types.HostNetworkInfo, sw string) []string {
	var out []string
	for _, pg := range info.Portgroup {
		if pg.Spec.VswitchName == sw {
			out = append(out, pg.Spec.Name)
		}
	}
	return out
}

// checkIsolated refuses a vSwitch that is no longer what lab made: one
// with an uplink, another port group, or a VM on its port group that does
// not carry o's tag.
func (p *Provider) checkIsolated(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, info *types.HostNetworkInfo, sw *types.HostVirtualSwitch, pg string, o machine.Owner) error {
	vms, err := hostVMs(ctx, c, host)
	if err != nil {
		return fmt.Errorf("vSwitch %s on %s: %w", sw.Name, host.Value, err)
	}
	return isolated(host, info, sw, pg, o, vms)
}

// isolated is checkIsolated's test, given the host's VMs (hostVMs).
func isolated(host types.ManagedObjectReference, info *types.HostNetworkInfo, sw *types.HostVirtualSwitch, pg string, o machine.Owner, vms []mo.VirtualMachine) error {
	where := fmt.Sprintf("vSwitch %s on %s", sw.Name, host.Value)
	if sw.Spec.Bridge != nil || len(sw.Pnic) > 0 {
		return fmt.Errorf("%s has an uplink now (lab made it without one): lab leaves it alone", where)
	}
	if others := slices.DeleteFunc(portgroupsOn(info, sw.Name), func(s string) bool { return s == pg }); len(others) > 0 {
		return fmt.Errorf("%s carries port groups lab did not make (%s): lab leaves it alone", where, strings.Join(others, ", "))
	}
	if foreign := foreignVMs(vms, pg, o); len(foreign) > 0 {
		return fmt.Errorf("%s: port group %s has VMs that are not this lab's (%s): lab leaves it alone", where, pg, strings.Join(foreign, ", "))
	}
	return nil
}

// hostVMs reads the VMs of a host, with what foreignVMs looks at.
func hostVMs(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference) ([]mo.VirtualMachine, error) {
	var h mo.HostSystem
	if err := object.NewCommon(c, host).Properties(ctx, host, []string{"vm"}, &h); err != nil {
		return nil, fmt.Errorf("list VMs of %s: %w", host.Value, err)
	}
	if len(h.Vm) == 0 {
		return nil, nil
	}
	var vms []mo.VirtualMachine
	err := property.DefaultCollector(c).Retrieve(ctx, h.Vm, []string{"name", "config.annotation", "config.extraConfig", "config.hardware.device"}, &vms)
	if err != nil && !isNotFound(err) {
		return nil, fmt.Errorf("list VMs of %s: %w", host.Value, err)
	}
	return vms, nil
}

// foreignVMs names the VMs among vms with a NIC on port group pg that do
// not carry o's tag.
func foreignVMs(vms []mo.VirtualMachine, pg string, o machine.Owner) []string {
	var out []string
	for _, vm := range vms {
		if vm.Config == nil || !onPortgroup(vm.Config.Hardware.Device, pg) {
			continue
		}
		if ownsVM(o, vm.Name, vm.Self.Value, vmTag(vm)) != nil {
			out = append(out, vm.Name)
		}
	}
	return out
}

func onPortgroup(devices []types.BaseVirtualDevice, pg string) bool {
	return slices.ContainsFunc(devices, func(d types.BaseVirtualDevice) bool {
		b, ok := d.GetVirtualDevice().Backing.(*types.VirtualEthernetCardNetworkBackingInfo)
		return ok && b.DeviceName == pg
	})
}

// benchMAC is the MAC of the NIC on port group pg ("" if none).
func benchMAC(devices []types.BaseVirtualDevice, pg string) string {
	for _, d := range devices {
		card, ok := d.(types.BaseVirtualEthernetCard)
		if !ok {
			continue
		}
		if b, ok := d.GetVirtualDevice().Backing.(*types.VirtualEthernetCardNetworkBackingInfo); ok && b.DeviceName == pg {
			return card.GetVirtualEthernetCard().MacAddress
		}
	}
	return ""
}

// readOwnLink reports whether an own-switch link stands as made: its
// vSwitch at its MTU, its port group, and the record naming this link.
func readOwnLink(ctx context.Context, c *vim25.Client, in machine.Instance) (bool, error) {
	host := types.ManagedObjectReference{Type: "HostSystem", Value: in.Attrs["host"]}
	_, info, err := hostNetwork(ctx, c, host)
	if isNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	sw := findVSwitch(info, in.Attrs["vswitch"])
	if sw == nil || !hasPortgroup(info, in.Attrs["portgroup"]) {
		return false, nil
	}
	mtu := int(sw.Mtu)
	if mtu == 0 {
		mtu = defaultMTU
	}
	if strconv.Itoa(mtu) != in.Attrs["mtu"] {
		return false, nil
	}
	recs, err := readRecords(ctx, c, host)
	if err != nil {
		return false, err
	}
	rec := recs[in.Attrs["vswitch"]]
	return rec.Portgroup == in.Attrs["portgroup"] && contains(rec.Holders, ownerOf(in).Tag(in.Address)), nil
}

// deleteOwnLink removes an own-switch link's port group, then its
// vSwitch, then the record — only when the host's record gives them to
// this link and the switch is still isolated (see checkIsolated) — in a
// batch with the other links removed from that host meanwhile
// (removeOwnLinks). What is gone is success.
func (p *Provider) deleteOwnLink(ctx context.Context, c *vim25.Client, in machine.Instance) error {
	host := types.ManagedObjectReference{Type: "HostSystem", Value: in.Attrs["host"]}
	owner := ownerOf(in)
	op := &netOp{sw: in.Attrs["vswitch"], pg: in.Attrs["portgroup"], owner: owner, holder: owner.Tag(in.Address)}
	p.batches.do(ctx, "remove "+host.Value, op, func(ctx context.Context, ops []*netOp) { p.removeOwnLinks(ctx, c, host, ops) })
	if op.err != nil {
		return fmt.Errorf("delete link %s: %w", in.Address, op.err)
	}
	return nil
}

// withRecords runs f on the switch records of e (a host or distributed
// switch) under the switch lock (lockSwitches); f writes what it changes
// (writeRecord).
func (p *Provider) withRecords(ctx context.Context, c *vim25.Client, e types.ManagedObjectReference, f func(recs map[string]mtuRecord) error) error {
	unlock, err := p.lockSwitches(ctx, c, e)
	if err != nil {
		return err
	}
	defer unlock()
	recs, err := readRecords(ctx, c, e)
	if err != nil {
		return err
	}
	return f(recs)
}
