package local

// Reaches names what the local back end reaches: network namespaces on this machine, nothing beyond it.
func (p *Provider) Reaches() []string { return []string{"this machine (network namespaces)"} }
