package vsphere

import (
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Routed pairs (pair { via = … }) in own-switch mode: the pair's two links
// are two own switches and port groups (Link makes them like any link,
// each with its own index and so its own /24 of providers.OwnLinkNet); the server is
// on the first, the client on the second, and the router VM has a
// benchmark NIC on each besides its management NIC, addressed by the
// own-link plan (providers.OwnLinkSetup: on each link the router takes
// the address of the end it stands in for, and forwards; the ends route
// the peer's /24 via it). Shared-switch mode has one port group for
// everything and is refused (routedWhy).

// routedWhy says why routed pairs are refused in this configuration; ""
// when they are not.
func (c Config) routedWhy() string {
	if c.linkMode() != OwnSwitch {
		return `Routed pairs need two own switches per pair: set host and link_mode = "own-switch" in the vSphere provider block (shared-switch mode has one port group for every NIC).`
	}
	return ""
}

// linkAddr is a machine's benchmark address on its Link (Machine.Link):
// the router stands in for the client on the server's link.
func linkAddr(m machine.Machine) (string, error) { return providers.OwnLinkMachineAddr(m) }
