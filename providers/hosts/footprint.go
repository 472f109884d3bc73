package hosts

import (
	"context"
	"fmt"
	"net"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Footprint is the machine itself, named by the SSH host key it presented
// at create ("ssh host SHA256:…", the key's fingerprint as ssh-keygen -l
// prints it), not by its address: two names of one machine are one host,
// and two pairs that share a machine never run at once. A machine reached
// over loopback is also the machine lab runs on (providers.ThisMachine).
// The engine adds the segment between a pair's two machines.
func (p *Provider) Footprint(_ context.Context, in machine.Instance) (providers.Footprint, error) {
	ep := machine.EndpointOf(in)
	if ep.SSH == nil || ep.SSH.HostKey == "" {
		return providers.Footprint{}, fmt.Errorf("%s: no host key recorded", in.Address)
	}
	key, _, _, _, err := gossh.ParseAuthorizedKey([]byte(ep.SSH.HostKey))
	if err != nil {
		return providers.Footprint{}, fmt.Errorf("%s: recorded host key: %w", in.Address, err)
	}
	rs := []string{"ssh host " + gossh.FingerprintSHA256(key)}
	if loopback(ep.SSHHost) {
		rs = append(rs, providers.ThisMachine)
	}
	return providers.FootprintOf(rs...), nil
}

// loopback reports whether host names this machine by a loopback address
// or "localhost".
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
