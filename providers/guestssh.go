package providers

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
)

// Instance attributes in which VM back ends record, at create, how the
// engine reaches a guest over SSH: its address, the template's ssh {}
// settings (a key file path, never key material) and the host key seen
// on first contact, which every later connection must present.
const (
	AttrAddr       = "addr"
	AttrSSHUser    = "ssh_user"
	AttrSSHPort    = "ssh_port"
	AttrSSHKeyFile = "ssh_private_key_file"
	AttrSSHHostKey = "ssh_host_key"
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

// ConnectGuest dials a created machine's guest from its recorded SSH
// attributes, retrying for up to retry while the guest's sshd starts.
func ConnectGuest(in Instance, dial DialFunc, retry time.Duration) (guest.Transport, error) {
	addr := in.Attrs[AttrAddr]
	if addr == "" {
		return nil, fmt.Errorf("%s: no guest address recorded", in.Address)
	}
	c := ssh.Config{User: in.Attrs[AttrSSHUser], Host: addr, PrivateKeyFile: in.Attrs[AttrSSHKeyFile],
		KnownHostKey: in.Attrs[AttrSSHHostKey], Retry: retry}
	if s := in.Attrs[AttrSSHPort]; s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("%s: bad %s %q", in.Address, AttrSSHPort, s)
		}
		c.Port = n
	}
	if dial == nil {
		dial = DialSSH
	}
	ctx, cancel := context.WithTimeout(context.Background(), retry+30*time.Second)
	defer cancel()
	return dial(ctx, in.Address, c)
}
