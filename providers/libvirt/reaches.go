package libvirt

// Reaches is the libvirt connection URI (qemu:///system is this
// machine's libvirtd).
func (p *Provider) Reaches() []string { return []string{p.cfg.URI} }
