package vsphere

import (
	"context"
	"fmt"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers/steps"
)

// Create clones the template into the lab's folder, sizes it, gives it one
// NIC of the requested model on the provider's port group (own-switch
// mode: a management NIC there and the benchmark NIC on the pair's own
// port group, addressed over SSH — see addressBenchNIC), tags it, powers
// it on and waits for its address. It runs the named steps of createSteps
// through providers/steps (Packer's multistep is the model), each saying
// what of the creation it uses and produces; an error names the VM and the
// step. Until the clone exists a failed step returns an empty Instance:
// nothing of lab's to record. After, the returned Instance names the VM,
// so the engine records it (tainted) and teardown destroys it — lab's
// pending state plays the part of Packer's Cleanup, so no step has an
// undo: none makes what that Instance does not name.
func (p *Provider) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	c := &creation{p: p, m: m}
	err := steps.Run(ctx, m.Name, c.createSteps())
	return c.in, err
}

// createSteps are Create's steps in order.
func (c *creation) createSteps() []steps.Step {
	return []steps.Step{
		{Name: "check NIC", Run: c.checkNIC},
		{Name: "connect", Run: c.connect},
		{Name: "check placement", Run: c.checkPlacement},
		{Name: "find template", Run: c.findSource},
		{Name: "clear leftover", Run: c.clearLeftover},
		{Name: "clone", Run: c.clone},
		{Name: "configure", Run: c.configure},
		{Name: "power on", Run: c.powerOn},
		{Name: "wait for the IP address", Run: c.waitAddress},
		{Name: "record host", Run: c.recordHost},
	}
}

// creation is what Create's steps share (Packer's state bag).
type creation struct {
	p  *Provider
	m  machine.Machine
	in machine.Instance // empty until the clone exists (clone)

	nicType string // checkNIC
	client  *govmomi.Client
	env     *inventory
	src     *object.VirtualMachine // the template VM (findSource)
	folder  *object.Folder         // the lab's folder (findSource)
	vm      *object.VirtualMachine // the clone (clone)
	ref     types.ManagedObjectReference
	mac     string // own-switch: the benchmark NIC's MAC (powerOn)
	mac2    string // a router's NIC on the client's port group (powerOn)
	macErr  error  // why mac or mac2 could not be read
}

// checkNIC maps the NIC model onto its device type. Uses: m.NIC.Model,
// Capabilities. Produces: nicType.
func (c *creation) checkNIC(context.Context) error {
	var ok bool
	if c.nicType, ok = c.p.nicType(c.m.NIC.Model); !ok {
		return fmt.Errorf("NIC model %q is not one of vmxnet3, e1000e, e1000", c.m.NIC.Model)
	}
	return nil
}

// connect logs in to vCenter (or reuses the session) and resolves the
// provider block's inventory. Produces: client, env.
func (c *creation) connect(ctx context.Context) error {
	var err error
	c.client, c.env, err = c.p.session(ctx)
	return err
}

// checkPlacement checks that the template names a source and that the
// clone can be placed as configured. Uses: m.Template, env, cfg.
func (c *creation) checkPlacement(context.Context) error {
	m := c.m
	if m.Template.Source == "" {
		return fmt.Errorf("template %q has no source (the template VM's name or path)", m.Template.Name)
	}
	return placementCheck(c.env, c.p.cfg)
}

// findSource finds the template VM and the lab's folder (made if need
// be). Uses: env, m. Produces: src, folder.
func (c *creation) findSource(ctx context.Context) error {
	var err error
	if c.src, err = findTemplate(ctx, c.env, c.m.Template.Source); err != nil {
		return err
	}
	c.folder, err = c.p.labFolder(ctx, c.env, c.m.Owner(), true)
	return err
}

// clearLeftover removes a VM of this name in the lab's folder — a
// leftover of a crash before state was written — so the name is free, if
// it carries this lab's and workspace's tag; otherwise it refuses, naming
// it. Uses: folder, env.
func (c *creation) clearLeftover(ctx context.Context) error {
	m := c.m
	old, err := c.p.findInFolder(ctx, c.folder, m.Name)
	if err != nil {
		return err
	}
	if old == nil {
		return nil
	}
	if err := c.p.destroyVM(ctx, old, m.Name, m.Owner(), c.env.drs); err != nil {
		return fmt.Errorf("remove leftover: %w", err)
	}
	return nil
}

