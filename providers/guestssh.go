package providers

import (
	"context"
	"fmt"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
)

// DialFunc opens a transport to a guest: DialSSH, unless a test replaces it.
type DialFunc func(ctx context.Context, guestName string, c ssh.Config) (guest.Transport, error)

// DialSSH is ssh.Dial as a DialFunc.
func DialSSH(ctx context.Context, guestName string, c ssh.Config) (guest.Transport, error) {
	t, err := ssh.Dial(ctx, guestName, c)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// SSHEndpoint is the endpoint of a guest reached over SSH at host with
// login (the template's ssh {} block with its defaults, and the host key
// pinned at first contact).
func SSHEndpoint(host string, login machine.Login) *machine.Endpoint {
	return &machine.Endpoint{SSHHost: host, SSH: &login}
}

// ConnectGuest dials a created machine's guest from its endpoint, retrying
// for up to retry while the guest's sshd starts, and giving up when ctx is
// done.
func ConnectGuest(ctx context.Context, in machine.Instance, dial DialFunc, retry time.Duration) (guest.Transport, error) {
	ep := machine.EndpointOf(in)
	if ep.SSH == nil || ep.SSHHost == "" {
		return nil, fmt.Errorf("%s: no SSH login recorded for this machine", in.Address)
	}
	c, err := ssh.DialConfig(ep.SSHHost, *ep.SSH)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Address, err)
	}
	c.Retry = retry
	if dial == nil {
		dial = DialSSH
	}
	ctx, cancel := context.WithTimeout(ctx, retry+30*time.Second)
	defer cancel()
	return dial(ctx, in.Address, c)
}
