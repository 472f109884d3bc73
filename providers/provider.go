// Package providers defines what a back end (local, vsphere, libvirt, bhyve,
// hosts) must do for the engine, and the registry that maps a provider type
// name in a spec to its implementation.
package providers

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// Machine is one guest to create: one end of a pair in one hardware shape.
type Machine struct {
	// Address is the machine's resource address ("pair.fast[shape].server").
	Address string
	LabID   string
	Pair    string
	Role    string // "server" or "client"
	// Name is the name the back end gives the machine (unique per lab).
	Name      string
	Template  Template
	VCPU      int
	MemoryMiB int
	NIC       NIC
	// Link is the network the machine's benchmark NIC is attached to.
	Link Instance
	// Routed pairs: the server and client reach each other through a
	// router guest. Routed is set on the server and client (route to the
	// peer via the far end of Link); Link2 is the router's second network,
	// towards the client (Link is its network towards the server).
	Routed bool
	Link2  Instance
}

// Template is the image or source a machine is made from.
type Template struct {
	Name   string
	Source string
	OS     string // "linux", "freebsd"
	// SSH is how to reach guests made from the template (the template's
	// ssh {} block); nil when the spec has none.
	SSH *SSH `json:",omitempty"`
}

// SSH is a template's ssh {} block: how to log in to its guests.
type SSH struct {
	User           string `json:"user,omitempty"`
	PrivateKeyFile string `json:"private_key_file,omitempty"`
	Port           int    `json:"port,omitempty"`
}

// NIC is the benchmark interface's hardware as the hypervisor sees it.
type NIC struct {
	Model  string          `json:"model,omitempty"`
	Queues int             `json:"queues,omitempty"`
	Host   map[string]bool `json:"host,omitempty"` // host-side offload bits fixed at boot
}

// LinkSpec is the network that joins the two ends of a pair.
type LinkSpec struct {
	Address string // "pair.fast[shape].link"
	LabID   string
	Pair    string
	Name    string
	MTU     int
	Index   int // a small number unique within the lab, for address plans
}

// Instance is something a provider created (a machine or a link), as
// recorded in state. Attrs holds what the provider needs to find it again
// and what the engine needs to reach it ("addr", "netns", "iface").
type Instance struct {
	Address  string            `json:"address"`
	Provider string            `json:"provider"`
	Kind     string            `json:"kind"` // "machine" or "link"
	ID       string            `json:"id"`
	Name     string            `json:"name"`
	Attrs    map[string]string `json:"attrs,omitempty"`
}

// Provider creates and removes machines and links on one back end.
type Provider interface {
	// Configure decodes the provider block's body against the provider's
	// own schema (the second phase of spec decoding).
	Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics
	// Link creates the network that joins a pair; it is created before the
	// machines attached to it and deleted after them.
	Link(ctx context.Context, l LinkSpec) (Instance, error)
	// Create makes one machine ready to take commands (cloned, sized,
	// attached to its link, powered on, address known).
	Create(ctx context.Context, m Machine) (Instance, error)
	// Read reports whether an instance still exists (false: gone).
	Read(ctx context.Context, in Instance) (Instance, bool, error)
	// Delete removes a machine or link. Removing what is gone succeeds.
	Delete(ctx context.Context, in Instance) error
	// List finds everything tagged with the lab id, for orphan sweeps.
	List(ctx context.Context, labID string) ([]Instance, error)
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
