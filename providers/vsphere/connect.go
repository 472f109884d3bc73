package vsphere

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/providers"
)

// dialFunc opens a transport to a guest; dialSSH unless a test replaces it.
type dialFunc func(ctx context.Context, guestName string, c ssh.Config) (guest.Transport, error)

func dialSSH(ctx context.Context, guestName string, c ssh.Config) (guest.Transport, error) {
	t, err := ssh.Dial(ctx, guestName, c)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// SSHRetry is how long Connect keeps trying while a guest's sshd starts
// (VMware Tools may report the address before sshd listens).
var SSHRetry = 2 * time.Minute

// Connect returns an SSH transport to a machine at the address VMware
// Tools reported, as the template's ssh {} block says (recorded in the
// instance's ssh_* attributes at create).
func (p *Provider) Connect(in providers.Instance) (guest.Transport, error) {
	addr := in.Attrs["addr"]
	if addr == "" {
		return nil, fmt.Errorf("%s: no guest address recorded", in.Address)
	}
	c := ssh.Config{User: in.Attrs["ssh_user"], Host: addr, PrivateKeyFile: in.Attrs["ssh_private_key_file"],
		KnownHostKey: in.Attrs["ssh_host_key"], Retry: SSHRetry}
	if s := in.Attrs["ssh_port"]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%s: bad ssh_port %q", in.Address, s)
		}
		c.Port = n
	}
	ctx, cancel := context.WithTimeout(context.Background(), SSHRetry+30*time.Second)
	defer cancel()
	dial := p.dial
	if dial == nil {
		dial = dialSSH
	}
	return dial(ctx, in.Address, c)
}
