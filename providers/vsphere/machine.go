package vsphere

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// CloneSettle bounds the wait for a clone task to end after its create
// was cancelled (see Create).
var CloneSettle = 2 * time.Minute

// afterClone, when set (by tests only), runs between the clone and the
// reconfigure that writes the annotation: a non-nil error stops Create
// there, as an interrupt or a crash would (see TestInterruptAfterClone).
var afterClone func(name string) error

// placementCheck is whether clones can be placed at all, and placed as
// drs_override and keep_together ask: Link runs it before it changes any
// switch, Create before it clones. Without a cluster with DRS on, those
// two would do nothing, so they are refused rather than ignored.
func placementCheck(env *inventory, cfg Config) error {
	if env.noDRS != "" {
		return fmt.Errorf("cluster %s has DRS off, so vCenter cannot choose a host for the clone: set host in the provider block", env.noDRS)
	}
	for _, a := range []struct {
		name string
		set  bool
	}{{"drs_override", cfg.DRSOverride}, {"keep_together", cfg.KeepTogether}} {
		if a.set && env.drs == nil {
			return fmt.Errorf("%s acts through DRS, and the placement (cluster %q, resource_pool %q) is no cluster with DRS on: name a DRS cluster in cluster, or remove %s",
				a.name, cfg.Cluster, cfg.ResourcePool, a.name)
		}
	}
	return nil
}

// drsOverride adds (or removes) a VM's DRS override "disabled" in its
// cluster: DRS neither moves nor recommends moving it.
func drsOverride(ctx context.Context, cl *object.ClusterComputeResource, vm types.ManagedObjectReference, op types.ArrayUpdateOperation) error {
	spec := types.ClusterDrsVmConfigSpec{ArrayUpdateSpec: types.ArrayUpdateSpec{Operation: op}}
	if op == types.ArrayUpdateOperationRemove {
		spec.RemoveKey = vm
	} else {
		spec.Info = &types.ClusterDrsVmConfigInfo{Key: vm, Enabled: types.NewBool(false)}
	}
	return wait(ctx, func() (*object.Task, error) {
		return cl.Reconfigure(ctx, &types.ClusterConfigSpecEx{DrsVmConfigSpec: []types.ClusterDrsVmConfigSpec{spec}}, true)
	})
}

// instance is what state records about a machine once its VM exists.
func (p *Provider) instance(ctx context.Context, m machine.Machine, ref types.ManagedObjectReference) machine.Instance {
	nicModel, _ := p.nicType(m.NIC.Model)
	attrs := map[string]string{
		"lab_id": m.LabID, "moref": ref.Value, "role": m.Role, "source": m.Template.Source, "nic_model": nicModel,
	}
	var login machine.Login
	if s := m.Template.SSH; s != nil {
		login = *s
	}
	ep := providers.SSHEndpoint("", login)
	ep.Iface = p.cfg.guestIface(m.Template)
	if id, err := p.TemplateID(ctx, m); err == nil {
		ep.TemplateID = id
	}
	return machine.Instance{Address: m.Address, Provider: TypeName, Kind: "machine", ID: ref.Value, Name: m.Name, Owner: m.Owner(),
		Attrs: attrs, Endpoint: ep}
}

