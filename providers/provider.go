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
	"github.com/lab-bench/lab/machine"
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
	TemplateID(ctx context.Context, m machine.Machine) (string, error)
	// Connect returns a transport to a created machine, giving up when
	// ctx is done.
	Connect(ctx context.Context, in machine.Instance) (guest.Transport, error)
	// Close ends the session (API logins, hypervisor connections). The
	// CLI calls it once per command; it is safe on a provider that never
	// dialled.
	Close(ctx context.Context) error
}

// Resources are the machines and links a provider makes.
type Resources interface {
	// Link creates the network that joins a pair; it is created before the
	// machines attached to it and deleted after them.
	Link(ctx context.Context, l LinkSpec) (machine.Instance, error)
	// Create makes one machine ready to take commands (cloned, sized,
	// attached to its link, powered on, address known) and fills the
	// returned instance's Endpoint.
	Create(ctx context.Context, m machine.Machine) (machine.Instance, error)
	// Read reports whether an instance still exists (false: gone).
	Read(ctx context.Context, in machine.Instance) (machine.Instance, bool, error)
	// Delete removes a machine or link. Removing what is gone succeeds.
	Delete(ctx context.Context, in machine.Instance) error
	// List finds everything tagged as o's — lab and workspace matched
	// exactly, never by a name prefix — for orphan sweeps.
	List(ctx context.Context, o machine.Owner) ([]machine.Instance, error)
}

// Reacher is implemented by providers that reach machines beyond the
// network namespaces of this one: a reader is told where before approving
// an apply of a spec someone else wrote (lab reproduce).
type Reacher interface {
	// Reaches is where the provider, as configured, connects: SSH logins
	// ("root@192.0.2.1:22"), a libvirt URI, a vCenter URL without user
	// information. It must not dial.
	Reaches() []string
}

// HostCPUMeter is implemented, optionally, by providers that can see a
// machine's CPU use from the hypervisor's side (vSphere's
// PerformanceManager, libvirt's per-domain CPU time). The engine starts a
// measurement when a benchmark starts and ends it when it ends.
type HostCPUMeter interface {
	// MeterCPU starts measuring in's CPU use; calling the returned function
	// ends the measurement and returns the result.
	MeterCPU(ctx context.Context, in machine.Instance) (stop func(context.Context) (machine.HostCPU, error), err error)
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
	CheckTemplate(ctx context.Context, m machine.Machine) error
}

// HostSettingsReporter is implemented, optionally, by providers whose
// results depend on hypervisor-wide settings of the host a machine runs on
// (vSphere's Net.Vmxnet3*LRO). The engine copies the answer into every
// result's provenance; it must not dial (read it from in.Attrs, recorded
// at create).
type HostSettingsReporter interface {
	HostSettings(in machine.Instance) string
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
	// IPv6 asks for IPv6 addresses on the link besides IPv4 ones: an
	// experiment using the pair runs over IPv6 (ip_version 6 or "dual").
	// Only a back end with Capabilities.IPv6 is given such a link; its
	// machines report their IPv6 address as Endpoint.Addr6.
	IPv6 bool
}

// Owner is who the link belongs to.
func (l LinkSpec) Owner() machine.Owner { return machine.Owner{Lab: l.LabID, Workspace: l.Workspace} }

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
