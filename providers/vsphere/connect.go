package vsphere

import (
	"time"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/providers"
)

// SSHRetry is how long Connect keeps trying while a guest's sshd starts
// (VMware Tools may report the address before sshd listens).
var SSHRetry = 2 * time.Minute

// Connect returns an SSH transport to a machine at the address VMware
// Tools reported, as the template's ssh {} block says (recorded in the
// instance's ssh_* attributes at create).
func (p *Provider) Connect(in providers.Instance) (guest.Transport, error) {
	return providers.ConnectGuest(in, p.dial, SSHRetry)
}
