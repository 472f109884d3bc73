// Package hosts is the back end for machines that already exist — bare
// metal or long-lived VMs — reached over SSH. Nothing is created or
// destroyed: Create connects and records how to reach the machine (and its
// SSH host key, pinned from then on), Delete forgets it.
//
// Because the machines are borrowed, the engine puts every setting a lab
// changes back at teardown: hosts declares Capabilities.Borrowed.
package hosts

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TypeName is the provider type in specs: provider "hosts" "name" {}.
const TypeName = "hosts"

func init() { providers.Register(TypeName, func() providers.Provider { return New() }) }

// Provider reaches the two machines its block names.
type Provider struct {
	// Hosts by role ("server", "client"), filled by Configure.
	Hosts map[string]*Host
	// Retry is how long Create keeps trying to reach a machine (default
	// 30 s); Connect uses it too.
	Retry time.Duration
}

var _ providers.Provider = (*Provider)(nil)

// New returns an unconfigured provider.
func New() *Provider { return &Provider{Retry: 30 * time.Second} }

// Configure decodes the server and client blocks; expressions may use
// var.* when ctx carries the spec's evaluation context.
func (p *Provider) Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics {
	hosts, diags := decode(body, providers.EvalContext(ctx))
	p.Hosts = hosts
	return diags
}

// Capabilities says what the hosts back end offers: the machines are borrowed (not lab's, so what lab changes
// on them is restored at teardown); guest offloads and CPU pinning (vcpu
// is how many of the listed cpus are used) work; nothing about the
// hardware or the network between them can be chosen. They are cabled
// already (ExistingNetwork), so a block may give one end of a cross pair;
// a router block makes routed pairs go through an existing router, whose
// forwarding and routes are the user's. Roles are the blocks it has.
func (p *Provider) Capabilities() providers.Capabilities {
	var roles []string
	for _, r := range Roles {
		if p.Hosts[r] != nil {
			roles = append(roles, r)
		}
	}
	return providers.Capabilities{Borrowed: true, GuestOffloads: true, NICRings: true, ExistingNetwork: true, RoutedPairs: true, Roles: roles}
}

// Close has nothing to end: each command dials and closes its own
// connections.
func (p *Provider) Close(context.Context) error { return nil }

// Link returns a nominal link: the machines are already connected.
func (p *Provider) Link(_ context.Context, l providers.LinkSpec) (machine.Instance, error) {
	return machine.Instance{Address: l.Address, Provider: TypeName, Kind: "link", ID: l.Name, Name: l.Name,
		Attrs: map[string]string{"nominal": "true"}}, nil
}

// Create connects to the machine for m's role (retrying while it is
// unreachable), checks the benchmark interface exists on Linux machines,
// and records how to reach it, the host key it presented and the benchmark
// address. The key is checked against the spec's host_key, else the
// known_hosts_file, else the workspace's pin file (ssh.WithPinFile in
// ctx), which pins it on first contact and keeps it across applies.
func (p *Provider) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	h, err := p.host(m.Role)
	if err != nil {
		return machine.Instance{}, fmt.Errorf("create %s: %w", m.Address, err)
	}
	c, err := withHostLogin(p.sshConfig(h, h.HostKey), h)
	if err != nil {
		return machine.Instance{}, fmt.Errorf("create %s: %w", m.Address, err)
	}
	t, err := labssh.Dial(ctx, m.Address, c)
	if err != nil {
		return machine.Instance{}, fmt.Errorf("create %s: %w", m.Address, err)
	}
	defer t.Close()
	login := machine.Login{User: h.User, Port: h.Port, PrivateKeyFile: h.PrivateKeyFile, HostKey: t.HostKey()}
	in := machine.Instance{Address: m.Address, Provider: TypeName, Kind: "machine", ID: h.Address, Name: h.Address,
		Attrs:    map[string]string{"role": m.Role, "os": m.Template.OS, "borrowed": "true"},
		Endpoint: providers.SSHEndpoint(h.Address, login)}
	in.Endpoint.Addr, in.Endpoint.Iface, in.Endpoint.CPUs = h.BenchAddress, h.Iface, cpuList(h.CPUs)
	in.Endpoint.Iface2 = h.Iface2
	if check := guest.For(m.Template.OS).NICs.Check; check != nil {
		for _, iface := range []string{h.Iface, h.Iface2} {
			if iface == "" {
				continue
			}
			if _, err := t.Run(ctx, check(iface)); err != nil {
				return in, fmt.Errorf("create %s: benchmark interface %s: %w", m.Address, iface, err)
			}
		}
	}
	in.Endpoint.TemplateID = machineIdentity(ctx, t)
	return in, nil
}