// configSpec sizes the clone, replaces its NICs and tags it.
func (p *Provider) configSpec(ctx context.Context, vm *object.VirtualMachine, env *inventory, m machine.Machine, nicType string) (types.VirtualMachineConfigSpec, error) {
	cs := types.VirtualMachineConfigSpec{Annotation: annotation(m.Owner(), m.Address)}
	if m.VCPU > 0 {
		cs.NumCPUs = int32(m.VCPU)
		cores := p.cfg.CoresPerSocket
		if cores == 0 || cores > m.VCPU {
			cores = m.VCPU
		}
		if m.VCPU%cores != 0 {
			return cs, fmt.Errorf("%d vCPUs do not divide into sockets of %d cores (cores_per_socket)", m.VCPU, cores)
		}
		cs.NumCoresPerSocket = types.NewInt32(int32(cores))
	}
	if m.MemoryMiB > 0 {
		cs.MemoryMB = int64(m.MemoryMiB)
	}
	p.cfg.reservations(&cs)
	devices, err := vm.Device(ctx)
	if err != nil {
		return cs, fmt.Errorf("read devices: %w", err)
	}
	nics := devices.SelectByType((*types.VirtualEthernetCard)(nil))
	remove, err := nics.ConfigSpec(types.VirtualDeviceConfigSpecOperationRemove)
	if err != nil {
		return cs, err
	}
	cs.DeviceChange = append(cs.DeviceChange, remove...)
	if env.network == nil {
		return cs, fmt.Errorf("the provider block names no network (port group) for the benchmark NIC")
	}
	backing, err := env.network.EthernetCardBackingInfo(ctx)
	if err != nil {
		return cs, fmt.Errorf("network %s: %w", p.cfg.Network, err)
	}
	var mgmtNIC object.VirtualDeviceList
	if pg := m.Link.Attrs["portgroup"]; m.Link.Attrs["mode"] == OwnSwitch {
		// Own-switch: the management NIC (first, so the guest names it
		// first and configures it as the template does) on network, and
		// the benchmark NIC on the pair's own port group.
		mgmt, err := object.EthernetCardTypes().CreateEthernetCard("vmxnet3", backing)
		if err != nil {
			return cs, err
		}
		own, err := env.finder.Network(ctx, pg)
		if err != nil {
			return cs, fmt.Errorf("port group %s: %w", pg, err)
		}
		if backing, err = own.EthernetCardBackingInfo(ctx); err != nil {
			return cs, fmt.Errorf("port group %s: %w", pg, err)
		}
		mgmtNIC = append(mgmtNIC, mgmt)
	}
	nic, err := object.EthernetCardTypes().CreateEthernetCard(nicType, backing)
	if err != nil {
		return cs, err
	}
	benchNICs := object.VirtualDeviceList{nic}
	if m.Role == "router" {
		// A routed pair's router: a second benchmark NIC, on the
		// client's own port group (routed.go).
		nic2, err := p.ownNIC(ctx, env, m.Link2.Attrs["portgroup"], nicType)
		if err != nil {
			return cs, err
		}
		benchNICs = append(benchNICs, nic2)
	}
	add, err := append(mgmtNIC, benchNICs...).ConfigSpec(types.VirtualDeviceConfigSpecOperationAdd)
	if err != nil {
		return cs, err
	}
	cs.DeviceChange = append(cs.DeviceChange, add...)
	for _, k := range slices.Sorted(maps.Keys(p.cfg.ExtraConfig)) {
		cs.ExtraConfig = append(cs.ExtraConfig, &types.OptionValue{Key: k, Value: expand(p.cfg.ExtraConfig[k], m)})
	}
	return cs, nil
}

// ownNIC is a NIC of device type nicType on own-switch port group pg.
func (p *Provider) ownNIC(ctx context.Context, env *inventory, pg, nicType string) (types.BaseVirtualDevice, error) {
	if pg == "" {
		return nil, fmt.Errorf("the router's second link records no port group (own-switch mode makes one per link)")
	}
	own, err := env.finder.Network(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("port group %s: %w", pg, err)
	}
	backing, err := own.EthernetCardBackingInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("port group %s: %w", pg, err)
	}
	return object.EthernetCardTypes().CreateEthernetCard(nicType, backing)
}

// expand fills the placeholders of an extra_config value.
func expand(s string, m machine.Machine) string {
	roleIndex := map[string]string{"server": "1", "client": "2", "router": "3"}[m.Role]
	index := m.Link.Attrs["index"]
	return strings.NewReplacer("{name}", m.Name, "{role}", m.Role, "{pair}", m.Pair, "{lab}", m.LabID,
		"{index}", index, "{role_index}", roleIndex).Replace(s)
}

// snapshot returns the template snapshot a linked clone is made from.
func (p *Provider) snapshot(ctx context.Context, src *object.VirtualMachine) (*types.ManagedObjectReference, error) {
	if p.cfg.Snapshot != "" {
		s, err := src.FindSnapshot(ctx, p.cfg.Snapshot)
		if err != nil {
			return nil, fmt.Errorf("linked clone: snapshot %q: %w", p.cfg.Snapshot, err)
		}
		return s, nil
	}
	var o mo.VirtualMachine
	if err := src.Properties(ctx, src.Reference(), []string{"snapshot"}, &o); err != nil {
		return nil, fmt.Errorf("linked clone: read snapshots: %w", err)
	}
	if o.Snapshot == nil || o.Snapshot.CurrentSnapshot == nil {
		return nil, fmt.Errorf("linked clone: the source has no snapshot (take one, or set linked_clone = false)")
	}
	return o.Snapshot.CurrentSnapshot, nil
}

