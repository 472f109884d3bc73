package providers

import "slices"

// Capabilities is what a back end can do, as configured. The plan checks
// every group against its provider's capabilities and refuses, with a
// diagnostic on the spec line that asks for it, anything beyond them — so
// a lab never half-creates a pair that cannot work.
type Capabilities struct {
	// RoutedPairs: the back end can put a router guest between a pair's
	// ends (pair { via = … }), on two links (Machine.Routed, Link2).
	RoutedPairs bool
	// RoutedWhy, when RoutedPairs is false because of how the back end is
	// configured, says what to change to get them; it is added to the
	// refusal of a routed pair only (Why goes with every refusal).
	RoutedWhy string
	// NICModels are the NIC models a pair's nic { model = … } may name;
	// the first is the default. Empty: the spec cannot choose one (veth,
	// existing machines).
	NICModels []string
	// NICTuningModels, when set, are the only NIC models that take
	// nic { queues, rx_queue_size, tx_queue_size, host } (libvirt: virtio,
	// whose <driver> element carries them); the other models of NICModels
	// have none of them. Empty: every model takes what the flags below say.
	NICTuningModels []string
	// NICQueues: nic { queues = … } sets the number of queue pairs.
	NICQueues bool
	// NICRXQueueSize and NICTXQueueSize: nic { rx_queue_size = … } and
	// nic { tx_queue_size = … } set the host side's virtio ring sizes.
	NICRXQueueSize bool
	NICTXQueueSize bool
	// HostOffloads: nic { host = { … } } sets host-side offload bits.
	HostOffloads bool
	// GuestOffloads: offload toggles inside the guest (lro, tso, gro, …)
	// take effect. False where they would be silent no-ops.
	GuestOffloads bool
	// NICRings: the guests' NIC has ring sizes the guest driver may set
	// (rx_ring, tx_ring; the guest still checks the NIC's maximum). False
	// where it has none (veth).
	NICRings bool
	// VCPU: a machine's vCPU count can be chosen (for local and hosts:
	// how many CPUs each end's processes are pinned to).
	VCPU bool
	// Memory: a machine's memory can be chosen.
	Memory bool
	// LinkMTU: the host side of a link (bridge, vSwitch, veth) takes
	// link_mtu.
	LinkMTU bool
	// OnThisHost: the machines run on the machine lab runs on (namespaces,
	// a local hypervisor), so two labs' benchmarks here compete for the
	// same CPUs. The engine then holds a host-wide lock for each run, so
	// runs of different labs on one host never overlap.
	OnThisHost bool
	// Borrowed: the machines exist before lab and outlive it (the hosts
	// back end). The engine records every setting a lab changes on them
	// before the first change and puts it back at teardown.
	Borrowed bool
	// CloudInit: the back end seeds cloud images (a template's
	// cloud_init {}) with lab's SSH key, a hostname and packages.
	CloudInit bool
	// IPv6: links asked for IPv6 (LinkSpec.IPv6) get IPv6 addresses on
	// both ends (Endpoint.Addr6), routed through the router guest too.
	IPv6 bool
	// ExistingNetwork: the machines' benchmark NICs sit on a network that
	// reaches beyond the back end — an existing switch, bridge or host NIC,
	// or machines already cabled — so a machine of this provider can be
	// one end of a cross pair, whose other end another provider makes or
	// another host runs. lab changes nothing on that network: each end's
	// provider only attaches its machine (Link gives its side).
	ExistingNetwork bool
	// Roles, when set, are the only roles ("server", "client", "router")
	// the provider block can fill: a hosts block names one machine per
	// role, and needs a block for each role it is used in.
	Roles []string
	// LinkAddresses: the back end addresses its machines' benchmark NICs
	// itself (statically, over a management NIC) and takes the spec's
	// (pair addresses, Machine.LinkAddress) when given. An end of a cross
	// pair on it needs one: its own plan's addresses are lab's, which the
	// other end's network does not know.
	LinkAddresses bool
	// OneMachine: the block describes a single machine at a fixed address
	// (a local namespace on an existing bridge): at most one of the lab's
	// machines may come from it.
	OneMachine bool
	// Why, when set, is added to every refusal: what to change in the
	// provider block to get more ("set network_backend = \"vale\"").
	Why string
}

// Meet is what two back ends can both do: a cross pair's hardware and
// settings are asked of both ends' providers, so each must be able to do
// them (NICModels: those both accept, in c's order). Roles, OneMachine and
// Why stay c's; RoutedWhy is c's, or o's when only o refuses routed pairs.
func (c Capabilities) Meet(o Capabilities) Capabilities {
	out := c
	out.NICModels = nil
	for _, m := range c.NICModels {
		if slices.Contains(o.NICModels, m) {
			out.NICModels = append(out.NICModels, m)
		}
	}
	out.RoutedPairs = c.RoutedPairs && o.RoutedPairs
	if !o.RoutedPairs && out.RoutedWhy == "" {
		out.RoutedWhy = o.RoutedWhy
	}
	out.NICQueues = c.NICQueues && o.NICQueues
	out.NICRXQueueSize = c.NICRXQueueSize && o.NICRXQueueSize
	out.NICTXQueueSize = c.NICTXQueueSize && o.NICTXQueueSize
	out.HostOffloads = c.HostOffloads && o.HostOffloads
	out.GuestOffloads = c.GuestOffloads && o.GuestOffloads
	out.NICRings = c.NICRings && o.NICRings
	switch {
	case len(c.NICTuningModels) == 0:
		out.NICTuningModels = o.NICTuningModels
	case len(o.NICTuningModels) > 0:
		out.NICTuningModels = nil
		for _, m := range c.NICTuningModels {
			if slices.Contains(o.NICTuningModels, m) {
				out.NICTuningModels = append(out.NICTuningModels, m)
			}
		}
		if len(out.NICTuningModels) == 0 {
			out.NICQueues, out.NICRXQueueSize, out.NICTXQueueSize, out.HostOffloads = false, false, false, false
		}
	}
	out.VCPU = c.VCPU && o.VCPU
	out.Memory = c.Memory && o.Memory
	out.LinkMTU = c.LinkMTU && o.LinkMTU
	out.CloudInit = c.CloudInit && o.CloudInit
	out.IPv6 = c.IPv6 && o.IPv6
	out.ExistingNetwork = c.ExistingNetwork && o.ExistingNetwork
	out.OnThisHost = c.OnThisHost || o.OnThisHost
	out.Borrowed = c.Borrowed || o.Borrowed
	return out
}

// TunesNICModel reports whether model (the default when "") takes the
// nic { queues, rx_queue_size, tx_queue_size, host } settings the flags
// allow.
func (c Capabilities) TunesNICModel(model string) bool {
	if model == "" && len(c.NICModels) > 0 {
		model = c.NICModels[0]
	}
	return len(c.NICTuningModels) == 0 || slices.Contains(c.NICTuningModels, model)
}

// AcceptsNICModel reports whether model may be asked for; the empty model
// (the back end's default) always may.
func (c Capabilities) AcceptsNICModel(model string) bool {
	return model == "" || slices.Contains(c.NICModels, model)
}
