package vsphere

// Reaches is the vCenter URL, user information left out.
func (p *Provider) Reaches() []string { return []string{redactURL(p.cfg.URL)} }