// cloneSpec is where the clone goes and the tag it carries from the
// moment it exists (see ownerOption). Uses: env, cfg, src.
func (c *creation) cloneSpec(ctx context.Context) (types.VirtualMachineCloneSpec, error) {
	m, env := c.m, c.env
	spec := types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{},
		Config: &types.VirtualMachineConfigSpec{Annotation: annotation(m.Owner(), m.Address),
			ExtraConfig: []types.BaseOptionValue{&types.OptionValue{Key: ownerOption, Value: m.Owner().Tag(m.Address)}}}}
	pool := env.pool.Reference()
	spec.Location.Pool = &pool
	if env.datastore != nil {
		r := env.datastore.Reference()
		spec.Location.Datastore = &r
	}
	if env.host != nil {
		r := env.host.Reference()
		spec.Location.Host = &r
	}
	if c.p.cfg.LinkedClone {
		snap, err := c.p.snapshot(ctx, c.src)
		if err != nil {
			return spec, fmt.Errorf("from %s: %w", m.Template.Source, err)
		}
		spec.Snapshot = snap
		spec.Location.DiskMoveType = string(types.VirtualMachineRelocateDiskMoveOptionsCreateNewChildDiskBacking)
	}
	return spec, nil
}

// clone clones the template. Uses: src, folder, cloneSpec. Produces: vm,
// ref, in (a failed clone that left a VM of this machine's names it too).
func (c *creation) clone(ctx context.Context) error {
	m := c.m
	spec, err := c.cloneSpec(ctx)
	if err != nil {
		return err
	}
	task, err := c.src.Clone(ctx, c.folder, m.Name, spec)
	var info *types.TaskInfo
	if err == nil {
		info, err = task.WaitForResult(ctx)
	}
	if err != nil {
		c.in = c.cloneLeft(ctx, task)
		return fmt.Errorf("from %s: %w", m.Template.Source, err)
	}
	ref, ok := info.Result.(types.ManagedObjectReference)
	if !ok {
		return fmt.Errorf("from %s: task returned no VM", m.Template.Source)
	}
	c.ref, c.vm = ref, object.NewVirtualMachine(c.client.Client, ref)
	c.in = c.p.instance(ctx, m, ref)
	if afterClone != nil {
		return afterClone(m.Name)
	}
	return nil
}

// cloneLeft is the instance a failed clone left, if any, to record.
// Cancelling ctx does not stop the task in vCenter: it is asked to stop
// and waited for, so a VM it made meanwhile is named for teardown instead
// of appearing after teardown looked. Otherwise the clone may have got far
// enough to leave a VM: one that does not carry this machine's tag (a VM
// someone made meanwhile under this name) is not named: lab never made it.
func (c *creation) cloneLeft(ctx context.Context, task *object.Task) machine.Instance {
	m := c.m
	bg := context.WithoutCancel(ctx)
	if task != nil && ctx.Err() != nil {
		sctx, cancel := context.WithTimeout(bg, CloneSettle)
		defer cancel()
		_ = task.Cancel(sctx) // a task past cancelling finishes; the wait says how
		if done, werr := task.WaitForResult(sctx); werr == nil && done != nil {
			if ref, ok := done.Result.(types.ManagedObjectReference); ok {
				return c.p.instance(bg, m, ref)
			}
		}
	}
	if vm, ferr := c.p.findInFolder(bg, c.folder, m.Name); ferr == nil && vm != nil {
		var o mo.VirtualMachine
		if vm.Properties(bg, vm.Reference(), []string{"name", "config.annotation", "config.extraConfig"}, &o) == nil &&
			ownsVM(m.Owner(), o.Name, vm.Reference().Value, vmTag(o)) == nil {
			return c.p.instance(bg, m, vm.Reference())
		}
	}
	return machine.Instance{}
}

