package local

// Reaches: network namespaces on this machine, nothing beyond it.
func (p *Provider) Reaches() []string { return []string{"this machine (network namespaces)"} }
