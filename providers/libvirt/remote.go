package libvirt

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"

	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Remote libvirt over SSH. For qemu+ssh://[user@]host[:port]/system lab
// logs in to the host with its own SSH client (guest/ssh: a key file,
// ssh-agent, a pinned key or a known_hosts file, ~/.ssh/config aliases
// and ProxyJump, as for every SSH login lab makes) and opens libvirtd's
// Unix socket on the host through that connection (a direct-streamlocal
// channel, as go-libvirt's own SSH dialer and `ssh -L` do; sshd's
// AllowStreamLocalForwarding, yes by default, must allow it). libvirt's
// own client runs a command instead (`virt-ssh-helper URI`, or `nc -U
// SOCKET`: src/rpc/virnetclient.c virNetClientSSHHelperCommand), which
// needs those programs on the host but no forwarding. The same login can
// be the guests' jump host (jump_via_host): guests on the host's isolated
// networks are then reached through it.

// defaultRemoteSocket is libvirtd's system socket (libvirt's
// LIBVIRTD_PRIV_UNIX_SOCKET, go-libvirt's dialers.defaultSocket); the
// URI's socket= parameter names another.
const defaultRemoteSocket = "/var/run/libvirt/libvirt-sock"

// sshScheme reports a URI whose transport is lab's SSH (driver+ssh).
func sshScheme(u *url.URL) bool { return strings.HasSuffix(u.Scheme, "+ssh") }

// checkRemote checks the SSH attributes of the provider block against
// the URI: they apply to qemu+ssh:// only.
func checkRemote(c Config, cd *providers.ConfigDiags) {
	u, err := url.Parse(c.URI)
	if err != nil {
		return // reported on uri
	}
	set := map[string]bool{"private_key_file": c.PrivateKeyFile != "", "host_key": c.HostKey != "", "agent": c.Agent,
		"known_hosts_file": c.KnownHostsFile != "", "ssh_config": c.SSHConfig != "", "jump_via_host": c.JumpViaHost}
	if !sshScheme(u) {
		for _, name := range []string{"private_key_file", "host_key", "agent", "known_hosts_file", "ssh_config", "jump_via_host"} {
			if set[name] {
				cd.Errorf(name, "SSH setting without SSH", "%s applies to a qemu+ssh://user@host/system uri; uri is %q.", name, c.URI)
			}
		}
		return
	}
	if u.Hostname() == "" {
		cd.Errorf("uri", "Invalid libvirt URI", "uri %q names no host: qemu+ssh://user@host/system.", c.URI)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			cd.Errorf("uri", "Invalid libvirt URI", "uri %q: port %q is not 1..65535.", c.URI, p)
		}
	}
	if s := u.Query().Get("socket"); s != "" && !strings.HasPrefix(s, "/") {
		cd.Errorf("uri", "Invalid libvirt URI", "uri %q: socket must be an absolute path on the host.", c.URI)
	}
	if u.Path != "/system" && u.Query().Get("socket") == "" {
		cd.Errorf("uri", "Invalid libvirt URI", "uri %q: over SSH lab reaches the system daemon (/system); for another, name its socket (?socket=/path).", c.URI)
	}
	login := machine.Login{User: u.User.Username(), PrivateKeyFile: c.PrivateKeyFile, HostKey: c.HostKey}
	for _, p := range ssh.CheckLogin(&login) {
		if p.Attr == "user" || p.Attr == "port" {
			p.Attr = "uri"
		}
		cd.Errorf(p.Attr, p.Summary, "%s", p.Detail)
	}
	for name, v := range map[string]string{"known_hosts_file": c.KnownHostsFile, "ssh_config": c.SSHConfig} {
		if strings.ContainsAny(v, "\x00\n\r") {
			cd.Errorf(name, "Invalid "+name, "%s must be a path without control characters.", name)
		}
	}
}

// hostSSH is how to log in to the libvirt host of a qemu+ssh:// URI, and
// the socket to open there. What the URI and the block leave unset comes
// from the ssh_config entry, then OpenSSH's defaults (the local user's
// name) and lab's (~/.ssh/id_ed25519).
func (p *Provider) hostSSH() (ssh.Config, string, error) {
	u, err := url.Parse(p.cfg.URI)
	if err != nil {
		return ssh.Config{}, "", err
	}
	port, _ := strconv.Atoi(u.Port())
	c := ssh.Config{User: u.User.Username(), Host: u.Hostname(), Port: port, PrivateKeyFile: p.cfg.PrivateKeyFile,
		KnownHostKey: p.cfg.HostKey, Agent: p.cfg.Agent, KnownHostsFile: p.cfg.KnownHostsFile, DialTimeout: 15 * time.Second,
		// A hypervisor is a long-lived machine, like a borrowed one or a
		// jump host: without host_key or known_hosts_file its key is pinned
		// in the workspace's pin file on first contact, refused if it
		// changes.
		Pin: true, PinFile: p.hostPins}
	if p.cfg.SSHConfig != "" {
		sc, err := ssh.ReadSSHConfig(p.cfg.SSHConfig)
		if err != nil {
			return c, "", fmt.Errorf("libvirt host %s: %w", c.Host, err)
		}
		if c, err = c.Resolve(sc); err != nil {
			return c, "", fmt.Errorf("libvirt host %s: %w", u.Hostname(), err)
		}
	}
	if c.User == "" {
		if me, err := user.Current(); err == nil {
			c.User = me.Username
		}
	}
	if c.PrivateKeyFile == "" && !c.Agent {
		c.PrivateKeyFile = ssh.DefaultPrivateKeyFile
	}
	socket := u.Query().Get("socket")
	if socket == "" {
		socket = defaultRemoteSocket
	}
	return c, socket, nil
}

// dialURI connects to the libvirtd of uri through a watched connection
// (dialLibvirt): over lab's SSH client for driver+ssh URIs, else with
// go-libvirt's dialer for the URI's transport (dialerFor).
func (p *Provider) dialURI(u *url.URL, callTimeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
	if sshScheme(u) {
		return dialLibvirt(sshDialer{p: p}, u, callTimeout)
	}
	d, err := dialerFor(u, callTimeout)
	if err != nil {
		return nil, nil, err
	}
	return dialLibvirt(d, u, callTimeout)
}

// sshDialer is go-libvirt's socket.Dialer over lab's SSH client: each
// Dial logs in to the host and opens the socket.
type sshDialer struct{ p *Provider }

func (d sshDialer) Dial() (net.Conn, error) {
	c, socket, err := d.p.hostSSH()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.DialTimeout+5*time.Second)
	defer cancel()
	t, err := ssh.Dial(ctx, "libvirt host "+c.Host, c)
	if err != nil {
		return nil, err
	}
	conn, err := t.DialUnix(socket)
	if err != nil {
		_ = t.Close()
		return nil, err
	}
	return &sshConn{Conn: conn, t: t}, nil
}

// sshConn is the socket's connection; closing it logs out of the host.
type sshConn struct {
	net.Conn
	t    *ssh.Transport
	once sync.Once
}

func (c *sshConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { _ = c.t.Close() })
	return err
}

// guestJump is the jump host for the guests with jump_via_host (the
// libvirt host's login), nil without.
func (p *Provider) guestJump() (*ssh.Config, error) {
	if !p.cfg.JumpViaHost {
		return nil, nil
	}
	c, _, err := p.hostSSH()
	if err != nil {
		return nil, err
	}
	c.DialTimeout = 15 * time.Second
	return &c, nil
}