// waitForIP waits until VMware Tools reports a usable IPv4 address: not
// link-local, not loopback, not in ignored_ip_ranges. It does not wait for
// a default gateway (FreeBSD's open-vm-tools report none).
//
// skip, when set, is one more CIDR to pass over: in own-switch mode the
// pair's benchmark network (the address wanted is the management NIC's).
func (p *Provider) waitForIP(ctx context.Context, vm *object.VirtualMachine, skip string) (string, error) {
	var ignored []*net.IPNet
	ranges := p.cfg.IgnoredIPRanges
	if skip != "" {
		ranges = append(slices.Clone(ranges), skip)
	}
	for _, r := range ranges {
		if _, n, err := net.ParseCIDR(r); err == nil {
			ignored = append(ignored, n)
		}
	}
	usable := func(s string) bool {
		ip := net.ParseIP(s)
		if ip == nil || ip.To4() == nil || ip.IsLinkLocalUnicast() || ip.IsLoopback() || ip.IsUnspecified() {
			return false
		}
		for _, n := range ignored {
			if n.Contains(ip) {
				return false
			}
		}
		return true
	}
	timeout := p.cfg.ipTimeout()
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var primary string
	var nets []types.GuestNicInfo
	var found string
	pc := property.DefaultCollector(vm.Client())
	err := property.Wait(wctx, pc, vm.Reference(), []string{"guest.ipAddress", "guest.net"}, func(changes []types.PropertyChange) bool {
		for _, ch := range changes {
			switch ch.Name {
			case "guest.ipAddress":
				primary, _ = ch.Val.(string)
			case "guest.net":
				if v, ok := ch.Val.(types.ArrayOfGuestNicInfo); ok {
					nets = v.GuestNicInfo
				}
			}
		}
		if usable(primary) {
			found = primary
			return true
		}
		for _, n := range nets {
			for _, a := range n.IpAddress {
				if usable(a) {
					found = a
					return true
				}
			}
		}
		return false
	})
	if err == nil && found == "" {
		// govmomi's WaitForUpdatesEx returns nil when its context ends.
		err = wctx.Err()
	}
	if err != nil {
		if wctx.Err() != nil && ctx.Err() == nil {
			return "", fmt.Errorf("VMware Tools reported no usable IPv4 address within %s (ip_timeout; last seen %q)", timeout, primary)
		}
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr
		}
		return "", err
	}
	if found == "" {
		return "", fmt.Errorf("VMware Tools reported no usable IPv4 address (last seen %q)", primary)
	}
	return found, nil
}

// wait runs a task-starting call and waits for the task.
func wait(ctx context.Context, start func() (*object.Task, error)) error {
	t, err := start()
	if err != nil {
		return err
	}
	return t.Wait(ctx)
}

