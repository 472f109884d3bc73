package bhyve

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Paths of a raw-mode VM on the host.
func pidFile(vm string) string { return "/var/run/" + vm + ".pid" }
func logFile(vm string) string { return "/var/log/" + vm + ".log" }

// Slots of the raw-mode VM's PCI devices: the (first) NIC at slot 5 makes
// a Linux guest call it enp0s5; further NICs (management_switch) take the
// slots after it.
const (
	diskSlot      = "4"
	nicSlotNumber = 5
)

// linkRaw creates a bridge for the pair, described with the owner's tag,
// at the link's MTU, with the uplink as a member. The first member of a
// bridge defines its MTU (sys/net/if_bridge.c, bridge_ioctl_add: "Allow
// the first Ethernet member to define the MTU"), whatever MTU the empty
// bridge was given, and later members are held to it: the uplink gets
// the link's MTU before it joins (recorded, restored when the link goes),
// or else a 1500-byte uplink would pull the bridge and every tap to 1500.
func (p *Provider) linkRaw(ctx context.Context, l providers.LinkSpec, in machine.Instance) (machine.Instance, error) {
	desc := linkDesc(machine.Instance{Name: l.Name, Address: l.Address, Owner: l.Owner()})
	if err := p.deleteBridge(ctx, desc); err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: remove leftover bridge: %w", l.Address, err)
	}
	if p.cfg.Uplink != "" {
		if err := p.prepareUplink(ctx, l.Address, in.Attrs); err != nil {
			return machine.Instance{}, err
		}
	}
	// One ifconfig creates the bridge and describes it (owner.go): the
	// kernel picks its name, so an untagged bridge could never be found.
	argv := []string{"ifconfig", "bridge", "create", "description", desc}
	if l.MTU > 0 {
		argv = append(argv, "mtu", strconv.Itoa(l.MTU))
	}
	out, err := p.run(ctx, append(argv, "up")...)
	if br := strings.TrimSpace(out); ifaceRE.MatchString(br) {
		in.ID, in.Attrs["bridge"] = br, br // made, even if a later argument failed
	}
	if err != nil {
		return in, fmt.Errorf("link %s: %w", l.Address, err)
	}
	br := strings.TrimSpace(out)
	if !ifaceRE.MatchString(br) {
		return in, fmt.Errorf("link %s: ifconfig bridge create printed %q, not an interface name", l.Address, truncate(br, 40))
	}
	if l.MTU > 0 {
		in.Attrs["mtu"] = strconv.Itoa(l.MTU)
	}
	if p.cfg.Uplink != "" {
		if l.MTU > 0 && in.Attrs["uplink_mtu"] != strconv.Itoa(l.MTU) {
			if _, err := p.run(ctx, "ifconfig", p.cfg.Uplink, "mtu", strconv.Itoa(l.MTU)); err != nil {
				return in, fmt.Errorf("link %s: uplink %s cannot take MTU %d: %w", l.Address, p.cfg.Uplink, l.MTU, err)
			}
		}
		if _, err := p.run(ctx, "ifconfig", br, "addm", p.cfg.Uplink); err != nil {
			return in, fmt.Errorf("link %s: %w", l.Address, err)
		}
	}
	return in, nil
}

// deleteBridge destroys the bridges described desc.
func (p *Provider) deleteBridge(ctx context.Context, desc string) error {
	brs, err := p.interfacesDescribed(ctx, desc)
	for _, br := range brs {
		if _, err := p.run(ctx, "ifconfig", br, "destroy"); err != nil {
			return err
		}
	}
	return err
}

// createRaw clones the template zvol, makes the machine's tap on the
// pair's bridge (with management_switch: a tap per NIC, vmNICs), loads the guest (bhyveload for FreeBSD, UEFI for others)
// and starts bhyve under daemon(8).
func (p *Provider) createRaw(ctx context.Context, m machine.Machine, in machine.Instance) error {
	vm, ds := in.Attrs["vm"], p.cfg.Datastore
	snap := ds + "/" + m.Template.Source + "@" + vm
	disk := ds + "/" + vm
	tag := m.Owner().Tag(m.Address)
	prop := ownerProp + "=" + tag
	if _, err := p.run(ctx, "zfs", "snapshot", "-o", prop, snap); err != nil {
		return fmt.Errorf("snapshot %s: %w", snap, err)
	}
	if _, err := p.run(ctx, "zfs", "clone", "-o", prop, snap, disk); err != nil {
		return fmt.Errorf("clone %s: %w", disk, err)
	}
	nics, err := p.vmNICs(m, vm, "bridge")
	if err != nil {
		return err
	}
	for i, n := range nics {
		tap, err := p.makeTap(ctx, tapDesc(m.Owner(), m.Address, vm), n)
		if err != nil {
			return err
		}
		in.Attrs[tapAttr(i)] = tap
	}
	zvol := "/dev/zvol/" + disk
	mem := strconv.Itoa(max(m.MemoryMiB, 256)) + "M"
	if guest.For(m.Template.OS).BhyveLoad {
		if _, err := p.run(ctx, "bhyveload", "-m", mem, "-e", "autoboot_delay=0", "-d", zvol, vm); err != nil {
			return fmt.Errorf("bhyveload: %w", err)
		}
	}
	if _, err := p.run(ctx, append([]string{"daemon", "-p", pidFile(vm), "-o", logFile(vm)}, p.bhyveArgv(m, in, zvol, mem)...)...); err != nil {
		return fmt.Errorf("start bhyve: %w", err)
	}
	return nil
}

