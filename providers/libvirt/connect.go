package libvirt

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// dialGuest opens an SSH transport; replaced in tests.
var dialGuest = func(ctx context.Context, name string, c ssh.Config) (guestConn, error) {
	return ssh.Dial(ctx, name, c)
}

// guestConn is what the provider needs of an SSH transport.
type guestConn interface {
	guest.Transport
	HostKey() string
}

// sshConfig is how to dial a guest: its recorded login with the
// template's agent, known_hosts, ssh_config and proxy_jump applied; with
// jump_via_host through the libvirt host (which wins over proxy_jump).
func (p *Provider) sshConfig(in machine.Instance) (ssh.Config, error) {
	ep := machine.EndpointOf(in)
	c := ssh.Config{Host: ep.SSHHost}
	if ep.SSH != nil {
		var err error
		if c, err = ssh.DialConfig(ep.SSHHost, *ep.SSH); err != nil {
			return c, fmt.Errorf("%s: %w", in.Address, err)
		}
	}
	jump, err := p.guestJump()
	if err != nil {
		return c, fmt.Errorf("%s: %w", in.Address, err)
	}
	if jump != nil {
		c.Jump = jump
	}
	return c, nil
}

// waitSSH logs in to a new guest (retrying while it boots, up to
// boot_timeout from start), records the host key it saw (trust on first
// use: every later connection must present the same key), checks that the
// guest runs the template's OS (uname -s), finds the NIC with the
// guest's MAC (giving it the link's static address when the link is a
// host device or the guest a router; routedSetup finishes a routed
// pair's guests) and, on a template without cloud_init {} (whose seed names
// the guest), gives the guest its domain's name as hostname: every guest
// of a template image otherwise answers to the image's one name.
func (p *Provider) waitSSH(ctx context.Context, in *machine.Instance, tmpl machine.Template, start time.Time) error {
	c, err := p.sshConfig(*in)
	if err != nil {
		return err
	}
	c.KnownHostKey = ""
	// Right after the lease the guest may not have set its address yet and
	// drops the SYN (measured: the first login then came 1.1 s late, the
	// kernel's SYN retransmission), then refuses until its sshd listens: a
	// new connect every sshConnectPoll, none waiting for another
	// (guest/ssh.Config.ConnectPoll), so lab's first SYN to a listening
	// sshd follows its listen by at most that.
	c.ConnectPoll = sshConnectPoll
	c.Retry = p.bootTimeout - time.Since(start)
	if c.Retry <= 0 {
		return fmt.Errorf("boot_timeout %v passed before SSH was tried", p.bootTimeout)
	}
	t, err := dialGuest(ctx, in.Address, c)
	if err != nil {
		return fmt.Errorf("ssh: %w", err)
	}
	defer t.Close()
	trace("%s ssh login %v after start", in.Name, time.Since(start))
	in.Endpoint.SSH.HostKey = t.HostKey()
	// One round trip: the kernel's name, the guest's uptime (how long its
	// own boot took, against lab's create → SSH-ready) and its links, as
	// the OS lists them (a session costs a few hundred milliseconds under
	// TCG).
	nics := guest.For(tmpl.OS).NICs
	probe := probeCmd + "; " + nics.List.String()
	if tmpl.CloudInit == nil {
		probe += "; " + hostnameCmd(in.Name)
	}
	res, err := t.Run(ctx, guest.Cmd{Argv: []string{"sh", "-c", probe}})
	kernel, rest, _ := strings.Cut(string(res.Stdout), "\n")
	if werr := wrongOS(tmpl, strings.TrimSpace(kernel)); werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("probe the guest (%s): %w", probe, err)
	}
	uptime, links, _ := strings.Cut(rest, "\n")
	if f := strings.Fields(uptime); len(f) > 0 {
		in.Attrs[attrGuestUptime] = f[0]
	}
	iface := nics.ByMAC(links, in.Attrs[attrMAC])
	if iface == "" {
		return fmt.Errorf("no interface with MAC %s in the guest (%s)", in.Attrs[attrMAC], nics.List)
	}
	in.Endpoint.Iface = iface
	if prefix := in.Attrs[attrStaticAddr]; prefix != "" {
		// A link on a host device: nothing answers DHCP there.
		for _, c := range providers.StaticAddress(tmpl.OS, iface, prefix) {
			if _, err := t.Run(ctx, c); err != nil {
				return fmt.Errorf("set the link address %s on %s: %s: %w", prefix, iface, strings.Join(c.Argv, " "), err)
			}
		}
	}
	cmds, err := routedSetup(in, tmpl.OS, iface, links)
	if err != nil {
		return err
	}
	if err := providers.RunAll(ctx, t, "routed pair", cmds); err != nil {
		return err
	}
	trace("%s probed %v after start", in.Name, time.Since(start))
	return nil
}

// sshConnectPoll is how often lab starts a TCP connect to a booting
// guest's sshd: a refused or dropped SYN costs the guest next to nothing,
// and every poll's delay adds to the boot (BenchmarkKVMBoot's slack).
const sshConnectPoll = 25 * time.Millisecond

// probeCmd prints the guest's kernel name and its /proc/uptime line (an
// empty line where there is none); the OS's NIC listing follows it.
const probeCmd = "uname -s; cat /proc/uptime 2>/dev/null || echo"

// hostnameCmd sets a guest's hostname to name (cut to 63 bytes, as the
// cloud-init seed does) now and for later boots, in a POSIX shell every
// guest OS has: it asks `uname -s` which OS runs and runs that OS's
// fragment (guest.NICs.Hostname), the default OS's for any other kernel.
// It prints nothing and fails when the guest refuses.
func hostnameCmd(name string) string {
	if len(name) > 63 {
		name = name[:63]
	}
	q := "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
	cmd := "case $(uname -s) in "
	for _, n := range guest.Names() {
		if d := guest.For(n); !d.Default {
			cmd += d.Kernel + ") " + d.NICs.Hostname(q) + ";; "
		}
	}
	return cmd + "*) " + guest.For("").NICs.Hostname(q) + ";; esac"
}

// wrongOS is an error when the guest's kernel (uname -s) is not the one
// the template's os says: a FreeBSD template on a Linux image fails right
// after create, not at the first command the OS driver gets wrong.
func wrongOS(tmpl machine.Template, kernel string) error {
	if !guest.Registered(tmpl.OS) {
		return nil
	}
	want := guest.For(tmpl.OS).Kernel
	if kernel == want {
		return nil
	}
	if kernel == "" {
		kernel = "nothing"
	}
	return fmt.Errorf("template %q says os = %q, but the guest's uname -s answers %s (not %s): the template's source %q holds another OS",
		tmpl.Name, tmpl.OS, kernel, want, tmpl.Source)
}

// Connect returns an SSH transport to a created guest. The host key must be
// the one recorded when the guest was created.
func (p *Provider) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	ep := machine.EndpointOf(in)
	if ep.SSHHost == "" {
		return nil, fmt.Errorf("%s: no address recorded", in.Address)
	}
	if ep.SSH == nil || ep.SSH.HostKey == "" {
		return nil, fmt.Errorf("%s: no SSH host key recorded (the guest was never reached)", in.Address)
	}
	c, err := p.sshConfig(in)
	if err != nil {
		return nil, err
	}
	c.Retry = 30 * time.Second
	return dialGuest(ctx, in.Address, c)
}
