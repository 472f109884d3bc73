package bhyve

import "strconv"

// Reaches is the bhyve host's SSH login ("root@192.0.2.5:22"; user and
// port left to ssh_config when it gives them).
func (p *Provider) Reaches() []string {
	s := p.cfg.Host
	if p.cfg.User != "" {
		s = p.cfg.User + "@" + s
	}
	if p.cfg.Port != 0 {
		s += ":" + strconv.Itoa(p.cfg.Port)
	}
	return []string{s}
}
