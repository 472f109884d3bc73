package libvirt

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TeamFootprint is the footprint as runners of one team name it for their
// shared benchmark lock: this machine for a libvirt on this host (as
// Footprint, or reached over loopback), and for a remote libvirt its host as the URI names it
// ("libvirt host kvm1.example.net"): lower-cased, without the user, port,
// driver, transport, path or parameters, so that qemu+ssh://root@kvm1/system
// and qemu+tls://kvm1:16514/system of two runners are one host, and no
// credential or key file path reaches the database. Runners must name the
// host alike (a team's shared spec does).
func (p *Provider) TeamFootprint(context.Context, machine.Instance) (providers.Footprint, error) {
	if onThisHost(p.cfg.URI) || loopback(p.cfg.URI) {
		return providers.FootprintOf(providers.ThisMachine), nil
	}
	r, err := teamResource(p.cfg.URI)
	if err != nil {
		return providers.Footprint{}, err
	}
	return providers.FootprintOf(r), nil
}

// loopback reports whether uri's host is a loopback address: this
// machine, which another runner's loopback is not.
func loopback(uri string) bool {
	u, err := url.Parse(uri)
	if err != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// teamResource names a remote libvirt URI's host.
func teamResource(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Hostname() == "" {
		return "", fmt.Errorf("libvirt URI %q names no host", redactURI(uri))
	}
	return "libvirt host " + strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), nil
}

// redactURI drops the user information of a URI that does not parse
// far enough to drop it otherwise: everything up to the last '@'.
func redactURI(uri string) string {
	if i := strings.LastIndex(uri, "@"); i >= 0 {
		if j := strings.Index(uri, "://"); j >= 0 && j < i {
			return uri[:j+3] + "…" + uri[i:]
		}
	}
	return uri
}
