package providertest_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/providertest"
)

// memcloud is a back end written only against the public contract, the way
// a new one (Proxmox, Hyper-V, a cloud) would start: its "hypervisor" is a
// map. It shows what the suite asks of a provider.
type memcloud struct {
	cfg struct {
		Region string   `hcl:"region"`
		Remain hcl.Body `hcl:",remain"`
	}
	mu      sync.Mutex
	objects map[string]machine.Instance // by name
	closed  int
}

func init() {
	providers.Register("memcloud", func() providers.Provider { return &memcloud{objects: map[string]machine.Instance{}} })
}

func (c *memcloud) Configure(_ context.Context, body hcl.Body) hcl.Diagnostics {
	return gohcl.DecodeBody(body, nil, &c.cfg)
}

func (c *memcloud) Capabilities() providers.Capabilities {
	return providers.Capabilities{NICModels: []string{"fastnic"}, GuestOffloads: true, VCPU: true, Memory: true, LinkMTU: true}
}

func (c *memcloud) TemplateID(_ context.Context, m machine.Machine) (string, error) {
	return "image " + c.cfg.Region + "/" + m.Template.Source + " rev 7", nil
}

func (c *memcloud) Link(ctx context.Context, l providers.LinkSpec) (machine.Instance, error) {
	in := machine.Instance{Address: l.Address, Provider: "memcloud", Kind: "link", ID: l.Name, Name: l.Name,
		Attrs: map[string]string{"tag": l.Owner().Tag(l.Address)}}
	return in, c.put(ctx, in)
}

func (c *memcloud) Create(ctx context.Context, m machine.Machine) (machine.Instance, error) {
	id, _ := c.TemplateID(ctx, m)
	in := machine.Instance{Address: m.Address, Provider: "memcloud", Kind: "machine", ID: m.Name, Name: m.Name,
		Attrs:    map[string]string{"tag": m.Owner().Tag(m.Address)},
		Endpoint: &machine.Endpoint{Addr: "198.18.9.1", Iface: "eth0", TemplateID: id}}
	return in, c.put(ctx, in)
}

func (c *memcloud) put(ctx context.Context, in machine.Instance) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.objects[in.Name] = in
	return nil
}

func (c *memcloud) Read(_ context.Context, in machine.Instance) (machine.Instance, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.objects[in.Name]
	return in, ok, nil
}

func (c *memcloud) Delete(_ context.Context, in machine.Instance) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.objects, in.Name)
	return nil
}

func (c *memcloud) List(_ context.Context, o machine.Owner) ([]machine.Instance, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []machine.Instance
	for _, in := range c.objects {
		if o.Owns(in.Attrs["tag"]) {
			out = append(out, in)
		}
	}
	return out, nil
}

func (c *memcloud) Connect(ctx context.Context, in machine.Instance) (guest.Transport, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("connect %s: %w", in.Address, err)
	}
	return nopTransport(in.Address), nil
}

func (c *memcloud) Close(context.Context) error { c.closed++; return nil }

type nopTransport string

func (n nopTransport) Run(context.Context, guest.Cmd) (guest.Result, error) {
	return guest.Result{}, nil
}
func (n nopTransport) Upload(context.Context, string, io.Reader) error { return nil }
func (n nopTransport) Name() string                                    { return string(n) }
func (n nopTransport) Close() error                                    { return nil }

func TestMemcloudConforms(t *testing.T) {
	providertest.Conformance(t, providertest.Harness{
		Type:     "memcloud",
		Provider: `  region = "eu-1"`,
		Template: `  source = "debian-12"`,
	})
}

// Broken back ends, one contract violation each; the suite must fail
// every one of them, with a message naming the violation.
type (
	ignoresCancel   struct{ *memcloud }
	noTemplateID    struct{ *memcloud }
	leavesObjects   struct{ *memcloud }
	wrongCapability struct{ *memcloud }
)

func (b ignoresCancel) Connect(_ context.Context, in machine.Instance) (guest.Transport, error) {
	return nopTransport(in.Address), nil
}
func (b noTemplateID) TemplateID(context.Context, machine.Machine) (string, error) { return "", nil }
func (b leavesObjects) Delete(context.Context, machine.Instance) error             { return nil }
func (b wrongCapability) Capabilities() providers.Capabilities {
	return providers.Capabilities{NICModels: []string{"fastnic", "conformance-no-such-nic"}, RoutedPairs: true}
}

var broken = map[string]struct {
	wrap func(*memcloud) providers.Provider
	want string
}{
	"ignores-cancel":   {func(c *memcloud) providers.Provider { return ignoresCancel{c} }, "Connect with a cancelled context succeeded"},
	"no-template-id":   {func(c *memcloud) providers.Provider { return noTemplateID{c} }, "every back end reports one"},
	"leaves-objects":   {func(c *memcloud) providers.Provider { return leavesObjects{c} }, "List after teardown finds"},
	"wrong-capability": {func(c *memcloud) providers.Provider { return wrongCapability{c} }, `no "NIC model not supported" diagnostic`},
}

func init() {
	for name, b := range broken {
		providers.Register("memcloud-"+name, func() providers.Provider { return b.wrap(&memcloud{objects: map[string]machine.Instance{}}) })
	}
}

// TestBrokenProviderRunsSuite is the suite on one broken back end, named
// by PROVIDERTEST_BROKEN; it runs only in the child process that
// TestSuiteCatchesBrokenProviders starts.
func TestBrokenProviderRunsSuite(t *testing.T) {
	name := os.Getenv("PROVIDERTEST_BROKEN")
	if name == "" {
		t.Skip("runs in a child process of TestSuiteCatchesBrokenProviders")
	}
	providertest.Conformance(t, providertest.Harness{Type: "memcloud-" + name, Provider: `  region = "eu-1"`, Template: `  source = "debian-12"`})
}

func TestSuiteCatchesBrokenProviders(t *testing.T) {
	for name, b := range broken {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBrokenProviderRunsSuite$", "-test.v")
			cmd.Env = append(os.Environ(), "PROVIDERTEST_BROKEN="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a back end that violates the contract:\n%s", out)
			}
			if !strings.Contains(string(out), b.want) {
				t.Errorf("the suite failed without saying %q:\n%s", b.want, out)
			}
		})
	}
}
