// Package libvirt is the KVM/QEMU back end: it talks to libvirtd over its RPC
// protocol (github.com/digitalocean/go-libvirt, pure Go — no cgo, no virsh),
// locally through the UNIX socket or remotely over SSH, TCP or TLS.
//
// A template is a base volume in a storage pool. Each guest is a qcow2
// overlay on it (or a full clone), a domain with a NIC on the pair's
// network (and, with management set, a management NIC before it for SSH) (lab-owned by default: an isolated bridge with its own MTU and a
// DHCP range from 198.18.0.0/15), found again by name and by the lab id in
// the domain's <metadata>. The guest's address comes from the network's DHCP
// leases (by MAC), with the QEMU guest agent as a fallback; lab then logs in
// over SSH and records the host key it saw first (in its Endpoint).
package libvirt

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sync"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/providers"
)

// TypeName is the provider type in specs: provider "libvirt" "name" {}.
const TypeName = "libvirt"

func init() { providers.Register(TypeName, func() providers.Provider { return New() }) }

// Config is the provider block.
type Config struct {
	// URI is the libvirt connection URI (default qemu:///system);
	// qemu+ssh://user@host/system, qemu+tcp://…, qemu+tls://… reach a
	// remote daemon.
	URI string `hcl:"uri,optional"`
	// Pool holds the template volumes and the guests' overlays.
	Pool string `hcl:"pool,optional"`
	// Network is an existing libvirt network to attach guests to. Empty:
	// every pair gets a lab-owned network (isolated, or NAT with nat = true).
	Network string `hcl:"network,optional"`
	NAT     bool   `hcl:"nat,optional"`
	// LinkBridge and LinkMacvtap attach the benchmark NIC to a host device
	// lab does not own instead of a network: an existing Linux bridge
	// (<interface type='bridge'>) or, through macvtap in bridge mode, a
	// host NIC (<interface type='direct'>). lab never changes the device:
	// the link's MTU must be the device's, and the guests' link addresses
	// are set over SSH through the management NIC (management is
	// required).
	LinkBridge  string `hcl:"link_bridge,optional"`
	LinkMacvtap string `hcl:"link_macvtap,optional"`
	// Accel is "kvm" (default) or "tcg" (QEMU emulation, domain type qemu).
	Accel string `hcl:"accel,optional"`
	// BootTimeout bounds start → SSH ready; LeaseTimeout start → DHCP lease.
	BootTimeout  string `hcl:"boot_timeout,optional"`
	LeaseTimeout string `hcl:"lease_timeout,optional"`
	// Kernel and Initrd boot the guest directly (no boot loader in the
	// image). A bare name is a volume in the pool; an absolute path is a
	// file on the libvirt host.
	Kernel  string `hcl:"kernel,optional"`
	Initrd  string `hcl:"initrd,optional"`
	Cmdline string `hcl:"cmdline,optional"`
	// FullClone copies the template instead of a qcow2 overlay on it.
	FullClone bool `hcl:"full_clone,optional"`
	// NICDriver is the virtio backend ("vhost", "qemu"); empty leaves it to
	// libvirt (vhost when /dev/vhost-net exists).
	NICDriver string `hcl:"nic_driver,optional"`
	// Emulator is the QEMU binary on the libvirt host (default
	// /usr/bin/qemu-system-x86_64); Machine the machine type (default "pc").
	Emulator string `hcl:"emulator,optional"`
	Machine  string `hcl:"machine,optional"`
	// CallTimeout bounds how long one libvirt call may wait for its answer
	// (default 60s; a definition, a start and a full clone get five times
	// that): a stopped or wedged libvirtd fails the command, naming the
	// URI and the call, instead of hanging it.
	CallTimeout string `hcl:"call_timeout,optional"`
	// Management gives every guest a second NIC, its first, for SSH and
	// lease look-ups, apart from the measured link: "lab" makes an
	// isolated management network per pair (NAT with nat = true, which
	// then leaves the benchmark link isolated), any
	// other value names an existing libvirt network. Empty: SSH goes over
	// the benchmark link.
	Management string `hcl:"management,optional"`
	// Pin places each role's vCPUs and QEMU's own threads on host CPUs
	// (cpu_pin {}: <cputune><vcpupin/><emulatorpin/>).
	Pin *PinConfig `hcl:"cpu_pin,block"`
	// For qemu+ssh:// URIs (remote.go): how lab logs in to the host —
	// the URI's user and port, a key file, a pinned host key, ssh-agent,
	// a known_hosts file, an ssh_config file whose Host entries fill
	// what is unset — and whether the guests are reached through it.
	PrivateKeyFile string   `hcl:"private_key_file,optional"`
	HostKey        string   `hcl:"host_key,optional"`
	Agent          bool     `hcl:"agent,optional"`
	KnownHostsFile string   `hcl:"known_hosts_file,optional"`
	SSHConfig      string   `hcl:"ssh_config,optional"`
	JumpViaHost    bool     `hcl:"jump_via_host,optional"`
	Remain         hcl.Body `hcl:",remain"`
}

