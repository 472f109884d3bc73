package libvirt

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	golibvirt "github.com/digitalocean/go-libvirt"
	"github.com/digitalocean/go-libvirt/socket"
	"github.com/digitalocean/go-libvirt/socket/dialers"
)

// DefaultCallTimeout bounds how long one libvirt call may go without an
// answer (see rpcWatch); call_timeout in the provider block changes it.
const DefaultCallTimeout = 60 * time.Second

// dialLibvirt connects to the daemon at uri with d through a watched
// connection: every call, the connection's own handshake included, fails
// after callTimeout without an answer instead of hanging. It returns the
// watch too, which says why the connection was closed.
func dialLibvirt(d socket.Dialer, uri *url.URL, callTimeout time.Duration) (*golibvirt.Libvirt, *rpcWatch, error) {
	wd := &watchedDialer{d: d, uri: uri.Redacted(), timeout: callTimeout}
	l := golibvirt.NewWithDialer(wd)
	if err := l.ConnectToURI(golibvirt.RemoteURI(uri)); err != nil {
		if wd.w != nil {
			if st := wd.w.stalledErr(); st != nil {
				return nil, nil, st
			}
			_ = wd.w.Close()
		}
		return nil, nil, err
	}
	return l, wd.w, nil
}

// watchedDialer dials with d and wraps the connection in an rpcWatch.
type watchedDialer struct {
	d       socket.Dialer
	uri     string
	timeout time.Duration
	w       *rpcWatch
}

func (wd *watchedDialer) Dial() (net.Conn, error) {
	c, err := wd.d.Dial()
	if err != nil {
		return nil, err
	}
	wd.w = watchRPC(c, wd.uri, wd.timeout)
	return wd.w, nil
}

// dialerFor picks go-libvirt's dialer for a URI the way libvirt's own
// client reads it (https://libvirt.org/uri.html, "Remote URIs"): the
// transport after "+" (unix without one, tls with a host), the socket,
// port, user, keyfile, known_hosts, no_verify and pkipath parameters.
// go-libvirt's ConnectToURI does the same but keeps the connection to
// itself; lab needs it to bound every call.
func dialerFor(uri *url.URL, timeout time.Duration) (socket.Dialer, error) {
	transport := uriTransport(uri)
	q := uri.Query()
	if m := strings.ToLower(q.Get("mode")); m == "direct" {
		return nil, errors.New("libvirt uri: mode=direct is not supported (lab talks to libvirtd)")
	}
	noVerify, err := uriNoVerify(q)
	if err != nil {
		return nil, err
	}
	switch transport {
	case "unix":
		return localDialer(q, timeout), nil
	case "tcp":
		opts := []dialers.RemoteOption{dialers.WithRemoteTimeout(timeout)}
		if port := uri.Port(); port != "" {
			opts = append(opts, dialers.UsePort(port))
		}
		return dialers.NewRemote(uri.Hostname(), opts...), nil
	case "tls":
		return tlsDialer(uri, q, noVerify), nil
	case "libssh", "libssh2":
		// qemu+ssh:// never reaches here: lab logs in with its own SSH
		// client (remote.go), so agent, known_hosts and ssh_config apply.
		if noVerify {
			return nil, fmt.Errorf("libvirt uri: no_verify does not apply to %s; use known_hosts_verify=ignore", transport)
		}
		return libsshDialer(uri, q)
	}
	return nil, fmt.Errorf("libvirt uri: transport %q is not one lab can use (unix, tcp, tls, ssh, libssh)", transport)
}

// uriTransport is the URI's transport as libvirt's client reads it: what
// follows "+" in the scheme, else tls with a host and unix without one.
func uriTransport(uri *url.URL) string {
	if _, t, ok := strings.Cut(uri.Scheme, "+"); ok {
		return t
	}
	if uri.Host != "" {
		return "tls"
	}
	return "unix"
}

// uriNoVerify reads the no_verify parameter: a number, true unless 0.
func uriNoVerify(q url.Values) (bool, error) {
	nv := q.Get("no_verify")
	if nv == "" {
		return false, nil
	}
	n, err := strconv.Atoi(nv)
	if err != nil {
		return false, fmt.Errorf("libvirt uri: no_verify=%q is not a number", nv)
	}
	return n != 0, nil
}

