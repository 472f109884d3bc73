// Package machine holds the data lab keeps about the machines and links it
// makes: what to create (Machine, Template, NIC), what was created and how
// to reach it (Instance, Endpoint, Owner, Login) and what the hypervisor
// measured of it (HostCPU).
//
// It imports nothing of lab's, so that the spec, the state, the provider
// contract and the results share these types without depending on each
// other (docs/ARCHITECTURE.md, "Dependencies"). The files that store them
// (the state file, saved plans, records) encode them through types of
// their own, so a change here never changes a file format by accident.
//
// The packages these types came from (providers, results, guest/ssh) keep
// aliases while callers move. They are not marked "Deprecated:": make vet's
// staticcheck would then refuse every one of the hundreds of uses left.
package machine

// Machine is one guest to create: one end of a pair in one hardware shape.
type Machine struct {
	// Address is the machine's resource address ("pair.fast[shape].server").
	Address string
	LabID   string
	// Workspace identifies the lab directory's state (see Owner).
	Workspace string
	Pair      string
	Role      string // "server", "client" or "router"
	// Name is the name the back end gives the machine (unique per lab).
	Name      string
	Template  Template
	VCPU      int
	MemoryMiB int
	NIC       NIC
	// Link is the network the machine's benchmark NIC is attached to.
	Link Instance
	// Routed pairs (Capabilities.RoutedPairs): the server and client reach
	// each other through a router guest. Routed is set on the server and
	// client (route to the peer via the far end of Link); Link2 is the
	// router's second network, towards the client (Link is its network
	// towards the server). On the server and client of a routed pair,
	// Link2 is the peer's link, the router's other network: a back end
	// routes its subnet via the router.
	Routed bool
	Link2  Instance
	// LinkAddress, when set, is the benchmark NIC's IPv4 address with its
	// prefix ("198.18.250.2/24") as the spec gives it (pair addresses):
	// the end of a cross pair on an existing network whose addresses are
	// the user's (Capabilities.LinkAddresses). Empty: the back end's own.
	LinkAddress string
}

// Owner is who the machine belongs to.
func (m Machine) Owner() Owner { return Owner{Lab: m.LabID, Workspace: m.Workspace} }

// Template is the image or source a machine is made from.
type Template struct {
	Name   string
	Source string
	OS     string // "linux", "freebsd"
	// SSH is how to reach guests made from the template (the template's
	// ssh {} block); nil when the spec has none.
	SSH *Login `json:",omitempty"`
	// CloudInit, when set, says the source is a cloud image that takes its
	// SSH key, hostname and packages from a cloud-init seed at first boot
	// (the template's cloud_init {} block; Capabilities.CloudInit).
	CloudInit *CloudInit `json:",omitempty"`
}

// CloudInit is what a template's cloud_init {} block adds to the seed lab
// writes: packages to install at first boot and the user's own user-data
// (a #cloud-config document or a script), beside lab's SSH key.
type CloudInit struct {
	Packages []string `json:"packages,omitempty"`
	UserData string   `json:"user_data,omitempty"`
}

// NIC is the benchmark interface's hardware as the hypervisor sees it.
type NIC struct {
	Model  string          `json:"model,omitempty"`
	Queues int             `json:"queues,omitempty"`
	Host   map[string]bool `json:"host,omitempty"` // host-side offload bits fixed at boot
	// RXQueueSize and TXQueueSize are the host side's virtio ring sizes
	// (descriptors per queue, fixed at boot; 0: the hypervisor's default).
	// They bound what the guest may set with rx_ring/tx_ring.
	RXQueueSize int `json:"rx_queue_size,omitempty"`
	TXQueueSize int `json:"tx_queue_size,omitempty"`
}

// Instance is something a provider created (a machine or a link), as
// recorded in state.
type Instance struct {
	Address  string `json:"address"`
	Provider string `json:"provider"`
	Kind     string `json:"kind"` // "machine" or "link"
	ID       string `json:"id"`
	Name     string `json:"name"`
	// Owner is the lab and workspace the object was made for; the engine
	// records it with every object, pending ones included, and a provider
	// deletes only what carries this exact owner's tag. A state written by
	// lab 0.1 has no workspace here.
	Owner Owner `json:"owner"`
	// Pending marks a record the engine wrote before a create that never
	// reported success: the create is under way, was interrupted (Ctrl-C,
	// kill -9, power loss) or failed half-way. Its object may exist without
	// its owner's tag, since most back ends create first and tag second.
	// Delete adopts such an object: one whose name is exactly the name this
	// record gives (never a prefix) and that carries no tag at all is
	// this workspace's, and Delete removes it. An object tagged as anyone
	// else's is refused as always. docs/PROVIDERS.md, "Pending records".
	Pending bool `json:"pending,omitempty"`
	// Endpoint is how the engine reaches a machine; nil for links.
	Endpoint *Endpoint `json:"endpoint,omitempty"`
	// Attrs is the provider's own data: what it needs to find the object
	// again. The engine never reads it.
	Attrs map[string]string `json:"attrs,omitempty"`
}

// Endpoint is what the engine needs of a created machine.
type Endpoint struct {
	// Addr is the benchmark address: where the peer sends traffic.
	Addr string `json:"addr,omitempty"`
	// Addr6 is the benchmark NIC's IPv6 address, where the link was asked
	// for IPv6 (providers.LinkSpec.IPv6); runs over IPv6 go to it.
	Addr6 string `json:"addr6,omitempty"`
	// Iface is the benchmark interface inside the guest ("eth0", "vtnet0").
	Iface string `json:"iface,omitempty"`
	// Iface2 is a router's second interface, towards the client.
	Iface2 string `json:"iface2,omitempty"`
	// CPUs the benchmark processes are pinned to in the guest (taskset,
	// cpuset); empty: not pinned.
	CPUs []int `json:"cpus,omitempty"`
	// SSHHost and SSH are how to log in, for back ends whose guests are
	// reached over SSH; SSH.HostKey is the key pinned at first contact.
	SSHHost string `json:"ssh_host,omitempty"`
	SSH     *Login `json:"ssh,omitempty"`
	// TemplateID is the identity of the image the machine was made from
	// (the provider's Session.TemplateID); recorded in every result.
	TemplateID string `json:"template_id,omitempty"`
}

// EndpointOf returns in's endpoint, an empty one when it has none.
func EndpointOf(in Instance) Endpoint {
	if in.Endpoint == nil {
		return Endpoint{}
	}
	return *in.Endpoint
}

// HostCPU is one machine's CPU use as its hypervisor reports it.
type HostCPU struct {
	// BusyPct is the share of the machine's vCPUs that was busy, in percent
	// of all of them (100 = every vCPU fully busy).
	BusyPct float64 `json:"busy_pct"`
	// MHz is the average CPU frequency used, where the hypervisor reports it
	// (vSphere cpu.usagemhz.average); 0 when unknown.
	MHz float64 `json:"mhz,omitempty"`
	// Source names the counter ("vsphere:cpu.usage.average", "libvirt:cpu_time").
	Source string `json:"source"`
}