const attributeList = "uri, pool, network, nat, link_bridge, link_macvtap, accel, boot_timeout, lease_timeout, call_timeout, kernel, initrd, cmdline, full_clone, nic_driver, emulator, machine, management, " +
	"private_key_file, host_key, agent, known_hosts_file, ssh_config, jump_via_host, cpu_pin {}"

// machineType is the shape of QEMU's x86 machine types: "pc", "q35" and
// their versioned forms ("pc-q35-8.2", "pc-i440fx-7.2"), "microvm".
var machineType = regexp.MustCompile(`^(pc|q35|microvm|pc-(q35|i440fx)-[0-9][0-9.]*)$`)

// Defaults.
const (
	DefaultURI          = "qemu:///system"
	DefaultPool         = "default"
	DefaultBootTimeout  = 5 * time.Minute
	DefaultLeaseTimeout = 3 * time.Minute
	DefaultCmdline      = "root=/dev/vda console=ttyS0 rw"
	DefaultEmulator     = "/usr/bin/qemu-system-x86_64"
	DefaultMachine      = "pc"
)

// Provider creates domains, overlays and networks through libvirtd.
type Provider struct {
	// EvalContext, when set before Configure, evaluates expressions in the
	// provider block (var.*); otherwise the one Configure's ctx carries.
	EvalContext *hcl.EvalContext

	cfg          Config
	bootTimeout  time.Duration
	leaseTimeout time.Duration
	callTimeout  time.Duration

	mu sync.Mutex // guards l, watch and dead
	l  *golibvirt.Libvirt
	// watch follows the calls on l's connection (see rpcWatch).
	watch *rpcWatch
	// dead is why the daemon stopped answering: once one call stalled,
	// every later one fails at once instead of waiting out its deadline.
	dead error
	// dial connects to libvirtd; replaced in tests.
	dial func(uri *url.URL, callTimeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error)
	// poll is the interval between lease/state checks.
	poll time.Duration

	idMu sync.Mutex
	ids  map[string]string // TemplateID by source volume

	pin *pinning // cpu_pin {}, nil without one

	// kvmProbe replaces the probe of this machine's KVM in tests (accel.go).
	kvmProbe func() error

	// hostPins is the workspace's pin file Configure's context named
	// (ssh.WithPinFile): a qemu+ssh:// host's key is pinned there unless
	// host_key or known_hosts_file decides (remote.go, hostSSH).
	hostPins string
}

var _ providers.Provider = (*Provider)(nil)

// New returns an unconfigured provider with the defaults.
func New() *Provider {
	p := &Provider{poll: 250 * time.Millisecond}
	p.dial = p.dialURI
	p.cfg = Config{URI: DefaultURI, Pool: DefaultPool, Accel: "kvm"}
	p.bootTimeout, p.leaseTimeout, p.callTimeout = DefaultBootTimeout, DefaultLeaseTimeout, DefaultCallTimeout
	return p
}

// Configure decodes the provider block. It does not connect: validate and
// plan work without a daemon.
func (p *Provider) Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics {
	var c Config
	ec := p.EvalContext
	if ec == nil {
		ec = providers.EvalContext(ctx) // var.* from the spec, when the CLI passes them
	}
	diags := gohcl.DecodeBody(body, ec, &c)
	if diags.HasErrors() {
		return diags
	}
	cd := providers.NewConfigDiags(body)
	cd.Append(diags)
	cd.Unsupported(c.Remain, "libvirt", attributeList)
	bad := func(attr, summary, detail string) { cd.Errorf(attr, summary, "%s", detail) }
	if c.URI == "" {
		c.URI = DefaultURI
	}
	if u, err := url.Parse(c.URI); err != nil || u.Scheme == "" {
		bad("uri", "Invalid libvirt URI", fmt.Sprintf("uri %q is not a libvirt URI like qemu:///system or qemu+ssh://user@host/system.", c.URI))
	}
	if c.Pool == "" {
		c.Pool = DefaultPool
	}
	switch c.Accel {
	case "":
		c.Accel = "kvm"
	case "kvm", "tcg":
	default:
		bad("accel", "Invalid accel", fmt.Sprintf(`accel must be "kvm" or "tcg", got %q.`, c.Accel))
	}
	switch c.NICDriver {
	case "", "vhost", "qemu":
	default:
		bad("nic_driver", "Invalid nic_driver", fmt.Sprintf(`nic_driver must be "vhost" or "qemu", got %q.`, c.NICDriver))
	}
	if c.Network != "" && c.NAT {
		bad("nat", "Conflicting arguments", "nat applies to the networks lab creates; with network set, lab creates none.")
	}
	if c.Management == ManagementLab && c.Network != "" {
		bad("management", "Conflicting arguments", `management = "lab" makes a management network beside each network lab creates; with network set, lab creates none: name an existing network as management instead.`)
	}
	if c.Management != "" && c.Management == c.Network {
		bad("management", "Conflicting arguments", fmt.Sprintf("management and network both name %q: the management NIC must be apart from the benchmark link.", c.Network))
	}
	checkLinkDevice(c, cd)
	if c.Emulator == "" {
		c.Emulator = DefaultEmulator
	}
	if c.Machine == "" {
		c.Machine = DefaultMachine
	}
	if !machineType.MatchString(c.Machine) {
		bad("machine", "Invalid machine", fmt.Sprintf(`machine = %q is not a QEMU x86 machine type like "pc", "q35", "pc-q35-8.2" or "pc-i440fx-8.2".`, c.Machine))
	}
	pin, pd := decodePin(c.Pin, ec)
	cd.Append(pd)
	p.pin = pin
	if c.Cmdline == "" {
		c.Cmdline = DefaultCmdline
	}
	if c.Initrd != "" && c.Kernel == "" {
		bad("initrd", "Missing kernel", "initrd is only used with kernel (direct kernel boot).")
	}
	if !cd.HasErrors() {
		checkRemote(c, cd)
	}
	p.bootTimeout, p.leaseTimeout, p.callTimeout = DefaultBootTimeout, DefaultLeaseTimeout, DefaultCallTimeout
	for _, d := range []struct {
		name string
		s    string
		into *time.Duration
	}{{"boot_timeout", c.BootTimeout, &p.bootTimeout}, {"lease_timeout", c.LeaseTimeout, &p.leaseTimeout}, {"call_timeout", c.CallTimeout, &p.callTimeout}} {
		if d.s == "" {
			continue
		}
		v, err := time.ParseDuration(d.s)
		if err != nil || v <= 0 {
			bad(d.name, "Invalid duration", fmt.Sprintf("%s = %q is not a positive duration like \"90s\" or \"5m\".", d.name, d.s))
			continue
		}
		*d.into = v
	}
	p.cfg = c
	p.hostPins = ssh.PinFileFrom(ctx)
	return cd.Diags()
}

