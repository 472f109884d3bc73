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
	transport := "unix"
	if _, t, ok := strings.Cut(uri.Scheme, "+"); ok {
		transport = t
	} else if uri.Host != "" {
		transport = "tls"
	}
	q := uri.Query()
	if m := strings.ToLower(q.Get("mode")); m == "direct" {
		return nil, errors.New("libvirt uri: mode=direct is not supported (lab talks to libvirtd)")
	}
	noVerify := false
	if nv := q.Get("no_verify"); nv != "" {
		n, err := strconv.Atoi(nv)
		if err != nil {
			return nil, fmt.Errorf("libvirt uri: no_verify=%q is not a number", nv)
		}
		noVerify = n != 0
	}
	switch transport {
	case "unix":
		opts := []dialers.LocalOption{dialers.WithLocalTimeout(timeout)}
		if s := q.Get("socket"); s != "" {
			opts = append(opts, dialers.WithSocket(s))
		}
		return dialers.NewLocal(opts...), nil
	case "tcp":
		opts := []dialers.RemoteOption{dialers.WithRemoteTimeout(timeout)}
		if port := uri.Port(); port != "" {
			opts = append(opts, dialers.UsePort(port))
		}
		return dialers.NewRemote(uri.Hostname(), opts...), nil
	case "tls":
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
		return dialers.NewTLS(uri.Hostname(), opts...), nil
	case "libssh", "libssh2":
		// qemu+ssh:// never reaches here: lab logs in with its own SSH
		// client (remote.go), so agent, known_hosts and ssh_config apply.
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
		if noVerify {
			return nil, fmt.Errorf("libvirt uri: no_verify does not apply to %s; use known_hosts_verify=ignore", transport)
		}
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
		if a := q.Get("sshauth"); a != "" {
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
			opts = append(opts, dialers.WithSSHAuthMethods(m))
		}
		return dialers.NewSSH(uri.Hostname(), opts...), nil
	}
	return nil, fmt.Errorf("libvirt uri: transport %q is not one lab can use (unix, tcp, tls, ssh, libssh)", transport)
}
