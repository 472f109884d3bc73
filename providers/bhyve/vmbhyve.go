package bhyve

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/providers"
)

// linkVMBhyve makes a vm-bhyve switch for the pair: `vm switch create`
// (type vale when network_backend is vale, MTU from the link), the
// uplink added, and the switch's bridge described with the link's name
// so List finds it.
func (p *Provider) linkVMBhyve(ctx context.Context, l providers.LinkSpec, in providers.Instance) (providers.Instance, error) {
	sw := switchName("lab-" + l.Name)
	in.ID, in.Attrs["switch"] = sw, sw
	if l.MTU > 0 {
		in.Attrs["mtu"] = strconv.Itoa(l.MTU)
	}
	if err := p.deleteSwitch(ctx, "lab-"+l.Name); err != nil {
		return providers.Instance{}, fmt.Errorf("link %s: remove leftover switch %s: %w", l.Address, sw, err)
	}
	argv := []string{"vm", "switch", "create"}
	if p.cfg.NetworkBackend == "vale" {
		argv = append(argv, "-t", "vale")
	} else if l.MTU > 0 {
		argv = append(argv, "-m", strconv.Itoa(l.MTU))
	}
	if _, err := p.run(ctx, append(argv, sw)...); err != nil {
		return in, fmt.Errorf("link %s: %w", l.Address, err)
	}
	if p.cfg.NetworkBackend != "vale" {
		if _, err := p.run(ctx, "ifconfig", "vm-"+sw, "description", "lab-"+l.Name); err != nil {
			return in, fmt.Errorf("link %s: %w", l.Address, err)
		}
	}
	if p.cfg.Uplink != "" {
		if _, err := p.run(ctx, "vm", "switch", "add", sw, p.cfg.Uplink); err != nil {
			return in, fmt.Errorf("link %s: %w", l.Address, err)
		}
	}
	return in, nil
}

// deleteSwitch destroys the switch made for a link, if it exists.
func (p *Provider) deleteSwitch(ctx context.Context, linkName string) error {
	sw := switchName(linkName)
	ok, err := p.switchExists(ctx, sw)
	if err != nil || !ok {
		return err
	}
	_, err = p.run(ctx, "vm", "switch", "destroy", sw)
	return err
}

// switchExists looks sw up in `vm switch list`.
func (p *Provider) switchExists(ctx context.Context, sw string) (bool, error) {
	out, err := p.run(ctx, "vm", "switch", "list")
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == sw {
			return true, nil
		}
	}
	return false, nil
}

// createVMBhyve clones the template VM (stopped), sets CPU, memory and
// the one NIC in the clone's configuration with sysrc, and starts it.
func (p *Provider) createVMBhyve(ctx context.Context, m providers.Machine, in providers.Instance) error {
	vm := in.Attrs["vm"]
	if _, err := p.run(ctx, "vm", "clone", m.Template.Source, vm); err != nil {
		return fmt.Errorf("clone %s from %s: %w", vm, m.Template.Source, err)
	}
	dir, err := p.datastoreDir(ctx)
	if err != nil {
		return err
	}
	sw := m.Link.Attrs["switch"]
	if sw == "" {
		return fmt.Errorf("link %s has no switch recorded", m.Link.Address)
	}
	argv := []string{"sysrc", "-f", path.Join(dir, vm, vm+".conf")}
	if m.VCPU > 0 {
		argv = append(argv, "cpu="+strconv.Itoa(m.VCPU))
	}
	if m.MemoryMiB > 0 {
		argv = append(argv, "memory="+strconv.Itoa(m.MemoryMiB)+"M")
	}
	argv = append(argv, "network0_type=virtio-net", "network0_switch="+sw, "network0_mac="+in.Attrs["mac"])
	if _, err := p.run(ctx, argv...); err != nil {
		return fmt.Errorf("configure %s: %w", vm, err)
	}
	if _, err := p.run(ctx, "vm", "start", vm); err != nil {
		return fmt.Errorf("start %s: %w", vm, err)
	}
	return nil
}

// deleteVMBhyve powers the VM off (when running) and destroys it with its
// dataset.
func (p *Provider) deleteVMBhyve(ctx context.Context, vm string) error {
	st, err := p.vmState(ctx, vm)
	if err != nil || st == "" {
		return err
	}
	if strings.HasPrefix(st, "Running") || strings.HasPrefix(st, "Locked") {
		if _, err := p.run(ctx, "vm", "poweroff", "-f", vm); err != nil {
			return fmt.Errorf("power off: %w", err)
		}
	}
	if _, err := p.run(ctx, "vm", "destroy", "-f", vm); err != nil {
		return fmt.Errorf("destroy: %w", err)
	}
	return nil
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

// ParseVMList maps VM names to their state in `vm list` output:
//
//	NAME     DATASTORE  LOADER     CPU  MEMORY  VNC  AUTO  STATE
//	fbsd14   default    bhyveload  1    1024M   -    No    Stopped
//	lab-x-s  default    bhyveload  1    2048M   -    No    Running (2345)
func ParseVMList(out string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || f[0] == "NAME" {
			continue
		}
		m[f[0]] = strings.Join(f[7:], " ")
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
