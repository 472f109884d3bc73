package bhyve

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// linkVMBhyve makes a vm-bhyve switch for the pair: `vm switch create`
// (type vale when network_backend is vale, MTU from the link), the
// switch's bridge described with the owner's tag, and
// the uplink added when one is configured — only when no other bridge
// has it, with its MTU recorded so that deleting the link restores it.
func (p *Provider) linkVMBhyve(ctx context.Context, l providers.LinkSpec, in machine.Instance) (machine.Instance, error) {
	sw := switchName("lab-" + l.Name)
	in.ID, in.Attrs["switch"] = sw, sw
	if l.MTU > 0 {
		in.Attrs["mtu"] = strconv.Itoa(l.MTU)
	}
	if err := p.deleteSwitch(ctx, sw, l.Owner(), nil, false); err != nil {
		return machine.Instance{}, fmt.Errorf("link %s: remove leftover switch %s: %w", l.Address, sw, err)
	}
	vale := p.cfg.NetworkBackend == "vale"
	uplink := p.cfg.Uplink != "" && !vale // Configure refuses an uplink for VALE
	if uplink {
		if err := p.prepareUplink(ctx, l.Address, in.Attrs); err != nil {
			return machine.Instance{}, err
		}
	}
	if vale {
		// The owner record goes in first: a VALE switch lab made is
		// never without one (one without is refused as not lab's).
		if err := p.setValeTag(ctx, sw, linkDesc(in)); err != nil {
			return machine.Instance{}, fmt.Errorf("link %s: %w", l.Address, err)
		}
	}
	argv := []string{"vm", "switch", "create"}
	if vale {
		argv = append(argv, "-t", "vale")
	} else if l.MTU > 0 {
		argv = append(argv, "-m", strconv.Itoa(l.MTU))
	}
	if _, err := p.run(ctx, append(argv, sw)...); err != nil {
		return in, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if vale {
		return in, nil
	}
	// vm switch create takes no description: between it and this the
	// switch exists untagged, and only the pending record names it
	// (deleteSwitch adopts it).
	if _, err := p.run(ctx, "ifconfig", "vm-"+sw, "description", linkDesc(in)); err != nil {
		return in, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if !uplink {
		return in, nil
	}
	if _, err := p.run(ctx, "vm", "switch", "add", sw, p.cfg.Uplink); err != nil {
		return in, fmt.Errorf("link %s: %w", l.Address, err)
	}
	// vm-bhyve sets the port's MTU with its errors discarded
	// (switch::standard::__configure_port), and the first member of a
	// bridge defines the bridge's MTU (if_bridge.c, bridge_ioctl_add):
	// an uplink that cannot take the link's MTU silently pulls the
	// bridge, and then every tap, down to its own.
	if l.MTU > 0 {
		ifs, err := p.interfaces(ctx)
		if err != nil {
			return in, fmt.Errorf("link %s: %w", l.Address, err)
		}
		if got := ifs["vm-"+sw].MTU; got != l.MTU {
			return in, fmt.Errorf("link %s: bridge vm-%s has MTU %d, not %d, after uplink %s joined it (does %s take MTU %d?)",
				l.Address, sw, got, l.MTU, p.cfg.Uplink, p.cfg.Uplink, l.MTU)
		}
	}
	return in, nil
}

// deleteSwitch destroys switch sw, if it exists and carries o's tag —
// a standard switch on its bridge's description, a VALE switch in
// vm-bhyve's system.conf (valeTag) — and gives the uplink back its MTU
// (attrs: the link's, nil when unknown). For a pending record (pending) a
// standard switch whose bridge has no description is adopted: `vm switch
// create` made it and lab stopped before describing it.
func (p *Provider) deleteSwitch(ctx context.Context, sw string, o machine.Owner, attrs map[string]string, pending bool) error {
	types, err := p.switchTypes(ctx)
	if err != nil {
		return err
	}
	typ := types[sw]
	valeTag := ""
	switch typ {
	case "":
		if p.cfg.NetworkBackend == "vale" {
			// A record left by a create interrupted before `vm switch
			// create`: removed when it is o's, refused when not.
			if err := p.dropValeTag(ctx, sw, o); err != nil {
				return err
			}
		}
	case "vale":
		if valeTag, err = p.valeTag(ctx, sw); err != nil {
			return err
		}
		if err := owned(o, "vm-bhyve VALE switch", sw+" (system.conf "+valeOwnerKey(sw)+")", valeTag); err != nil {
			return err
		}
	default:
		ifs, err := p.interfaces(ctx)
		if err != nil {
			return err
		}
		desc := ifs["vm-"+sw].Desc
		if o.Workspace == "" && strings.HasPrefix(desc, "lab-"+o.Lab+"-") {
			desc = "" // lab 0.1 described it with the link's name
		}
		if err := claim(o, pending, "vm-bhyve switch", sw+" (bridge vm-"+sw+")", desc); err != nil {
			return err
		}
	}
	if typ != "" {
		if _, err := p.run(ctx, "vm", "switch", "destroy", sw); err != nil {
			return err
		}
	}
	if valeTag != "" {
		// switch::remove drops only vm-bhyve's own keys (type_, ports_,
		// mtu_, …; lib/vm-switch): lab's goes separately.
		if err := p.dropValeTag(ctx, sw, o); err != nil {
			return err
		}
	}
	return p.restoreUplink(ctx, attrs)
}

// switchTypes maps each switch in `vm switch list` to its TYPE
// ("standard", "vale", …). lib/vm-switch switch::list prints NAME TYPE
// IFACE … through column -t.
func (p *Provider) switchTypes(ctx context.Context) (map[string]string, error) {
	out, err := p.run(ctx, "vm", "switch", "list")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for i, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); i > 0 && len(f) > 1 {
			m[f[0]] = f[1]
		}
	}
	return m, nil
}

