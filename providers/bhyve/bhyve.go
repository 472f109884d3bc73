// Package bhyve is the back end for a FreeBSD 14 host running bhyve,
// driven over SSH. It has two modes:
//
//   - backend = "vm-bhyve": the vm(8) command of vm-bhyve — `vm switch
//     create`, `vm clone`, sysrc on the VM's configuration, `vm start`,
//     `vm poweroff -f`, `vm destroy -f`;
//   - backend = "bhyve": bhyve itself — `zfs snapshot`/`zfs clone` of a
//     template zvol, `ifconfig bridge create` / `tap create` / `addm`,
//     bhyveload (FreeBSD guests) or a UEFI bootrom (Linux guests), bhyve
//     under daemon(8), `bhyvectl --force-poweroff` / `--destroy`.
//
// VMs and ZFS datasets are named "lab-<machine name>" (names unique to a
// lab, workspace and pair), and every object carries its owner's tag
// (see owner.go): List finds leftovers by the exact tag, and Delete
// removes nothing another lab or workspace owns. Every host command's
// output is kept in the error when it fails (HostError).
//
// Truthfulness: bhyve's tap backend offers the guest's virtio-net no
// offloads, so LRO/TSO/checksum toggles are silent no-ops there.
// Capabilities declares them unsupported, so the plan refuses such specs
// unless strict = false; the FreeBSD guest
// driver independently observes the offloads as "off [fixed]".
//
// Nothing here has run against a real FreeBSD host: the command layer is
// tested against an in-process SSH server that replays FreeBSD output.
package bhyve

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	xssh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TypeName is the provider type in specs: provider "bhyve" "name" {}.
const TypeName = "bhyve"

func init() { providers.Register(TypeName, func() providers.Provider { return New() }) }

// Provider makes bhyve VMs on one FreeBSD host.
type Provider struct {
	cfg Config
	// signer replaces private_key_file (tests); dialRetry is how long the
	// first connection to the host may take.
	signer    xssh.Signer
	dialRetry time.Duration
	// poll is the interval of address and liveness checks while a guest
	// boots; dial opens transports to guests. Tests replace both.
	poll time.Duration
	dial providers.DialFunc
	// startGrace is how long a VM may stay Stopped after `vm start`
	// before vm-bhyve's background run has locked it; lockTimeout how
	// long a powered-off VM may stay Locked (vm-bhyve mode).
	startGrace  time.Duration
	lockTimeout time.Duration

	mu       sync.Mutex
	host     guest.Transport
	mountDir string // the datastore's mountpoint (vm-bhyve), read once
}

var _ providers.Provider = (*Provider)(nil)

// New returns an unconfigured provider.
func New() *Provider {
	return &Provider{dialRetry: 10 * time.Second, poll: 2 * time.Second, dial: providers.DialSSH,
		startGrace: 15 * time.Second, lockTimeout: 2 * time.Minute}
}

// Configure decodes the provider block. It does not connect: validate
// and plan work offline.
func (p *Provider) Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics {
	c, diags := decode(body, providers.EvalContext(ctx))
	cd := providers.NewConfigDiags(body)
	cd.Append(diags)
	if !cd.HasErrors() && c.Backend == BackendRaw && c.NetworkBackend == "vale" {
		cd.Errorf("network_backend", "VALE needs vm-bhyve",
			`network_backend = "vale" is supported with backend = "vm-bhyve" only (raw mode attaches guests to taps on a bridge).`)
	}
	if !cd.HasErrors() && c.Backend == BackendVMBhyve && c.NetworkBackend == "vale" && c.Uplink != "" && c.Switch == "" {
		cd.Errorf("uplink", "No uplink on a VALE switch",
			`vm-bhyve cannot add an interface to a VALE switch ("physical interfaces must be added to the vale switch manually", `+
				`lib/vm-switch-vale switch::vale::add_member): drop uplink, or attach the NIC to a VALE switch yourself (valectl) and name it with switch.`)
	}
	p.cfg = c
	return cd.Diags()
}

// Close closes the connection to the host.
func (p *Provider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.host == nil {
		return nil
	}
	err := p.host.Close()
	p.host = nil
	return err
}