// Close disconnects from libvirtd. A daemon that stopped answering is not
// asked to close the connection (that call would wait out its deadline
// too): the socket is just closed.
func (p *Provider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l == nil {
		return nil
	}
	l, w := p.l, p.watch
	p.l, p.watch = nil, nil
	if p.dead != nil || (w != nil && w.stalledErr() != nil) {
		if w != nil {
			_ = w.Close()
		}
		return nil
	}
	return l.Disconnect()
}

// conn returns the connection to libvirtd, dialling on first use and again
// after the daemon dropped it; after a call went unanswered it fails at
// once with that cause.
func (p *Provider) conn() (*golibvirt.Libvirt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead != nil {
		return nil, p.dead
	}
	if p.l != nil && p.l.IsConnected() {
		return p.l, nil
	}
	if p.watch != nil {
		if st := p.watch.stalledErr(); st != nil {
			p.dead = st
			return nil, st
		}
	}
	u, err := url.Parse(p.cfg.URI)
	if err != nil {
		return nil, fmt.Errorf("libvirt uri %q: %w", p.cfg.URI, err)
	}
	l, w, err := p.dial(u, p.callTimeout)
	if err != nil {
		var st *StalledError
		if errors.As(err, &st) {
			p.dead = err
			return nil, err
		}
		return nil, fmt.Errorf("connect to libvirt at %s: %w", p.cfg.URI, err)
	}
	p.l, p.watch = l, w
	return l, nil
}

// explain adds, to an error from a call on the connection, why the
// connection was closed when a call went unanswered (go-libvirt itself only
// says "procedure interrupted").
func (p *Provider) explain(err *error) {
	if *err == nil {
		return
	}
	p.mu.Lock()
	w, dead := p.watch, p.dead
	p.mu.Unlock()
	st := dead
	if st == nil && w != nil {
		st = w.stalledErr()
	}
	if st == nil || errors.Is(*err, st) {
		return
	}
	*err = fmt.Errorf("%w (%v)", st, *err)
}

// isNotFound reports a libvirt "no such domain/network/volume/interface" error.
func isNotFound(err error) bool {
	if err == nil {
		return false
	}
	if golibvirt.IsNotFound(err) {
		return true
	}
	var le golibvirt.Error
	if errors.As(err, &le) {
		switch golibvirt.ErrorNumber(le.Code) {
		case golibvirt.ErrNoDomain, golibvirt.ErrNoNetwork, golibvirt.ErrNoStorageVol, golibvirt.ErrNoDomainMetadata, golibvirt.ErrNoInterface:
			return true
		}
	}
	return false
}

// isNotRunning reports "domain/network is not running" (destroy of a
// stopped object), which Delete treats as done.
func isNotRunning(err error) bool {
	var le golibvirt.Error
	return errors.As(err, &le) && golibvirt.ErrorNumber(le.Code) == golibvirt.ErrOperationInvalid
}

// callErr names the object and the libvirt call in an error.
func callErr(call, object string, err error) error {
	return fmt.Errorf("libvirt %s %s: %w", call, object, err)
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// The engine's optional interface, pinned.
var _ providers.HostCPUMeter = (*Provider)(nil)