// switchType is sw's TYPE in `vm switch list`, "" when there is no such
// switch.
func (p *Provider) switchType(ctx context.Context, sw string) (string, error) {
	types, err := p.switchTypes(ctx)
	return types[sw], err
}

// VALE switches have no interface to describe: vm-bhyve keeps them as
// two keys of its core configuration, switch_list and type_NAME=vale in
// VM_DIR/.config/system.conf (lib/vm-switch-vale switch::vale::create,
// config::core::set = `sysrc -inqf VM_DIR/.config/system.conf`). lab
// keeps the owner tag beside them as lab_owner_NAME, with sysrc(8) as
// vm-bhyve does; vm-bhyve reads only the keys it asks for
// (lib/vm-config config::core::get), so it ignores lab's. lab's switch
// names are l + 8 hex digits: valid sh variable names.

// valeOwnerKey is the system.conf key holding VALE switch sw's tag.
func valeOwnerKey(sw string) string { return "lab_owner_" + sw }

// systemConf is vm-bhyve's core configuration file: with
// vm_dir="zfs:DATASET" VM_DIR is the dataset's mountpoint (lib/vm-zfs
// zfs::init), the directory the VMs' own .conf files are in.
func (p *Provider) systemConf(ctx context.Context) (string, error) {
	dir, err := p.datastoreDir(ctx)
	if err != nil {
		return "", err
	}
	return path.Join(dir, ".config", "system.conf"), nil
}