// tapAttr is the attr recording a raw-mode VM's tap of NIC i.
func tapAttr(i int) string {
	if i == 0 {
		return "tap"
	}
	return "tap" + strconv.Itoa(i)
}

// makeTap makes a tap described desc (owner.go) for NIC n, at n's MTU,
// and adds it to n's bridge. One ifconfig creates the tap and describes
// it: the kernel picks its name, so an untagged tap could never be found.
func (p *Provider) makeTap(ctx context.Context, desc string, n vmNIC) (string, error) {
	if !anyIfRE.MatchString(n.sw) {
		return "", fmt.Errorf("bridge %q is not an interface name", n.sw)
	}
	argv := []string{"ifconfig", "tap", "create", "description", desc}
	if n.mtu != "" {
		argv = append(argv, "mtu", n.mtu)
	}
	out, err := p.run(ctx, append(argv, "up")...)
	if err != nil {
		return "", err
	}
	tap := strings.TrimSpace(out)
	if !ifaceRE.MatchString(tap) {
		return "", fmt.Errorf("ifconfig tap create printed %q, not an interface name", truncate(tap, 40))
	}
	if _, err := p.run(ctx, "ifconfig", n.sw, "addm", tap); err != nil {
		return tap, err
	}
	return tap, nil
}

// bhyveArgv is the bhyve command line of a raw-mode VM: a virtio-net
// device per tap, from slot 5 on.
func (p *Provider) bhyveArgv(m machine.Machine, in machine.Instance, zvol, mem string) []string {
	argv := []string{"bhyve", "-c", strconv.Itoa(max(m.VCPU, 1)), "-m", mem, "-A", "-H", "-P",
		"-s", "0,hostbridge", "-s", "1,lpc", "-s", diskSlot + ",virtio-blk," + zvol}
	nics, _ := p.vmNICs(m, in.Attrs["vm"], "bridge") // createRaw made their taps
	for i, n := range nics {
		nic := "virtio-net," + in.Attrs[tapAttr(i)] + ",mac=" + n.mac
		if n.mtu != "" {
			nic += ",mtu=" + n.mtu
		}
		argv = append(argv, "-s", strconv.Itoa(nicSlotNumber+i)+","+nic)
	}
	if !guest.For(m.Template.OS).BhyveLoad {
		argv = append(argv, "-l", "bootrom,"+p.cfg.Firmware)
	}
	return append(argv, in.Attrs["vm"])
}

// deleteRaw powers the VM off and destroys it in vmm, then removes its
// taps (described with tapDesc), its zvol clone and the template snapshot it
// was cloned from — each only when it exists, so a half-made VM is
// cleaned up too, and only when the clone carries o's tag: without the
// clone, a VM of that name in vmm has nothing to prove whose it is.
func (p *Provider) deleteRaw(ctx context.Context, vm, address string, o machine.Owner) error {
	exists, err := p.checkMachine(ctx, vm, o, false)
	if err != nil {
		return err
	}
	ok, err := p.vmmExists(ctx, vm)
	if err != nil {
		return err
	}
	if ok {
		if !exists {
			if err := owned(o, "bhyve VM", vm, ""); err != nil {
				return err
			}
		}
		// A VM that is not running refuses the power-off: the destroy decides.
		_, _ = p.run(ctx, "bhyvectl", "--vm="+vm, "--force-poweroff")
		if _, err := p.run(ctx, "bhyvectl", "--vm="+vm, "--destroy"); err != nil {
			return err
		}
	}
	if _, err := p.run(ctx, "rm", "-f", pidFile(vm)); err != nil {
		return err
	}
	if err := p.deleteBridge(ctx, tapDesc(o, address, vm)); err != nil {
		return err
	}
	if exists {
		if _, err := p.run(ctx, "zfs", "destroy", p.cfg.Datastore+"/"+vm); err != nil {
			return err
		}
	}
	return p.destroySnapshots(ctx, vm, o) // after the clone that depends on it
}

// vmmExists reports whether vm is in /dev/vmm (a VM bhyve knows).
func (p *Provider) vmmExists(ctx context.Context, vm string) (bool, error) {
	names, err := p.vmmNames(ctx)
	for _, n := range names {
		if n == vm {
			return true, nil
		}
	}
	return false, err
}

func (p *Provider) vmmNames(ctx context.Context) ([]string, error) {
	out, err := p.run(ctx, "ls", "/dev/vmm")
	if exit(err) == 1 && strings.Contains(err.Error(), "No such file") {
		return nil, nil // vmm.ko loaded but no VM yet, or not loaded
	}
	return strings.Fields(out), err
}

// interfacesDescribed lists the host interfaces whose description is desc.
func (p *Provider) interfacesDescribed(ctx context.Context, desc string) ([]string, error) {
	out, err := p.run(ctx, "ifconfig")
	if err != nil {
		return nil, err
	}
	var names []string
	for name, d := range ParseDescriptions(out) {
		if d == desc {
			names = append(names, name)
		}
	}
	sortStrings(names)
	return names, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
