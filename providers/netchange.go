package providers

import "context"

// NetworkChange is one change a link would make to a hypervisor host's
// own network settings, outside the machines lab creates — the MTU of a
// switch other virtual machines use, a switch added on a host — so the
// plan can show it before apply makes it.
type NetworkChange struct {
	// Link is the link's resource address.
	Link string `json:"link"`
	// Host names the host (empty for a distributed switch).
	Host string `json:"host,omitempty"`
	// Switch names the switch (a vSwitch, or a distributed switch).
	Switch string `json:"switch"`
	// Change says what happens: "mtu" (From → To) or "add" (a new switch
	// at MTU To).
	Change string `json:"change"`
	From   int    `json:"from,omitempty"`
	// FromUnset says the switch has no MTU set: From is the MTU it runs
	// at by default.
	FromUnset bool `json:"from_unset,omitempty"`
	To        int  `json:"to"`
	// Note is anything else to know (the switch is held by other links at
	// another MTU, so apply will refuse the link).
	Note string `json:"note,omitempty"`
}

// NetworkPlanner is implemented, optionally, by providers whose links
// change host network settings. `lab plan` asks for every link when the
// provider has a connection configured; it changes nothing.
type NetworkPlanner interface {
	// PlanLink returns the changes Link(l) would make now (none when
	// nothing would change, or when no connection is configured).
	PlanLink(ctx context.Context, l LinkSpec) ([]NetworkChange, error)
}
