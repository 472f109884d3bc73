package vsphere

import (
	"context"
	"fmt"
	"time"

	"github.com/vmware/govmomi/vim25/mo"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/providers"
)

// SSHRetry is how long Connect keeps trying while a guest's sshd starts
// (VMware Tools may report the address before sshd listens).
var SSHRetry = 2 * time.Minute

// Connect returns an SSH transport to a machine at the address VMware
// Tools reported, as the template's ssh {} block says (recorded in the
// instance's endpoint at create). ctx cancels the wait for sshd.
func (p *Provider) Connect(ctx context.Context, in providers.Instance) (guest.Transport, error) {
	return providers.ConnectGuest(ctx, in, p.dial, SSHRetry)
}

// Capabilities: vmxnet3 (the default), e1000e and e1000 NICs, vCPU and
// memory, the MTU of the switch behind the port group, guest offloads. No
// routed pairs, NIC queue counts or host-side offload bits (those are
// ESXi host settings, not per-VM ones).
func (p *Provider) Capabilities() providers.Capabilities {
	return providers.Capabilities{NICModels: []string{"vmxnet3", "e1000e", "e1000", "vmxnet2"},
		GuestOffloads: true, VCPU: true, Memory: true, LinkMTU: true}
}

// TemplateID is the template VM's instance UUID and change version
// ("instance-uuid 5012…; change-version 2026-11-30T10:01:02.123Z"): a
// re-imported template gets a new UUID, an edited one a new change
// version. Looked up once per source and provider.
func (p *Provider) TemplateID(ctx context.Context, m providers.Machine) (string, error) {
	source := m.Template.Source
	if source == "" {
		return "", fmt.Errorf("template %q has no source", m.Template.Name)
	}
	p.idMu.Lock()
	defer p.idMu.Unlock()
	if id, ok := p.ids[source]; ok {
		return id, nil
	}
	_, env, err := p.session(ctx)
	if err != nil {
		return "", err
	}
	vm, err := env.finder.VirtualMachine(ctx, source)
	if err != nil {
		return "", fmt.Errorf("template %s: %w", source, err)
	}
	var props mo.VirtualMachine
	if err := vm.Properties(ctx, vm.Reference(), []string{"config.instanceUuid", "config.changeVersion"}, &props); err != nil {
		return "", fmt.Errorf("template %s: %w", source, err)
	}
	if props.Config == nil || props.Config.InstanceUuid == "" {
		return "", fmt.Errorf("template %s: vCenter reports no instance UUID", source)
	}
	id := "instance-uuid " + props.Config.InstanceUuid
	if props.Config.ChangeVersion != "" {
		id += "; change-version " + props.Config.ChangeVersion
	}
	if p.ids == nil {
		p.ids = map[string]string{}
	}
	p.ids[source] = id
	return id, nil
}