// labFolder returns o's VM folder, making (and tagging) it when create is
// set; nil when it does not exist and create is not set.
func (p *Provider) labFolder(ctx context.Context, env *inventory, o machine.Owner, create bool) (*object.Folder, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	name := FolderName(o)
	f, err := p.findFolder(ctx, env.baseFolder, name)
	if err != nil || f != nil || !create {
		return f, err
	}
	f, err = env.baseFolder.CreateFolder(ctx, name)
	if fault.Is(err, &types.DuplicateName{}) {
		// Another provider block of the lab (pairs pinned to different
		// hosts) made it meanwhile: p.mu is per block. It tags it.
		if f, ferr := p.findFolder(ctx, env.baseFolder, name); ferr == nil && f != nil {
			return f, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("create folder %s: %w", name, err)
	}
	if err := setField(ctx, f.Common, ownerField, "Folder", o.Tag("folder")); err != nil {
		return f, fmt.Errorf("tag folder %s: %w", name, err)
	}
	return f, nil
}

func (p *Provider) findFolder(ctx context.Context, parent *object.Folder, name string) (*object.Folder, error) {
	refs, err := childrenNamed(ctx, parent, "Folder", name)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	return object.NewFolder(parent.Client(), refs[0]), nil
}

// findInFolder returns the VM of that name in folder, or nil.
func (p *Provider) findInFolder(ctx context.Context, folder *object.Folder, name string) (*object.VirtualMachine, error) {
	refs, err := childrenNamed(ctx, folder, "VirtualMachine", name)
	if err != nil || len(refs) == 0 {
		return nil, err
	}
	return object.NewVirtualMachine(folder.Client(), refs[0]), nil
}

// childrenNamed lists a folder's direct children of a type and name
// (every child of the type when name is empty). It reads them in one
// traversal from the folder, so a child another delete removes meanwhile
// is simply absent (reading childEntity and then the children's names
// failed with ManagedObjectNotFound when two pending machines were
// destroyed at once); a folder that is gone has no children.
func childrenNamed(ctx context.Context, folder *object.Folder, kind, name string) ([]types.ManagedObjectReference, error) {
	req := types.RetrieveProperties{SpecSet: []types.PropertyFilterSpec{{
		ObjectSet: []types.ObjectSpec{{Obj: folder.Reference(), Skip: types.NewBool(true),
			SelectSet: []types.BaseSelectionSpec{&types.TraversalSpec{Type: "Folder", Path: "childEntity", Skip: types.NewBool(false)}}}},
		PropSet: []types.PropertySpec{{Type: kind, PathSet: []string{"name"}}},
	}}}
	res, err := property.DefaultCollector(folder.Client()).RetrieveProperties(ctx, req)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list folder %s: %w", folder.Reference().Value, err)
	}
	var out []types.ManagedObjectReference
	for _, oc := range res.Returnval {
		if oc.Obj.Type != kind {
			continue
		}
		for _, p := range oc.PropSet {
			if p.Name == "name" && (name == "" || p.Val == name) {
				out = append(out, oc.Obj)
			}
		}
	}
	return out, nil
}

// Read reports whether the VM (or the port group of a link) still exists.
func (p *Provider) Read(ctx context.Context, in machine.Instance) (machine.Instance, bool, error) {
	_, env, err := p.session(ctx)
	if err != nil {
		return in, false, err
	}
	if in.Kind == "link" {
		ok, err := p.readLink(ctx, env.baseFolder.Client(), env, in)
		return in, ok, err
	}
	vm, err := p.locate(ctx, env, in)
	if err != nil || vm == nil {
		return in, false, err
	}
	var o mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"runtime.powerState"}, &o); err != nil {
		if isNotFound(err) {
			return in, false, nil
		}
		return in, false, err
	}
	return in, o.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn, nil
}

// Delete powers a VM off and destroys it, then removes the lab's folder
// when it is empty; for a link it releases the switches it holds (the
// last holder restores the MTU). A VM that is gone is success. A VM
// without the instance owner's exact tag is never touched.
func (p *Provider) Delete(ctx context.Context, in machine.Instance) error {
	if ws := ownerOf(in).Workspace; strings.ContainsAny(ws, "*?[") {
		return fmt.Errorf("delete %s: workspace %q is a pattern: lab deletes only objects of one named workspace", in.Name, ws)
	}
	c, env, err := p.session(ctx)
	if err != nil {
		return fmt.Errorf("delete %s: %w", in.Name, err)
	}
	if in.Kind == "link" {
		if err := p.deleteLink(ctx, c.Client, in); err != nil {
			return err
		}
		if err := p.dropDefinitions(ctx, c.Client); err != nil {
			return fmt.Errorf("delete %s: %w", in.Name, err)
		}
		return nil
	}
	vm, err := p.locate(ctx, env, in)
	if err != nil {
		return fmt.Errorf("delete %s: %w", in.Name, err)
	}
	owner := ownerOf(in)
	if vm != nil {
		if err := p.destroyVM(ctx, vm, in.Name, owner, env.drs); err != nil {
			return err
		}
	}
	if owner.Lab == "" {
		return nil
	}
	if err := p.removeFolderIfEmpty(ctx, env, owner); err != nil {
		return err
	}
	if p.cfg.TagCategory != "" && owner.Workspace != "" {
		if err := p.dropTag(ctx, owner); err != nil {
			return fmt.Errorf("delete %s: %w", in.Name, err)
		}
	}
	// The workspace's last machine is gone with its folder: remove the
	// custom attribute definitions lab made that nothing uses any more.
	if f, err := p.findFolder(ctx, env.baseFolder, FolderName(owner)); err != nil || f != nil {
		return err
	}
	if err := dropUnusedDefinitions(ctx, c.Client); err != nil {
		return fmt.Errorf("delete %s: %w", in.Name, err)
	}
	return nil
}