// Prefix is what every object of a lab is named with.
func Prefix(labID string) string { return "lab-" + labID + "-" }

// vmName is the bhyve/vm-bhyve name of a machine the engine calls name.
func vmName(name string) string { return "lab-" + name }

// maxVMName is bhyve's limit on VM names (VM_MAX_NAMELEN 32, with NUL).
const maxVMName = 31

func checkVMName(name string) error {
	vm := vmName(name)
	if !nameRE.MatchString(vm) || len(vm) > maxVMName {
		return fmt.Errorf("VM name %q: bhyve takes at most %d letters, digits, _ . - (shorten the lab or pair name)", vm, maxVMName)
	}
	return nil
}

// switchName is the vm-bhyve switch made for a link: vm-bhyve names its
// bridge "vm-<switch>", which must fit IFNAMSIZ, so the name is a hash of
// the link's name; the bridge's description carries the full name.
func switchName(linkName string) string {
	h := fnv.New32a()
	h.Write([]byte(linkName))
	return fmt.Sprintf("l%08x", h.Sum32())
}

// MAC is the deterministic address of a machine's NIC, in bhyve's OUI
// (58:9c:fc, as bhyve and vm-bhyve generate them).
func MAC(vm string) string {
	s := sha256.Sum256([]byte(vm))
	return fmt.Sprintf("58:9c:fc:%02x:%02x:%02x", s[0], s[1], s[2])
}

// Link creates the network that joins a pair (see linkVMBhyve, linkRaw).
func (p *Provider) Link(ctx context.Context, l providers.LinkSpec) (machine.Instance, error) {
	in := machine.Instance{Address: l.Address, Provider: TypeName, Kind: "link", Name: l.Name, Owner: l.Owner(),
		Attrs: map[string]string{"index": strconv.Itoa(l.Index)}}
	if !nameRE.MatchString(l.Name) {
		return in, fmt.Errorf("link %s: name %q is not usable on the host", l.Address, l.Name)
	}
	if p.cfg.Switch != "" {
		in.ID = p.cfg.Switch
		in.Attrs["switch"], in.Attrs["nominal"] = p.cfg.Switch, "true"
		return in, nil
	}
	if p.cfg.Backend == BackendRaw {
		return p.linkRaw(ctx, l, in)
	}
	return p.linkVMBhyve(ctx, l, in)
}

// Create makes one machine (see createVMBhyve, createRaw). On an error
// after something exists the returned Instance names it, and Delete
// removes whatever part of it was made.
func (p *Provider) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	in := machine.Instance{Address: m.Address, Provider: TypeName, Kind: "machine", Name: m.Name, Owner: m.Owner(), Attrs: map[string]string{}}
	if err := checkVMName(m.Name); err != nil {
		return machine.Instance{}, fmt.Errorf("create %s: %w", m.Address, err)
	}
	if !nameRE.MatchString(m.Template.Source) {
		return machine.Instance{}, fmt.Errorf("create %s: template %q: source %q is not a vm-bhyve VM or zvol name", m.Address, m.Template.Name, m.Template.Source)
	}
	vm := vmName(m.Name)
	in.ID = vm
	in.Attrs["vm"], in.Attrs["mac"], in.Attrs["os"] = vm, MAC(vm), m.Template.OS
	in.Attrs["backend"], in.Attrs["network_backend"] = p.cfg.Backend, p.cfg.NetworkBackend
	var login machine.Login
	if s := m.Template.SSH; s != nil {
		login = *s
	}
	in.Endpoint = providers.SSHEndpoint("", login)
	in.Endpoint.Iface = p.cfg.guestIface(m.Template.OS)
	if id, err := p.TemplateID(ctx, m); err == nil {
		in.Endpoint.TemplateID = id
	}
	// A leftover of the same name (a crash before state was written) goes
	// first, so the name is free.
	if err := p.deleteMachine(ctx, m.Name, m.Owner(), m.Address, false); err != nil {
		return machine.Instance{}, fmt.Errorf("create %s: remove leftover %s: %w", m.Address, vm, err)
	}
	var err error
	if p.cfg.Backend == BackendRaw {
		err = p.createRaw(ctx, m, in)
	} else {
		err = p.createVMBhyve(ctx, m, in)
	}
	if err != nil {
		return in, fmt.Errorf("create %s (%s): %w", m.Address, vm, err)
	}
	addr, err := p.waitAddress(ctx, m, vm)
	if err != nil {
		return in, fmt.Errorf("create %s (%s): %w", m.Address, vm, err)
	}
	in.Endpoint.Addr, in.Endpoint.SSHHost = addr, addr
	if p.cfg.ManagementSwitch != "" {
		if err := p.addressBenchNICs(ctx, m, &in); err != nil {
			return in, fmt.Errorf("create %s (%s): %w", m.Address, vm, err)
		}
	}
	return in, nil
}

