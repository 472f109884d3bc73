package bhyve

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Iface is what lab reads of one host interface in `ifconfig` output.
type Iface struct {
	Desc    string
	MTU     int
	Members []string // a bridge's member interfaces
}

// ParseIfconfig reads `ifconfig` output (FreeBSD 14). Each interface is a
// header line at column 0, "bridge3: flags=8843<…> metric 0 mtu 9000"
// (sbin/ifconfig/ifconfig.c, status()), followed by tab-indented lines,
// among them "\tdescription: lab-x" (ifconfig.c, status()) and, on a
// bridge, one "\tmember: igb1 flags=143<…>" per member
// (sbin/ifconfig/ifbridge.c, bridge_status()).
func ParseIfconfig(out string) map[string]Iface {
	m := map[string]Iface{}
	cur := ""
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		if line[0] != '\t' && line[0] != ' ' {
			name, rest, ok := strings.Cut(line, ":")
			if !ok || strings.ContainsAny(name, " \t") {
				cur = ""
				continue
			}
			cur = name
			in := m[cur]
			f := strings.Fields(rest)
			for i := 0; i+1 < len(f); i++ {
				if f[i] == "mtu" {
					in.MTU, _ = strconv.Atoi(f[i+1])
				}
			}
			m[cur] = in
			continue
		}
		if cur == "" {
			continue
		}
		in := m[cur]
		t := strings.TrimSpace(line)
		if d, ok := strings.CutPrefix(t, "description: "); ok {
			in.Desc = strings.TrimSpace(d)
		} else if mem, ok := strings.CutPrefix(t, "member: "); ok {
			if f := strings.Fields(mem); len(f) > 0 {
				in.Members = append(in.Members, f[0])
			}
		}
		m[cur] = in
	}
	return m
}

// ParseDescriptions maps interface names to their descriptions in
// `ifconfig` output (see ParseIfconfig).
func ParseDescriptions(out string) map[string]string {
	m := map[string]string{}
	for name, in := range ParseIfconfig(out) {
		if in.Desc != "" {
			m[name] = in.Desc
		}
	}
	return m
}

// interfaces reads every host interface (`ifconfig`).
func (p *Provider) interfaces(ctx context.Context) (map[string]Iface, error) {
	out, err := p.run(ctx, "ifconfig")
	if err != nil {
		return nil, err
	}
	return ParseIfconfig(out), nil
}

// bridgeOf is the bridge that has iface as a member, "" when none has.
func bridgeOf(ifs map[string]Iface, iface string) string {
	for name, in := range ifs {
		for _, m := range in.Members {
			if m == iface {
				return name
			}
		}
	}
	return ""
}

// prepareUplink checks that the uplink can join a new bridge and records
// its MTU (into attrs) so that deleting the link restores it: a FreeBSD
// interface belongs to one bridge at most (sys/net/if_bridge.c,
// bridge_ioctl_add: EBUSY when ifs->if_bridge is set), and both vm-bhyve
// (lib/vm-switch-standard, switch::standard::__configure_port: `ifconfig
// PORT mtu MTU`) and raw mode raise the uplink's MTU to the link's.
func (p *Provider) prepareUplink(ctx context.Context, linkAddr string, attrs map[string]string) error {
	up := p.cfg.Uplink
	ifs, err := p.interfaces(ctx)
	if err != nil {
		return err
	}
	in, ok := ifs[up]
	if !ok {
		return fmt.Errorf("uplink %s: no such interface on the host", up)
	}
	if br := bridgeOf(ifs, up); br != "" {
		who := ""
		if d := ifs[br].Desc; d != "" {
			who = " (" + d + ")"
		}
		return fmt.Errorf("link %s: uplink %s is already a member of bridge %s%s, and an interface belongs to one bridge only "+
			"(if_bridge refuses it with EBUSY): with more than one pair, name an existing switch that has the uplink "+
			"(switch = \"…\" in the provider block) instead of uplink", linkAddr, up, br, who)
	}
	attrs["uplink"], attrs["uplink_mtu"] = up, strconv.Itoa(in.MTU)
	return nil
}

// restoreUplink sets the uplink's MTU back to what it was before the
// link was made; it runs once the link's bridge is gone, so the uplink
// is no bridge's member any more (a bridge forces its MTU on members).
func (p *Provider) restoreUplink(ctx context.Context, attrs map[string]string) error {
	up, mtu := attrs["uplink"], attrs["uplink_mtu"]
	if up == "" || mtu == "" || !ifaceRE.MatchString(up) {
		return nil
	}
	n, err := strconv.Atoi(mtu)
	if err != nil || n <= 0 {
		return nil
	}
	ifs, err := p.interfaces(ctx)
	if err != nil {
		return err
	}
	if in, ok := ifs[up]; !ok || in.MTU == n {
		return nil
	}
	_, err = p.run(ctx, "ifconfig", up, "mtu", mtu)
	return err
}
