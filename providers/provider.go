// Package providers is the contract between lab's engine and its back ends
// (local, vsphere, libvirt, bhyve, hosts), and the registry that maps a
// provider type in a spec to its implementation.
//
// A back end is one package that implements Provider and registers itself
// in an init function; the CLI imports it for that side effect. docs/PROVIDERS.md
// walks through writing one.
package providers

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/results"
)

// Provider is what every back end implements: a session with the back
// end (Session) and the machines and links it makes there (Resources).
type Provider interface {
	Session
	Resources
}

// Session is a provider's connection to its back end, from configuration
// to close, and what it can do there.
type Session interface {
	// Configure decodes the provider block's body against the provider's
	// own schema (the second phase of spec decoding). It must not dial
	// anything: `lab validate` calls it offline.
	Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics
	// Capabilities declares what the back end can do, as configured. The
	// plan refuses, with a diagnostic on the spec line, whatever a lab asks
	// beyond it — before anything is created.
	Capabilities() Capabilities
	// TemplateID is the identity of the image m would be made from (a
	// vSphere template's instance UUID and change version, a volume's
	// SHA-256, a ZFS snapshot's GUID, a kernel and tool versions). The
	// lock file pins it; the plan warns when it changed. May dial.
	TemplateID(ctx context.Context, m Machine) (string, error)
	// Connect returns a transport to a created machine, giving up when
	// ctx is done.
	Connect(ctx context.Context, in Instance) (guest.Transport, error)
	// Close ends the session (API logins, hypervisor connections). The
	// CLI calls it once per command; it is safe on a provider that never
	// dialled.
	Close(ctx context.Context) error
}

// Resources are the machines and links a provider makes.
type Resources interface {
	// Link creates the network that joins a pair; it is created before the
	// machines attached to it and deleted after them.
	Link(ctx context.Context, l LinkSpec) (Instance, error)
	// Create makes one machine ready to take commands (cloned, sized,
	// attached to its link, powered on, address known) and fills the
	// returned instance's Endpoint.
	Create(ctx context.Context, m Machine) (Instance, error)
	// Read reports whether an instance still exists (false: gone).
	Read(ctx context.Context, in Instance) (Instance, bool, error)
	// Delete removes a machine or link. Removing what is gone succeeds.
	Delete(ctx context.Context, in Instance) error
	// List finds everything tagged as o's — lab and workspace matched
	// exactly, never by a name prefix — for orphan sweeps.
	List(ctx context.Context, o Owner) ([]Instance, error)
}

// HostCPUMeter is implemented, optionally, by providers that can see a
// machine's CPU use from the hypervisor's side (vSphere's
// PerformanceManager, libvirt's per-domain CPU time). The engine starts a
// measurement when a benchmark starts and ends it when it ends.
type HostCPUMeter interface {
	// MeterCPU starts measuring in's CPU use; calling the returned function
	// ends the measurement and returns the result.
	MeterCPU(ctx context.Context, in Instance) (stop func(context.Context) (results.HostCPU, error), err error)
}

// TemplateChecker is implemented, optionally, by providers that can tell
// cheaply whether a machine's template exists (a vCenter inventory
// lookup). `lab plan` asks once per template when the provider has a
// connection configured, so a misspelt template fails the plan, not the
// apply halfway through.
type TemplateChecker interface {
	// CheckTemplate returns an error naming m's template (and, where it
	// can, what exists instead) when it cannot be found; nil when it
	// exists or when no connection is configured (plan works offline).
	CheckTemplate(ctx context.Context, m Machine) error
}

// HostSettingsReporter is implemented, optionally, by providers whose
// results depend on hypervisor-wide settings of the host a machine runs on
// (vSphere's Net.Vmxnet3*LRO). The engine copies the answer into every
// result's provenance; it must not dial (read it from in.Attrs, recorded
// at create).
type HostSettingsReporter interface {
	HostSettings(in Instance) string
}

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
	// towards the server).
	Routed bool
	Link2  Instance
}

// Owner is who the machine belongs to.
func (m Machine) Owner() Owner { return Owner{Lab: m.LabID, Workspace: m.Workspace} }

// Owner is who the link belongs to.
func (l LinkSpec) Owner() Owner { return Owner{Lab: l.LabID, Workspace: l.Workspace} }

// Template is the image or source a machine is made from.
type Template struct {
	Name   string
	Source string
	OS     string // "linux", "freebsd"
	// SSH is how to reach guests made from the template (the template's
	// ssh {} block); nil when the spec has none.
	SSH *ssh.Login `json:",omitempty"`
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

// LinkSpec is the network that joins the two ends of a pair.
type LinkSpec struct {
	Address   string // "pair.fast[shape].link"
	LabID     string
	Workspace string // see Owner
	Pair      string
	Name      string
	MTU       int
	Index     int // a small number unique within the lab, for address plans
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
	// Iface is the benchmark interface inside the guest ("eth0", "vtnet0").
	Iface string `json:"iface,omitempty"`
	// Iface2 is a router's second interface, towards the client.
	Iface2 string `json:"iface2,omitempty"`
	// CPUs the benchmark processes are pinned to in the guest (taskset,
	// cpuset); empty: not pinned.
	CPUs []int `json:"cpus,omitempty"`
	// SSHHost and SSH are how to log in, for back ends whose guests are
	// reached over SSH; SSH.HostKey is the key pinned at first contact.
	SSHHost string     `json:"ssh_host,omitempty"`
	SSH     *ssh.Login `json:"ssh,omitempty"`
	// TemplateID is the identity of the image the machine was made from
	// (see Session.TemplateID); recorded in every result.
	TemplateID string `json:"template_id,omitempty"`
}

// EndpointOf returns in's endpoint, an empty one when it has none.
func EndpointOf(in Instance) Endpoint {
	if in.Endpoint == nil {
		return Endpoint{}
	}
	return *in.Endpoint
}

// Factory makes an unconfigured provider of one type.
type Factory func() Provider

var (
	mu       sync.Mutex
	registry = map[string]Factory{}
)

// Register makes a provider type known under name. It panics on a
// duplicate name: that is a programming error caught by any test.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic("providers: duplicate registration of " + name)
	}
	registry[name] = f
}

// New returns a new provider of the named type.
func New(name string) (Provider, error) {
	mu.Lock()
	defer mu.Unlock()
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown provider type %q (known: %v)", name, namesLocked())
	}
	return f(), nil
}

// Names lists the registered provider types.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	return namesLocked()
}

func namesLocked() []string {
	var n []string
	for k := range registry {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}