// locate finds a machine's VM: by managed object id when state has one
// (and the name still matches), else by name in the lab's folder (a
// machine recorded only as pending). nil: gone.
func (p *Provider) locate(ctx context.Context, env *inventory, in machine.Instance) (*object.VirtualMachine, error) {
	client := env.baseFolder.Client()
	if id := in.ID; id != "" {
		vm := object.NewVirtualMachine(client, types.ManagedObjectReference{Type: "VirtualMachine", Value: id})
		var o mo.VirtualMachine
		err := vm.Properties(ctx, vm.Reference(), []string{"name"}, &o)
		switch {
		case err == nil && (in.Name == "" || o.Name == in.Name):
			return vm, nil
		case err != nil && !isNotFound(err):
			return nil, err
		}
	}
	owner := ownerOf(in)
	if owner.Lab == "" || in.Name == "" {
		return nil, nil
	}
	folder, err := p.labFolder(ctx, env, owner, false)
	if err != nil || folder == nil {
		return nil, err
	}
	return p.findInFolder(ctx, folder, in.Name)
}

// destroyVM powers off and destroys a VM made by lab for owner; a VM
// without owner's exact tag (an empty annotation included) is refused.
//
// drs, when set, is the VM's cluster with DRS on: the VM's DRS override
// (drs_override) and its pair's affinity rule (keep_together) are removed
// first; ones already gone are fine.
func (p *Provider) destroyVM(ctx context.Context, vm *object.VirtualMachine, name string, owner machine.Owner, drs *object.ClusterComputeResource) error {
	var o mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"name", "config.annotation", "config.extraConfig", "runtime.powerState", "recentTask"}, &o); err != nil {
		if isNotFound(err) {
			return nil
		}
		return fmt.Errorf("destroy %s: %w", name, err)
	}
	if err := ownsVM(owner, o.Name, vm.Reference().Value, vmTag(o)); err != nil {
		return fmt.Errorf("destroy %s: %w", name, err)
	}
	if p.cfg.KeepTogether && drs != nil {
		if err := p.dropRule(ctx, drs, o.Name); err != nil {
			return fmt.Errorf("remove the affinity rule of %s: %w", o.Name, err)
		}
	}
	if p.cfg.DRSOverride && drs != nil {
		err := drsOverride(ctx, drs, vm.Reference(), types.ArrayUpdateOperationRemove)
		if err != nil && !fault.Is(err, &types.InvalidArgument{}) && !isNotFound(err) {
			return fmt.Errorf("remove the DRS override of %s: %w", o.Name, err)
		}
	}
	// A task still running on the VM (a power-on an interrupted Create
	// started) would power it on after the power state was read, and the
	// destroy would then fail with InvalidPowerState, leaving it running:
	// let such tasks end first.
	settleTasks(ctx, vm.Client(), o.RecentTask)
	for try := 1; ; try++ {
		err := p.powerOffAndDestroy(ctx, vm)
		if err == nil || isNotFound(err) {
			return nil
		}
		if try == 3 || !fault.Is(err, &types.InvalidPowerState{}) {
			return fmt.Errorf("destroy %s: %w", o.Name, err)
		}
	}
}

// powerOffAndDestroy reads a VM's power state, powers it off when it is
// on and destroys it.
func (p *Provider) powerOffAndDestroy(ctx context.Context, vm *object.VirtualMachine) error {
	var o mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"runtime.powerState", "recentTask"}, &o); err != nil {
		return err
	}
	settleTasks(ctx, vm.Client(), o.RecentTask)
	if o.Runtime.PowerState == types.VirtualMachinePowerStatePoweredOn || o.Runtime.PowerState == types.VirtualMachinePowerStateSuspended {
		err := wait(ctx, func() (*object.Task, error) { return vm.PowerOff(ctx) })
		if err != nil && !isNotFound(err) && !fault.Is(err, &types.InvalidPowerState{}) {
			return fmt.Errorf("power off: %w", err)
		}
	}
	return wait(ctx, func() (*object.Task, error) { return vm.Destroy(ctx) })
}

