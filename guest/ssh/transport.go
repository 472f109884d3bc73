// Package ssh is the guest.Transport for machines reached over SSH
// (golang.org/x/crypto/ssh): existing hosts, VMs, a bhyve host. Every
// command is one session whose command line is the argv quoted word by word
// with guest.ShellJoin, so each word arrives literally, whatever it holds.
// The argv runs under a small `sh -c` wrapper that reports its process id,
// so that a cancelled command can be killed (see pid.go); test servers use
// Unwrap to see the command itself.
//
// Host keys are pinned: Dial refuses a key other than Config.KnownHostKey,
// or checks an OpenSSH known_hosts file (Config.KnownHostsFile), or, for
// a long-lived machine (Config.Pin) and every jump host, the workspace's
// pin file (WithPinFile: trusted on first contact, kept across applies);
// with none of these it trusts the first key seen and reports it
// (Transport.HostKey) for the caller to record. Keys come from a file, a
// Signer or ssh-agent (Config.Agent); a connection may go through a jump
// host (Config.Jump, OpenSSH's ProxyJump); ~/.ssh/config Host aliases are
// read by ReadSSHConfig and applied with Config.Resolve.
package ssh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	xssh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/guest"
)

// closeWait bounds how long Run waits for a cancelled session to end.
const closeWait = 2 * time.Second

// Transport runs commands on one guest over one SSH connection. It is safe
// for concurrent use: each Run opens its own session.
type Transport struct {
	guest   string
	addr    string
	client  *xssh.Client
	hostKey string
	jump    *Transport // the jump host the connection goes through, if any
}

var _ guest.Transport = (*Transport)(nil)

// Name is the guest's name for messages.
func (t *Transport) Name() string { return t.guest }

// HostKey is the host key the guest presented, one authorized_keys-format
// line; record it to pin it for later connections.
func (t *Transport) HostKey() string { return t.hostKey }

// Close closes the connection (and every session on it), then the jump
// host's connection it went through.
func (t *Transport) Close() error {
	err := t.client.Close()
	if t.jump != nil {
		err = errors.Join(err, t.jump.Close())
	}
	return err
}

// Run runs c in a new session and waits for it. A non-zero exit status is a
// *guest.CommandError carrying stderr; a lost connection or a cancelled ctx
// is a *guest.CommandError whose Err says so. When ctx ends the remote
// process is sent SIGKILL and the session is closed.
func (t *Transport) Run(ctx context.Context, c guest.Cmd) (guest.Result, error) {
	ce := &guest.CommandError{Guest: t.guest, Cmd: c.Label()}
	if len(c.Argv) == 0 {
		ce.Err = errors.New("empty command")
		return guest.Result{}, ce
	}
	if err := ctx.Err(); err != nil {
		ce.Err = err
		return guest.Result{}, ce
	}
	sess, err := t.client.NewSession()
	if err != nil {
		ce.Err = fmt.Errorf("open session: %w", err)
		return guest.Result{}, ce
	}
	defer sess.Close()
	var stdout lockedBuffer
	pw := &pidWriter{}
	sess.Stdin, sess.Stdout, sess.Stderr = c.Stdin, &stdout, pw
	if err := sess.Start(guest.ShellJoin(wrapped(c.Argv))); err != nil {
		ce.Err = fmt.Errorf("start: %w", err)
		return guest.Result{}, ce
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = sess.Signal(xssh.SIGKILL) // refused by OpenSSH for root: see pid.go
		_ = sess.Close()
		if pid := pw.PID(); pid > 1 {
			t.kill(pid)
		}
		select {
		case werr := <-done:
			_ = werr // the session ended; ctx.Err() is the error to report
		case <-time.After(closeWait):
		}
		err = ctx.Err()
	}
	pw.flush()
	res := guest.Result{Stdout: stdout.Bytes(), Stderr: pw.Bytes()}
	if err == nil {
		return res, nil
	}
	ce.Stderr = string(res.Stderr)
	var exit *xssh.ExitError
	switch {
	case ctx.Err() != nil:
		ce.Err = ctx.Err()
		ce.ExitCode = -1
	case errors.As(err, &exit):
		res.ExitCode, ce.ExitCode = exit.ExitStatus(), exit.ExitStatus()
		if exit.Signal() != "" {
			ce.Err = fmt.Errorf("killed by signal %s", exit.Signal())
		}
	default:
		// *ssh.ExitMissingError and I/O errors: the connection dropped.
		ce.ExitCode = -1
		ce.Err = fmt.Errorf("connection to %s lost: %w", t.addr, err)
	}
	res.ExitCode = ce.ExitCode
	return res, ce
}

// kill sends SIGKILL to a remote process over a new session, giving up
// after closeWait. Opening the session is inside that bound too: on a
// connection to a guest that is gone (destroyed, not rebooted) it would
// wait for the server's reply until TCP gives up, minutes later.
func (t *Transport) kill(pid int) {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sess, err := t.client.NewSession()
		if err != nil {
			return
		}
		defer sess.Close()
		_ = sess.Run(guest.ShellJoin([]string{"kill", "-KILL", strconv.Itoa(pid)}))
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Upload writes r to path on the guest (`sh -c 'cat > "$1"' sh PATH`, the
// path passed as a word of its own).
func (t *Transport) Upload(ctx context.Context, path string, r io.Reader) error {
	_, err := t.Run(ctx, guest.Cmd{Argv: UploadArgv(path), Stdin: r})
	if err != nil {
		return fmt.Errorf("upload %s: %w", path, err)
	}
	return nil
}

// UploadArgv is the command Upload runs for path.
func UploadArgv(path string) []string {
	return []string{"sh", "-c", `cat > "$1"`, "sh", path}
}

// DialUnix opens a connection to the Unix socket at path on the remote
// host, through the SSH connection (OpenSSH's direct-streamlocal channel,
// as `ssh -L LOCAL:/path` uses; sshd must allow it,
// AllowStreamLocalForwarding, yes by default). Closing the connection
// leaves the transport open.
func (t *Transport) DialUnix(path string) (net.Conn, error) {
	c, err := t.client.Dial("unix", path)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): open %s: %w", t.guest, t.addr, path, err)
	}
	return c, nil
}
