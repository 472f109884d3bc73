package vsphere

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// SSHRetry is how long Connect keeps trying while a guest's sshd starts
// (VMware Tools may report the address before sshd listens).
var SSHRetry = 2 * time.Minute

// Connect returns an SSH transport to a machine at the address VMware
// Tools reported, as the template's ssh {} block says (recorded in the
// instance's endpoint at create). ctx cancels the wait for sshd.
func (p *Provider) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	return providers.ConnectGuest(ctx, in, p.dial, SSHRetry)
}

// Capabilities are vmxnet3 (the default), e1000e and e1000 NICs, vCPU and
// memory, the MTU of the switch behind the port group, guest offloads. No
// routed pairs, NIC queue counts or host-side offload bits (those are
// ESXi host settings, not per-VM ones).
func (p *Provider) Capabilities() providers.Capabilities {
	return providers.Capabilities{NICModels: []string{"vmxnet3", "e1000e", "e1000", "vmxnet2"},
		GuestOffloads: true, NICRings: true, VCPU: true, Memory: true, LinkMTU: true,
		RoutedPairs: p.cfg.routedWhy() == "", RoutedWhy: p.cfg.routedWhy(),
		// shared-switch mode: the one NIC is on the user's port group,
		// whose uplinks reach beyond the hosts, its address what VMware
		// Tools reports there — a VM can be one end of a cross pair.
		ExistingNetwork: p.cfg.linkMode() == SharedSwitch}
}

// TemplateID is the template VM's instance UUID and change version
// ("instance-uuid 5012…; change-version 2026-11-30T10:01:02.123Z"): a
// re-imported template gets a new UUID, an edited one a new change
// version. Looked up once per source and provider.
func (p *Provider) TemplateID(ctx context.Context, m machine.Machine) (string, error) {
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
	vm, err := findTemplate(ctx, env, source)
	if err != nil {
		return "", err
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

var _ providers.TemplateChecker = (*Provider)(nil)

// CheckTemplate looks the template's source up in the datacenter (one
// inventory lookup, cached with TemplateID's answer); a missing one is an
// error listing the templates that exist. Without credentials (validate,
// a plan made offline) it checks nothing.
func (p *Provider) CheckTemplate(ctx context.Context, m machine.Machine) error {
	if p.cfg.URL == "" || p.username == "" || m.Template.Source == "" {
		return nil
	}
	p.idMu.Lock()
	_, known := p.ids[m.Template.Source]
	p.idMu.Unlock()
	if known {
		return nil
	}
	_, env, err := p.session(ctx)
	if err != nil {
		return err
	}
	_, err = findTemplate(ctx, env, m.Template.Source)
	return err
}

// maxListed bounds the names a "not found" message lists.
const maxListed = 20

// findTemplate finds a template (or VM) by name or inventory path; when
// there is none, the error lists the templates the datacenter has.
func findTemplate(ctx context.Context, env *inventory, source string) (*object.VirtualMachine, error) {
	vm, err := env.finder.VirtualMachine(ctx, source)
	if err == nil {
		return vm, nil
	}
	var nf *find.NotFoundError
	if !errors.As(err, &nf) {
		return nil, fmt.Errorf("template %s: %w", source, err)
	}
	names, lerr := templateNames(ctx, env)
	switch {
	case lerr != nil:
		return nil, fmt.Errorf("template %s: no such VM or template in datacenter %s (and listing the templates failed: %v)", source, env.dc.Name(), lerr)
	case len(names) == 0:
		return nil, fmt.Errorf("template %s: no such VM or template in datacenter %s, which has no templates", source, env.dc.Name())
	case len(names) > maxListed:
		names = append(names[:maxListed], fmt.Sprintf("… %d more", len(names)-maxListed))
	}
	return nil, fmt.Errorf("template %s: no such VM or template in datacenter %s; its templates are: %s", source, env.dc.Name(), strings.Join(names, ", "))
}

// templateNames lists the datacenter's templates, sorted.
func templateNames(ctx context.Context, env *inventory) ([]string, error) {
	fs, err := env.dc.Folders(ctx)
	if err != nil {
		return nil, err
	}
	c := env.dc.Client()
	v, err := view.NewManager(c).CreateContainerView(ctx, fs.VmFolder.Reference(), []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, err
	}
	defer func() { _ = v.Destroy(context.WithoutCancel(ctx)) }() // a view left behind ends with the session
	var vms []mo.VirtualMachine
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, []string{"name", "config.template"}, &vms); err != nil {
		return nil, err
	}
	var names []string
	for _, vm := range vms {
		if vm.Config != nil && vm.Config.Template {
			names = append(names, vm.Name)
		}
	}
	sort.Strings(names)
	return names, nil
}