// valeTag reads VALE switch sw's owner tag, "" when it has none.
// `sysrc -f FILE -n NAME` prints the value; an unset NAME is "sysrc:
// unknown variable 'NAME'" on stderr and exit 1 (usr.sbin/sysrc/sysrc,
// the query branch of its argument loop).
func (p *Provider) valeTag(ctx context.Context, sw string) (string, error) {
	conf, err := p.systemConf(ctx)
	if err != nil {
		return "", err
	}
	out, err := p.run(ctx, "sysrc", "-f", conf, "-n", valeOwnerKey(sw))
	if err != nil && strings.Contains(err.Error(), "unknown variable") {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// setValeTag records tag as VALE switch sw's owner (`sysrc -f FILE
// NAME=VALUE`: f_sysrc_set replaces the last assignment or appends
// NAME="VALUE", usr.sbin/bsdconfig/share/sysrc.subr).
func (p *Provider) setValeTag(ctx context.Context, sw, tag string) error {
	conf, err := p.systemConf(ctx)
	if err != nil {
		return err
	}
	_, err = p.run(ctx, "sysrc", "-f", conf, valeOwnerKey(sw)+"="+tag)
	return err
}

// dropValeTag removes sw's owner record (`sysrc -f FILE -x NAME`,
// f_sysrc_delete; it prints nothing) when it is o's; another owner's is
// refused and left as it is.
func (p *Provider) dropValeTag(ctx context.Context, sw string, o machine.Owner) error {
	tag, err := p.valeTag(ctx, sw)
	if err != nil || tag == "" {
		return err
	}
	if err := owned(o, "vm-bhyve VALE switch record", valeOwnerKey(sw)+" in system.conf", tag); err != nil {
		return err
	}
	conf, err := p.systemConf(ctx)
	if err != nil {
		return err
	}
	_, err = p.run(ctx, "sysrc", "-f", conf, "-x", valeOwnerKey(sw))
	return err
}

// switchExists looks sw up in `vm switch list`.
func (p *Provider) switchExists(ctx context.Context, sw string) (bool, error) {
	typ, err := p.switchType(ctx, sw)
	return typ != "", err
}

// createVMBhyve clones the template VM from a snapshot named after the
// new VM (so that deleting the VM finds and removes it: a plain `vm
// clone` leaves a snapshot with a random name on the template each time,
// lib/vm-zfs zfs::clone), sets CPU, memory and the one NIC in the
// clone's configuration with sysrc (with management_switch: the
// management NIC, then the benchmark NICs, vmNICs), starts it and waits
// until it runs.
func (p *Provider) createVMBhyve(ctx context.Context, m machine.Machine, in machine.Instance) error {
	vm := in.Attrs["vm"]
	tag := ownerProp + "=" + m.Owner().Tag(m.Address)
	snap := p.cfg.Datastore + "/" + m.Template.Source + "@" + vm
	if _, err := p.run(ctx, "zfs", "snapshot", "-r", "-o", tag, snap); err != nil {
		return fmt.Errorf("snapshot %s: %w", snap, err)
	}
	in.Attrs["snapshot"] = snap
	if _, err := p.run(ctx, "vm", "clone", m.Template.Source+"@"+vm, vm); err != nil {
		return fmt.Errorf("clone %s from %s: %w", vm, m.Template.Source, err)
	}
	// vm clone takes no properties; the clone is tagged right after it.
	// Between the two it exists untagged, and only the pending record
	// names it (deleteVMBhyve adopts it).
	if _, err := p.run(ctx, "zfs", "set", tag, p.cfg.Datastore+"/"+vm); err != nil {
		return fmt.Errorf("tag %s: %w", vm, err)
	}
	dir, err := p.datastoreDir(ctx)
	if err != nil {
		return err
	}
	nics, err := p.vmNICs(m, vm, "switch")
	if err != nil {
		return err
	}
	argv := []string{"sysrc", "-f", path.Join(dir, vm, vm+".conf")}
	if m.VCPU > 0 {
		argv = append(argv, "cpu="+strconv.Itoa(m.VCPU))
	}
	if m.MemoryMiB > 0 {
		argv = append(argv, "memory="+strconv.Itoa(m.MemoryMiB)+"M")
	}
	// vm::bhyve_device_networking (lib/vm-run) makes a tap for each
	// networkN_type from 0 up, adds it to networkN_switch's bridge and
	// gives bhyve one function of one slot per NIC, in that order.
	for i, n := range nics {
		k := "network" + strconv.Itoa(i)
		argv = append(argv, k+"_type=virtio-net", k+"_switch="+n.sw, k+"_mac="+n.mac)
	}
	if _, err := p.run(ctx, argv...); err != nil {
		return fmt.Errorf("configure %s: %w", vm, err)
	}
	if _, err := p.run(ctx, "vm", "start", vm); err != nil {
		return fmt.Errorf("start %s: %w", vm, err)
	}
	return p.waitRunning(ctx, vm)
}

// States in `vm list` (lib/vm-run vm::running_check, lib/vm-core
// core::list): "Running (PID)" while bhyve runs, "Bootloader (PID)"
// while bhyveload or grub-bhyve loads the guest, "Locked (HOST)" when
// the VM has no process but its run.lock exists, "Stopped".
func running(st string) bool {
	return strings.HasPrefix(st, "Running") || strings.HasPrefix(st, "Bootloader")
}

func stopped(st string) bool { return st == "Stopped" || st == "Suspended" }

// waitRunning polls `vm list` after `vm start` until the VM is Running.
// vm start returns at once: the work is done by `vm _run` in the
// background (lib/vm-core core::__start), which makes the taps, writes
// run.lock (Locked), runs the loader (Bootloader: bhyveload waits
// loader_timeout, 3 s by default, lib/vm-guest guest::load) and then
// bhyve (Running), lib/vm-run vm::run. A VM still Stopped after
// startGrace, or Stopped again after it got going, failed: the reason is
// in its vm-bhyve.log.
func (p *Provider) waitRunning(ctx context.Context, vm string) error {
	start := time.Now()
	deadline := start.Add(p.cfg.bootTimeout())
	seen := false
	for {
		st, err := p.vmState(ctx, vm)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(st, "Running"):
			return nil
		case st == "":
			return fmt.Errorf("%s is no longer in vm list after vm start", vm)
		case stopped(st) && (seen || time.Since(start) > p.startGrace):
			return fmt.Errorf("%s is %s after vm start: %s", vm, st, oneLine(p.vmLog(ctx, vm)))
		case !stopped(st):
			seen = true
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is still %q %v after vm start", vm, st, p.cfg.bootTimeout())
		}
		if err := sleep(ctx, p.poll); err != nil {
			return err
		}
	}
}

// vmLog is the end of a VM's vm-bhyve.log (lib/vm-util util::log), ""
// when it cannot be read.
func (p *Provider) vmLog(ctx context.Context, vm string) string {
	dir, err := p.datastoreDir(ctx)
	if err != nil {
		return ""
	}
	tail, _ := p.run(ctx, "tail", "-n", "20", path.Join(dir, vm, "vm-bhyve.log"))
	return tail
}

// deleteVMBhyve powers the VM off (running or still in its loader),
// waits until vm-bhyve has let go of it, destroys it with its dataset and
// removes the template snapshot it was cloned from — all only when the
// VM's dataset carries o's tag.
//
// `vm destroy` refuses a VM whose run.lock exists (lib/vm-run
// vm::confirm_stopped), and `vm _run` removes it only after bhyve exited
// and the taps are destroyed (vm::run, vm::unlock), so the destroy waits
// for "Locked" to turn "Stopped". A VM powered off in its loader keeps
// loading until loader_timeout passes; bhyve then starts suspended and
// exits at once.
func (p *Provider) deleteVMBhyve(ctx context.Context, vm string, o machine.Owner, pending bool) error {
	st, err := p.vmState(ctx, vm)
	if err != nil {
		return err
	}
	exists, err := p.checkMachine(ctx, vm, o, pending)
	if err != nil {
		return err
	}
	if st != "" && !exists {
		if err := owned(o, "vm-bhyve VM", vm, ""); err != nil {
			return err
		}
	}
	if st != "" {
		if running(st) {
			if _, err := p.run(ctx, "vm", "poweroff", "-f", vm); err != nil {
				// It may have stopped between the list and the poweroff.
				if now, lerr := p.vmState(ctx, vm); lerr != nil || running(now) {
					return fmt.Errorf("power off: %w", err)
				}
			}
		}
		if err := p.waitUnlocked(ctx, vm); err != nil {
			return err
		}
		if _, err := p.run(ctx, "vm", "destroy", "-f", vm); err != nil {
			return fmt.Errorf("destroy: %w", err)
		}
	} else if exists {
		// A clone vm-bhyve does not list: `vm clone` stopped between its
		// zfs clones and renaming the template's .conf to VM.conf
		// (lib/vm-zfs zfs::clone), which is what core::list looks for.
		// Its datasets depend on the template snapshot: they go first.
		if _, err := p.run(ctx, "zfs", "destroy", "-r", p.cfg.Datastore+"/"+vm); err != nil {
			return fmt.Errorf("destroy half-made clone: %w", err)
		}
	}
	return p.destroySnapshots(ctx, vm, o)
}

// waitUnlocked polls `vm list` until vm is Stopped (no process, no
// run.lock), up to lockTimeout.
func (p *Provider) waitUnlocked(ctx context.Context, vm string) error {
	deadline := time.Now().Add(p.lockTimeout)
	for {
		st, err := p.vmState(ctx, vm)
		if err != nil {
			return err
		}
		if st == "" || stopped(st) {
			return nil
		}
		if time.Now().After(deadline) {
			dir, _ := p.datastoreDir(ctx)
			return fmt.Errorf("%s is still %q %v after power-off: vm-bhyve removes %s once bhyve has exited and the taps are gone; "+
				"if no bhyve runs for it (pgrep -fl %s), remove that file and delete again",
				vm, st, p.lockTimeout, path.Join(dir, vm, "run.lock"), vm)
		}
		if err := sleep(ctx, p.poll); err != nil {
			return err
		}
	}
}

// vmState is a VM's STATE column in `vm list` ("Running (2345)",
// "Stopped"), "" when there is no such VM.
func (p *Provider) vmState(ctx context.Context, vm string) (string, error) {
	out, err := p.run(ctx, "vm", "list")
	if err != nil {
		return "", err
	}
	return ParseVMList(out)[vm], nil
}

// ParseVMList maps VM names to their state in `vm list` output. vm-bhyve
// prints the rows through column -t (lib/vm-core core::list), so columns
// are aligned, but AUTO reads "Yes [1]" for a VM in vm_list and STATE
// "Running (2345)": splitting on blanks shifts the columns. STATE is the
// last column; it is read from where the header's STATE starts:
//
//	NAME      DATASTORE  LOADER     CPU  MEMORY  VNC  AUTO     STATE
//	gw        default    bhyveload  1    512M    -    Yes [1]  Running (1432)
//	lab-x-s   default    bhyveload  1    2048M   -    No       Locked (host1)
func ParseVMList(out string) map[string]string {
	m := map[string]string{}
	col := -1
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if f[0] == "NAME" {
			col = strings.LastIndex(line, "STATE")
			continue
		}
		if col <= 0 || len(line) <= col || line[col-1] != ' ' {
			continue
		}
		m[f[0]] = strings.TrimSpace(line[col:])
	}
	return m
}

// datastoreDir is where vm-bhyve keeps the VMs' directories: the
// datastore dataset's mountpoint.
func (p *Provider) datastoreDir(ctx context.Context) (string, error) {
	p.mu.Lock()
	dir := p.mountDir
	p.mu.Unlock()
	if dir != "" {
		return dir, nil
	}
	out, err := p.run(ctx, "zfs", "get", "-H", "-o", "value", "mountpoint", p.cfg.Datastore)
	if err != nil {
		return "", err
	}
	dir = strings.TrimSpace(out)
	if !pathRE.MatchString(dir) || strings.Contains(dir, "..") {
		return "", fmt.Errorf("datastore %s: unusable mountpoint %q", p.cfg.Datastore, dir)
	}
	p.mu.Lock()
	p.mountDir = dir
	p.mu.Unlock()
	return dir, nil
}