// configure sizes the clone, replaces its NICs, and tags it as the
// provider block asks (custom attribute, tag category), with its
// affinity rule. Uses: vm, env, nicType, folder.
func (c *creation) configure(ctx context.Context) error {
	m, p, vm := c.m, c.p, c.vm
	cs, err := p.configSpec(ctx, vm, c.env, m, c.nicType)
	if err != nil {
		return fmt.Errorf("reconfigure: %w", err)
	}
	if err := wait(ctx, func() (*object.Task, error) { return vm.Reconfigure(ctx, cs) }); err != nil {
		return fmt.Errorf("reconfigure: %w", err)
	}
	if p.cfg.CustomAttribute != "" {
		if err := setField(ctx, vm.Common, p.cfg.CustomAttribute, "VirtualMachine", m.Owner().Tag(m.Address)); err != nil {
			return fmt.Errorf("tag: %w", err)
		}
	}
	if p.cfg.TagCategory != "" {
		if err := p.tagVM(ctx, m.Owner(), c.ref); err != nil {
			return fmt.Errorf("tag: %w", err)
		}
	}
	if p.cfg.KeepTogether && c.env.drs != nil {
		if err := p.keepTogether(ctx, c.env.drs, c.folder, m.Name); err != nil {
			return fmt.Errorf("affinity rule: %w", err)
		}
	}
	return nil
}

// powerOn powers the clone on and, with drs_override, keeps DRS from
// moving it; in own-switch mode it reads the benchmark NIC's MAC
// meanwhile. Uses: vm, env, m.Link. Produces: in.Attrs["drs_override"],
// mac.
func (c *creation) powerOn(ctx context.Context) error {
	m, vm, drs := c.m, c.vm, c.env.drs
	if m.Link.Attrs["mode"] == OwnSwitch {
		// The benchmark NIC's MAC, which addressBenchNIC looks for in the
		// guest, is vSphere's since configure: read it while the VM
		// powers on rather than after.
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.mac, c.macErr = benchNICMAC(ctx, vm, m.Link.Attrs["portgroup"])
			if c.macErr == nil && m.Role == "router" {
				c.mac2, c.macErr = benchNICMAC(ctx, vm, m.Link2.Attrs["portgroup"])
			}
		}()
		defer func() { <-done }()
	}
	if err := wait(ctx, func() (*object.Task, error) { return vm.PowerOn(ctx) }); err != nil {
		return err
	}
	if c.p.cfg.DRSOverride && drs != nil {
		if err := drsOverride(ctx, drs, c.ref, types.ArrayUpdateOperationAdd); err != nil {
			return fmt.Errorf("DRS override: %w", err)
		}
		c.in.Attrs["drs_override"] = drs.Reference().Value
	}
	return nil
}

// waitAddress waits for the guest's address (in own-switch mode: not the
// benchmark NIC's own, which lab then sets over SSH). Uses: vm, m.Link,
// mac. Produces: in.Endpoint's addresses.
func (c *creation) waitAddress(ctx context.Context) error {
	m := c.m
	own := m.Link.Attrs["mode"] == OwnSwitch
	skip := ""
	if own {
		var err error
		if skip, err = linkAddr(m); err != nil {
			return err
		}
		skip += "/24"
	}
	addr, err := c.p.waitForIP(ctx, c.vm, skip)
	if err != nil {
		return err
	}
	c.in.Endpoint.Addr, c.in.Endpoint.SSHHost = addr, addr
	if own {
		if c.macErr != nil {
			return fmt.Errorf("benchmark NIC: %w", c.macErr)
		}
		if err := c.p.addressBenchNIC(ctx, c.mac, c.mac2, m, &c.in); err != nil {
			return fmt.Errorf("benchmark NIC: %w", err)
		}
	}
	return nil
}

// recordHost records the VM's UUID and the ESXi host it runs on, with
// that host's LRO and the reservations, as far as vCenter answers. Uses:
// vm. Produces: in.Attrs uuid, host, host_lro, reservations.
func (c *creation) recordHost(ctx context.Context) error {
	var props mo.VirtualMachine
	if err := c.vm.Properties(ctx, c.ref, []string{"config.uuid", "runtime.host"}, &props); err != nil {
		return nil // only recorded: a machine without them still runs
	}
	if props.Config != nil {
		c.in.Attrs["uuid"] = props.Config.Uuid
	}
	if props.Runtime.Host != nil {
		c.in.Attrs["host"] = props.Runtime.Host.Value
		c.in.Attrs["host_lro"] = hostLRO(ctx, c.client.Client, []types.ManagedObjectReference{*props.Runtime.Host})
		c.in.Attrs["reservations"] = c.p.cfg.reservationSettings()
	}
	return nil
}

// nicType is the govmomi device type of NIC model: Capabilities' NIC
// models are the device types' names, and "" is the first (vmxnet3).
func (p *Provider) nicType(model string) (string, bool) {
	caps := p.Capabilities()
	if !caps.AcceptsNICModel(model) {
		return "", false
	}
	if model == "" {
		return caps.NICModels[0], true
	}
	return model, true
}
