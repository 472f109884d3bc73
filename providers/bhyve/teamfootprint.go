package bhyve

import (
	"context"
	"net"
	"strings"

	gossh "golang.org/x/crypto/ssh"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TeamFootprint is the footprint as runners of one team name it for their
// shared benchmark lock: the FreeBSD host every VM of the provider runs on,
// by its host name as the block writes it ("bhyve host bsd1.example.net",
// lower-cased, without user or port: runners must name it alike, as a
// team's shared spec does), and, when host_key pins its key, also by that
// key's fingerprint ("ssh host SHA256:…", the hosts back end's name for a
// machine), so a runner that pins it and one that does not still meet.
// A host reached over loopback is this machine.
func (p *Provider) TeamFootprint(context.Context, machine.Instance) (providers.Footprint, error) {
	host := strings.ToLower(strings.TrimSuffix(p.cfg.Host, "."))
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return providers.FootprintOf(providers.ThisMachine), nil
	}
	rs := []string{"bhyve host " + host}
	if key, _, _, _, err := gossh.ParseAuthorizedKey([]byte(p.cfg.HostKey)); err == nil {
		rs = append(rs, "ssh host "+gossh.FingerprintSHA256(key))
	}
	return providers.FootprintOf(rs...), nil
}