// Connect dials the machine, its host key checked as at Create (the pin
// file decides, not the key recorded in state, so that a rotation accepted
// by removing the pin is accepted here too; without a pin file in ctx the
// recorded key is required), logging in with the spec's private_key_file.
// A machine recorded under another address than the spec now names is
// still reached where it was recorded.
func (p *Provider) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	h, err := p.host(in.Attrs["role"])
	if err != nil {
		return nil, err
	}
	ep := machine.EndpointOf(in)
	if ep.SSH == nil {
		return nil, fmt.Errorf("%s: no SSH login recorded; run `lab destroy` to forget this machine", in.Address)
	}
	c := labssh.ConfigFor(ep.SSHHost, *ep.SSH)
	c.DialTimeout, c.Retry = 10*time.Second, p.Retry
	// The spec's key file, not the one recorded: a reinstalled machine
	// may take a new key, and the spec is what the user keeps up to date.
	c.PrivateKeyFile = h.PrivateKeyFile
	c.Pin = true
	switch {
	case h.HostKey != "":
		c.KnownHostKey, c.HostKeyFix = h.HostKey, hostKeyFix
	case labssh.PinFileFrom(ctx) != "":
		c.KnownHostKey = ""
		if err := seedPins(labssh.PinFileFrom(ctx), c.Addr(), ep.SSH.HostKey); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Address, err)
		}
	}
	c, err = withHostLogin(c, h)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Address, err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.Retry+c.DialTimeout)
	defer cancel()
	return labssh.Dial(ctx, in.Address, c)
}

// seedPins pins the key recorded in state when the workspace has no pin
// file yet: a workspace from before pin files kept a kept machine's key in
// the state only, and it must not be trusted anew. Once the file exists
// (ssh-keygen -R leaves it), it alone decides.
func seedPins(file, addr, recorded string) error {
	if recorded == "" {
		return nil
	}
	if _, err := os.Stat(file); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return labssh.AddPin(file, addr, recorded)
}

// TemplateID dials m's machine and returns its kernel and benchmark tool
// versions: what an existing machine's results depend on.
func (p *Provider) TemplateID(ctx context.Context, m machine.Machine) (string, error) {
	h, err := p.host(m.Role)
	if err != nil {
		return "", err
	}
	c, err := withHostLogin(p.sshConfig(h, h.HostKey), h)
	if err != nil {
		return "", fmt.Errorf("%s: %w", m.Address, err)
	}
	t, err := labssh.Dial(ctx, m.Address, c)
	if err != nil {
		return "", fmt.Errorf("%s: %w", m.Address, err)
	}
	defer t.Close()
	return machineIdentity(ctx, t), nil
}

// machineIdentity is "<uname -sr>; <the default tool's version line>"
// ("Linux 6.1.0-28-amd64; iperf 3.12 (cJSON 1.7.15)"), each part left out
// when its command fails; the tool declares its version command
// (bench.Program.Version).
func machineIdentity(ctx context.Context, t guest.Transport) string {
	var parts []string
	for _, argv := range append([][]string{{"uname", "-sr"}}, bench.VersionCommands(bench.DefaultTool)...) {
		out, err := t.Run(ctx, guest.Cmd{Argv: argv})
		if err != nil {
			continue
		}
		line, _, _ := strings.Cut(strings.TrimSpace(string(out.Stdout)), "\n")
		if line != "" {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, "; ")
}

// Read reports the machine as present: it is not lab's to lose.
func (p *Provider) Read(_ context.Context, in machine.Instance) (machine.Instance, bool, error) {
	return in, true, nil
}

// Delete forgets the machine; nothing is removed. (The engine restores
// the machine's settings before it calls Delete.)
func (p *Provider) Delete(context.Context, machine.Instance) error { return nil }

// List finds nothing: lab creates nothing on existing machines.
func (p *Provider) List(context.Context, machine.Owner) ([]machine.Instance, error) {
	return nil, nil
}

func (p *Provider) host(role string) (*Host, error) {
	h := p.Hosts[role]
	if h == nil {
		return nil, errors.New("no " + strconv.Quote(role) + " block in the hosts provider")
	}
	return h, nil
}

func (p *Provider) sshConfig(h *Host, known string) labssh.Config {
	return labssh.Config{User: h.User, Host: h.Address, Port: h.Port, PrivateKeyFile: h.PrivateKeyFile,
		KnownHostKey: known, HostKeyFix: hostKeyFix, Pin: true, DialTimeout: 10 * time.Second, Retry: p.Retry}
}

// hostKeyFix is what a machine presenting another key than the spec's
// host_key is told.
const hostKeyFix = "If the machine's host key was changed on purpose, check the new key and set host_key in the spec to it"

// withHostLogin adds what the spec says of the way to h to c: ssh-agent,
// a known_hosts file, jump hosts (proxy_jump).
func withHostLogin(c labssh.Config, h *Host) (labssh.Config, error) {
	c.Agent, c.KnownHostsFile = h.Agent, h.KnownHostsFile
	if h.ProxyJump == "" {
		return c, nil
	}
	return c.WithProxyJump(h.ProxyJump, nil)
}