// settleTasks waits (at most CloneSettle) for those of tasks that are
// queued or running to end; how they end is theirs to report.
func settleTasks(ctx context.Context, c *vim25.Client, tasks []types.ManagedObjectReference) {
	if len(tasks) == 0 {
		return
	}
	var infos []mo.Task
	if err := property.DefaultCollector(c).Retrieve(ctx, tasks, []string{"info.state"}, &infos); err != nil {
		return // tasks vCenter forgot meanwhile have ended
	}
	sctx, cancel := context.WithTimeout(ctx, CloneSettle)
	defer cancel()
	for _, t := range infos {
		if t.Info.State == types.TaskInfoStateQueued || t.Info.State == types.TaskInfoStateRunning {
			_ = object.NewTask(c, t.Self).Wait(sctx) // its failure is not this destroy's
		}
	}
}

// removeFolderIfEmpty removes owner's folder once nothing is in it and
// it carries owner's tag; a folder of that name without the tag is left
// alone, quietly (it is empty, and a Delete that removed its machine
// succeeded). A folder of lab 0.1, whose owner names no
// workspace, carries none; an endpoint without custom attributes cannot
// tag, and its folder's name holds the workspace id).
func (p *Provider) removeFolderIfEmpty(ctx context.Context, env *inventory, owner machine.Owner) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	name := FolderName(owner)
	f, err := p.findFolder(ctx, env.baseFolder, name)
	if err != nil || f == nil {
		return err
	}
	var o mo.Folder
	if err := f.Properties(ctx, f.Reference(), []string{"childEntity"}, &o); err != nil {
		if isNotFound(err) {
			return nil
		}
		return fmt.Errorf("remove folder %s: %w", name, err)
	}
	if len(o.ChildEntity) > 0 {
		return nil
	}
	if owner.Workspace != "" {
		tag, ok, err := getField(ctx, f.Common, ownerField)
		if isNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("remove folder %s: read its tag: %w", name, err)
		}
		if ok && !owner.Owns(tag) {
			return nil // not made by lab (or not for owner): an empty folder is left where it is
		}
	}
	if err := wait(ctx, func() (*object.Task, error) { return f.Destroy(ctx) }); err != nil && !isNotFound(err) {
		return fmt.Errorf("remove folder %s: %w", name, err)
	}
	return nil
}

// List finds every VM whose tag (annotation, or the owner option a clone
// is born with: see vmTag) names o (lab and workspace; for an owner
// without a workspace, lab 0.1's exact lab id), and every link of o that
// a switch's MTU record still names. Each instance carries the owner its
// own tag names — with o.Workspace AnyWorkspace, the real workspace of
// each object, never "*".
func (p *Provider) List(ctx context.Context, o machine.Owner) ([]machine.Instance, error) {
	c, _, err := p.session(ctx)
	if err != nil {
		return nil, err
	}
	m := view.NewManager(c.Client)
	v, err := m.CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, fmt.Errorf("list VMs: %w", err)
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }() // a view left behind ends with the session
	var vms []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, []string{"name", "config.annotation", "config.extraConfig"}, &vms); err != nil {
		return nil, fmt.Errorf("list VMs: %w", err)
	}
	var out []machine.Instance
	for _, vm := range vms {
		ann := vmTag(vm)
		if vm.Config == nil || !listed(o, ann) {
			continue
		}
		tag, _ := annotationTag(ann)
		owner, addr, ok := machine.ParseTag(tag)
		if !ok {
			owner = o // lab 0.1's tag names no workspace
		}
		out = append(out, machine.Instance{Address: addr, Provider: TypeName, Kind: "machine", ID: vm.Self.Value, Name: vm.Name, Owner: owner,
			Attrs: map[string]string{"lab_id": owner.Lab, "moref": vm.Self.Value}})
	}
	links, err := listLinks(ctx, c.Client, o)
	return append(out, links...), err
}

// listed reports whether a VM tagged ann is one List(o) reports: o's
// own (see ownsVM), or with o.Workspace AnyWorkspace any workspace's of
// o's lab.
func listed(o machine.Owner, ann string) bool {
	if o.Workspace == machine.AnyWorkspace {
		tag, _ := annotationTag(ann)
		return o.Owns(tag)
	}
	return ownsVM(o, "", "", ann) == nil
}

func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	if fault.Is(err, &types.ManagedObjectNotFound{}) || fault.Is(err, &types.NotFound{}) {
		return true
	}
	return strings.Contains(err.Error(), "has already been deleted or has not been completely created")
}