// Read reports whether a machine or link still exists.
func (p *Provider) Read(ctx context.Context, in machine.Instance) (machine.Instance, bool, error) {
	if in.Attrs["nominal"] == "true" {
		return in, true, nil
	}
	var ok bool
	var err error
	switch {
	case in.Kind == "link" && p.cfg.Backend == BackendRaw:
		var br []string
		br, err = p.interfacesDescribed(ctx, linkDesc(in))
		ok = len(br) > 0
	case in.Kind == "link":
		sw := in.Attrs["switch"]
		if sw == "" {
			sw = switchName("lab-" + in.Name)
		}
		ok, err = p.switchExists(ctx, sw)
	case p.cfg.Backend == BackendRaw:
		ok, err = p.vmmExists(ctx, vmName(in.Name))
	default:
		var st string
		st, err = p.vmState(ctx, vmName(in.Name))
		ok = st != ""
	}
	return in, ok, err
}

// Delete removes a machine (powered off first) or a link, and every part
// of it that exists; what is gone already is success.
func (p *Provider) Delete(ctx context.Context, in machine.Instance) error {
	if in.Kind == "link" {
		if in.Attrs["nominal"] == "true" {
			return nil
		}
		if err := p.deleteLink(ctx, in); err != nil {
			return fmt.Errorf("delete link %s: %w", in.Name, err)
		}
		return nil
	}
	if err := p.deleteMachine(ctx, in.Name, in.Owner, in.Address, in.Pending); err != nil {
		return fmt.Errorf("delete %s: %w", vmName(in.Name), err)
	}
	return nil
}

// deleteMachine removes machine name of o in either mode. pending (the
// record's create never reported success) lets vm-bhyve mode adopt an
// untagged clone of exactly that name: `vm clone` takes no properties, so
// the clone is tagged by a second command (owner.go). Raw mode never
// needs it: its clone is made with its tag (`zfs clone -o`).
func (p *Provider) deleteMachine(ctx context.Context, name string, o machine.Owner, address string, pending bool) error {
	if p.cfg.Backend == BackendRaw {
		return p.deleteRaw(ctx, vmName(name), address, o)
	}
	return p.deleteVMBhyve(ctx, vmName(name), o, pending)
}

func (p *Provider) deleteLink(ctx context.Context, in machine.Instance) error {
	if p.cfg.Backend == BackendRaw {
		if err := p.deleteBridge(ctx, linkDesc(in)); err != nil {
			return err
		}
		return p.restoreUplink(ctx, in.Attrs)
	}
	sw := in.Attrs["switch"]
	if sw == "" {
		sw = switchName("lab-" + in.Name)
	}
	return p.deleteSwitch(ctx, sw, in.Owner, in.Attrs, in.Pending)
}

// linkDesc is the description of a link's bridge: the owner's tag, or
// for a record without a workspace (lab 0.1) "lab-<name>".
func linkDesc(in machine.Instance) string {
	if in.Owner.Workspace == "" {
		return "lab-" + in.Name
	}
	return in.Owner.Tag(in.Address)
}

// tapDesc is the description of a raw-mode machine's tap: the owner's
// tag, or for a record without a workspace (lab 0.1) the VM's name.
func tapDesc(o machine.Owner, address, vm string) string {
	if o.Workspace == "" {
		return vm
	}
	return o.Tag(address)
}
