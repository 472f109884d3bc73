package hosts

import (
	"fmt"
	"strconv"
)

// Reaches is each machine's SSH login ("server root@192.0.2.1:22"), with
// its jump hosts: where an apply connects, as root by default, and
// changes MTU, offloads, sysctls and firewall rules.
func (p *Provider) Reaches() []string {
	var out []string
	for _, role := range Roles {
		h, ok := p.Hosts[role]
		if !ok {
			continue
		}
		s := fmt.Sprintf("%s %s@%s:%s", role, h.User, h.Address, strconv.Itoa(h.Port))
		if h.ProxyJump != "" {
			s += " via " + h.ProxyJump
		}
		out = append(out, s)
	}
	return out
}
