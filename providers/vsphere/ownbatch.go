package vsphere

import (
	"context"
	"fmt"
	"slices"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// The own-switch links of one host are made and removed in batches (see
// hostBatches): per batch one read of the host's network, the switch lock
// held only to read and write the host's record once, and one host
// network change (HostNetworkSystem.UpdateNetworkConfig in "modify" mode,
// which takes any number of vSwitch and port group entries; the vSphere
// API reference, HostNetworkConfig). Removal makes two such changes, port
// groups first and then their vSwitches, as the reference does not say
// in what order one call applies its entries.

const (
	opAdd    = string(types.HostConfigChangeOperationAdd)
	opRemove = string(types.HostConfigChangeOperationRemove)
	modify   = string(types.HostConfigChangeModeModify)
)

// failOps gives err to every op of ops that has no outcome yet.
func failOps(ops []*netOp, err error) {
	for _, op := range ops {
		if op.err == nil {
			op.err = err
		}
	}
}

// pending are the ops of ops without an outcome.
func pending(ops []*netOp) []*netOp {
	return slices.DeleteFunc(slices.Clone(ops), func(op *netOp) bool { return op.err != nil })
}

// makeOwnLinks makes a batch of own-switch links on host. Each link's
// record entry is written before its vSwitch exists (an orphan sweep finds
// whatever a crash leaves); a vSwitch or port group of a link's name that
// the record does not give to that link is refused and left alone.
func (p *Provider) makeOwnLinks(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, ops []*netOp) {
	ns, info, err := hostNetwork(ctx, c, host)
	if err != nil {
		failOps(ops, err)
		return
	}
	if err := p.recordOwnLinks(ctx, c, host, info, ops); err != nil {
		failOps(ops, err)
		return
	}
	var cfg types.HostNetworkConfig
	var todo []*netOp
	for _, op := range pending(ops) {
		if sw := findVSwitch(info, op.sw); sw != nil {
			// Made by an earlier try of this link: still what lab made?
			if err := p.checkIsolated(ctx, c, host, info, sw, op.pg, op.owner); err != nil {
				op.err = err
				continue
			}
		} else {
			// No Bridge: the switch has no uplink, so its traffic never
			// leaves the host.
			cfg.Vswitch = append(cfg.Vswitch, types.HostVirtualSwitchConfig{ChangeOperation: opAdd, Name: op.sw,
				Spec: &types.HostVirtualSwitchSpec{NumPorts: 128, Mtu: int32(op.mtu)}})
		}
		if !hasPortgroup(info, op.pg) {
			cfg.Portgroup = append(cfg.Portgroup, types.HostPortGroupConfig{ChangeOperation: opAdd,
				Spec: &types.HostPortGroupSpec{Name: op.pg, VswitchName: op.sw, Policy: types.HostNetworkPolicy{}}})
		}
		todo = append(todo, op)
	}
	if len(cfg.Vswitch)+len(cfg.Portgroup) > 0 {
		if _, err := ns.UpdateNetworkConfig(ctx, cfg, modify); err != nil {
			for _, op := range todo {
				op.err = fmt.Errorf("add vSwitch %s and port group %s on %s (one host network change for %d links): %w", op.sw, op.pg, host.Value, len(todo), err)
			}
			return
		}
	}
	checkMade(ctx, c, host, todo)
}

// recordOwnLinks writes, under the switch lock, the record entry of every
// op's link that has none, in one write, and marks the ops whose link the
// record gives to them (recorded); it refuses (op.err) a link whose names
// something else on the host carries.
func (p *Provider) recordOwnLinks(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, info *types.HostNetworkInfo, ops []*netOp) error {
	return p.withRecords(ctx, c, host, func(recs map[string]mtuRecord) error {
		var fresh []*netOp
		for _, op := range ops {
			rec, recorded := recs[op.sw]
			switch {
			case recorded && rec.Portgroup == op.pg && contains(rec.Holders, op.holder):
				op.recorded = true
			case findVSwitch(info, op.sw) != nil || hasPortgroup(info, op.pg):
				op.err = notOwnedSwitch(host, op.sw, op.pg, rec, op.owner)
			default:
				recs[op.sw] = mtuRecord{MTU: op.mtu, Holders: []string{op.holder}, Portgroup: op.pg}
				fresh = append(fresh, op)
			}
		}
		if len(fresh) == 0 {
			return nil
		}
		if err := writeRecords(ctx, c, host, recs); err != nil {
			failOps(fresh, fmt.Errorf("record the vSwitches of %s: %w", host.Value, err))
			return nil
		}
		for _, op := range fresh {
			op.recorded = true
		}
		return nil
	})
}

// checkMade reads the host's network back once and checks each op's
// vSwitch and port group are there at the op's MTU, setting the MTU where
// the switch runs at another (setSwitchMTU reads back again).
func checkMade(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, ops []*netOp) {
	if len(ops) == 0 {
		return
	}
	_, info, err := hostNetwork(ctx, c, host)
	if err != nil {
		failOps(ops, err)
		return
	}
	for _, op := range ops {
		sw := findVSwitch(info, op.sw)
		if sw == nil || !hasPortgroup(info, op.pg) {
			op.err = fmt.Errorf("vSphere accepted vSwitch %s and port group %s on %s, but the host does not report them", op.sw, op.pg, host.Value)
			continue
		}
		got := int(sw.Mtu)
		if got == 0 {
			got = defaultMTU
		}
		if got != op.mtu {
			op.err = setSwitchMTU(ctx, c, switchRef{host: host, name: op.sw}, op.mtu)
		}
	}
}

// removeOwnLinks removes a batch of own-switch links from host: each
// link's port group, then its vSwitch, then its record entry — only when
// the host's record gives them to that link and the switch is still
// isolated (see checkIsolated). What is gone is success.
func (p *Provider) removeOwnLinks(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, ops []*netOp) {
	ns, info, err := hostNetwork(ctx, c, host)
	if isNotFound(err) {
		return // the host is gone, and its switches with it
	}
	if err != nil {
		failOps(ops, err)
		return
	}
	// The ownership check reads the records under the switch lock; the
	// switches and port groups are removed outside it.
	err = p.withRecords(ctx, c, host, func(recs map[string]mtuRecord) error {
		for _, op := range ops {
			rec, recorded := recs[op.sw]
			gone := findVSwitch(info, op.sw) == nil && !hasPortgroup(info, op.pg)
			if !(recorded && rec.Portgroup == op.pg && contains(rec.Holders, op.holder) || gone) {
				op.err = notOwnedSwitch(host, op.sw, op.pg, rec, op.owner)
			}
		}
		return nil
	})
	if err != nil {
		failOps(ops, err)
		return
	}
	if err := checkAllIsolated(ctx, c, host, info, pending(ops)); err != nil {
		failOps(ops, err)
		return
	}
	removeHostNet(ctx, ns, host, info, pending(ops))
	// The records go last: until a switch is gone, a sweep can find it.
	err = p.withRecords(ctx, c, host, func(recs map[string]mtuRecord) error {
		changed := false
		for _, op := range pending(ops) {
			rec, ok := recs[op.sw]
			if !ok || !contains(rec.Holders, op.holder) {
				continue
			}
			rec.Holders = slices.DeleteFunc(rec.Holders, func(h string) bool { return h == op.holder })
			if len(rec.Holders) == 0 {
				delete(recs, op.sw)
			} else {
				recs[op.sw] = rec
			}
			changed = true
		}
		if !changed {
			return nil
		}
		if err := writeRecords(ctx, c, host, recs); err != nil {
			return fmt.Errorf("record the vSwitches of %s: %w", host.Value, err)
		}
		return nil
	})
	if err != nil {
		failOps(ops, err)
	}
}

// checkAllIsolated refuses (op.err) each op's vSwitch that is no longer
// what lab made (see checkIsolated), reading the host's VMs once.
func checkAllIsolated(ctx context.Context, c *vim25.Client, host types.ManagedObjectReference, info *types.HostNetworkInfo, ops []*netOp) error {
	var vms []mo.VirtualMachine
	loaded := false
	for _, op := range ops {
		sw := findVSwitch(info, op.sw)
		if sw == nil {
			continue
		}
		if !loaded {
			var err error
			if vms, err = hostVMs(ctx, c, host); err != nil {
				return fmt.Errorf("vSwitch %s on %s: %w", sw.Name, host.Value, err)
			}
			loaded = true
		}
		op.err = isolated(host, info, sw, op.pg, op.owner, vms)
	}
	return nil
}

// removeHostNet removes the ops' port groups in one host network change,
// then their vSwitches in another. When a change fails (one of its entries
// may have been refused), each op's port group and vSwitch are removed by
// themselves, so every op gets its own outcome.
func removeHostNet(ctx context.Context, ns *object.HostNetworkSystem, host types.ManagedObjectReference, info *types.HostNetworkInfo, ops []*netOp) {
	var pgs, sws types.HostNetworkConfig
	for _, op := range ops {
		for _, pg := range info.Portgroup {
			if pg.Spec.Name == op.pg {
				pgs.Portgroup = append(pgs.Portgroup, types.HostPortGroupConfig{ChangeOperation: opRemove, Spec: &pg.Spec})
			}
		}
		if findVSwitch(info, op.sw) != nil {
			sws.Vswitch = append(sws.Vswitch, types.HostVirtualSwitchConfig{ChangeOperation: opRemove, Name: op.sw})
		}
	}
	batch := func(cfg types.HostNetworkConfig) bool {
		if len(cfg.Portgroup)+len(cfg.Vswitch) == 0 {
			return true
		}
		_, err := ns.UpdateNetworkConfig(ctx, cfg, modify)
		return err == nil
	}
	if batch(pgs) && batch(sws) {
		return
	}
	for _, op := range ops {
		if hasPortgroup(info, op.pg) {
			if err := ns.RemovePortGroup(ctx, op.pg); err != nil && !isNotFound(err) {
				op.err = fmt.Errorf("remove port group %s on %s: %w", op.pg, host.Value, err)
				continue
			}
		}
		if findVSwitch(info, op.sw) != nil {
			if err := ns.RemoveVirtualSwitch(ctx, op.sw); err != nil && !isNotFound(err) {
				op.err = fmt.Errorf("remove vSwitch %s on %s: %w", op.sw, host.Value, err)
			}
		}
	}
}