// localDialer dials libvirtd's local socket: the socket parameter, else
// go-libvirt's default.
func localDialer(q url.Values, timeout time.Duration) socket.Dialer {
	opts := []dialers.LocalOption{dialers.WithLocalTimeout(timeout)}
	if s := q.Get("socket"); s != "" {
		opts = append(opts, dialers.WithSocket(s))
	}
	return dialers.NewLocal(opts...)
}

// tlsDialer dials libvirtd over TLS with the URI's port, pkipath and
// no_verify.
func tlsDialer(uri *url.URL, q url.Values, noVerify bool) socket.Dialer {
	var opts []dialers.TLSOption
	if port := uri.Port(); port != "" {
		opts = append(opts, dialers.UseTLSPort(port))
	}
	if p := q.Get("pkipath"); p != "" {
		opts = append(opts, dialers.UsePKIPath(p))
	}
	if noVerify {
		opts = append(opts, dialers.WithInsecureNoVerify())
	}
	return dialers.NewTLS(uri.Hostname(), opts...)
}

// libsshDialer dials libvirtd through go-libvirt's own SSH client (the
// libssh and libssh2 transports): the URI's port, user, password,
// socket and keyfile, then how the host key is checked and which
// authentication methods are tried.
func libsshDialer(uri *url.URL, q url.Values) (socket.Dialer, error) {
	var opts []dialers.SSHOption
	if port := uri.Port(); port != "" {
		opts = append(opts, dialers.UseSSHPort(port))
	}
	if name := uri.User.Username(); name != "" {
		opts = append(opts, dialers.UseSSHUsername(name))
	}
	if pw, ok := uri.User.Password(); ok {
		opts = append(opts, dialers.UseSSHPassword(pw))
	}
	if s := q.Get("socket"); s != "" {
		opts = append(opts, dialers.WithRemoteSocket(s))
	}
	if k := q.Get("keyfile"); k != "" {
		opts = append(opts, dialers.UseKeyFile(k))
	}
	hk, err := sshHostKeyOptions(q)
	if err != nil {
		return nil, err
	}
	opts = append(opts, hk...)
	if a := q.Get("sshauth"); a != "" {
		m, err := sshAuthMethods(a)
		if err != nil {
			return nil, err
		}
		opts = append(opts, dialers.WithSSHAuthMethods(m))
	}
	return dialers.NewSSH(uri.Hostname(), opts...), nil
}

// sshHostKeyOptions reads how the SSH transport checks the host's key:
// the known_hosts file and known_hosts_verify (normal, auto or ignore).
func sshHostKeyOptions(q url.Values) ([]dialers.SSHOption, error) {
	var opts []dialers.SSHOption
	if kh := q.Get("known_hosts"); kh != "" {
		opts = append(opts, dialers.UseKnownHostsFile(kh))
	}
	switch v := q.Get("known_hosts_verify"); v {
	case "", "normal":
	case "auto":
		opts = append(opts, dialers.WithAcceptUnknownHostKey())
	case "ignore":
		opts = append(opts, dialers.WithInsecureIgnoreHostKey())
	default:
		return nil, fmt.Errorf("libvirt uri: known_hosts_verify=%q (normal, auto or ignore)", v)
	}
	return opts, nil
}

// sshAuthMethods reads the sshauth parameter, a comma-separated list of
// the methods to try in order.
func sshAuthMethods(a string) (*dialers.SSHAuthMethods, error) {
	m := &dialers.SSHAuthMethods{}
	for _, s := range strings.Split(a, ",") {
		switch strings.ToLower(s) {
		case "agent":
			m.Agent()
		case "privkey":
			m.PrivKey()
		case "password":
			m.Password()
		case "keyboard-interactive":
			m.KeyboardInteractive()
		default:
			return nil, fmt.Errorf("libvirt uri: sshauth method %q (agent, privkey, password, keyboard-interactive)", s)
		}
	}
	return m, nil
}
