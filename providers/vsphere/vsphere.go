// Package vsphere is the VMware vSphere back end (govmomi). A pair is two
// virtual machines cloned from templates into a folder named for the lab,
// sized by a ReconfigSpec (vCPU, cores per socket, memory), given exactly
// one NIC of the requested model (vmxnet3 by default) on the provider's port
// group, powered on, and reached over SSH at the address VMware Tools
// reports. The pair's link MTU is set on the vSwitch (or DVS) behind the
// port group and restored when the link is deleted.
//
// Credentials come from GOVC_USERNAME and GOVC_PASSWORD (and GOVC_URL,
// GOVC_INSECURE as defaults for url and insecure, as govc does). They are
// never written to state, results, logs or events.
package vsphere

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/vim25/soap"

	"github.com/lab-bench/lab/providers"
)

// TypeName is the provider type in specs: provider "vsphere" "name" {}.
const TypeName = "vsphere"

func init() { providers.Register(TypeName, func() providers.Provider { return New() }) }

// Provider creates virtual machines on a vCenter or ESXi host.
type Provider struct {
	// Getenv reads the environment (GOVC_*); os.Getenv unless a test
	// replaces it before Configure.
	Getenv func(string) string
	// EvalContext, when set, evaluates expressions in the provider block
	// (var.*); otherwise the one the CLI passes in Configure's context
	// (providers.WithEvalContext) is used.
	EvalContext *hcl.EvalContext

	cfg      Config
	username string
	password string

	mu      sync.Mutex // guards the session and the lab folder
	client  *govmomi.Client
	env     *inventory
	checked time.Time // last time the session was known to be active
	// dial connects to the SSH server of a guest; replaced in tests.
	dial providers.DialFunc

	idMu sync.Mutex
	ids  map[string]string // TemplateID by template source
}

var _ providers.Provider = (*Provider)(nil)

// New returns an unconfigured vSphere provider.
func New() *Provider { return &Provider{Getenv: os.Getenv, dial: providers.DialSSH} }

// Config is the provider block.
type Config struct {
	URL          string `hcl:"url,optional"`
	Insecure     *bool  `hcl:"insecure,optional"`
	Datacenter   string `hcl:"datacenter,optional"`
	Cluster      string `hcl:"cluster,optional"`
	Host         string `hcl:"host,optional"`
	ResourcePool string `hcl:"resource_pool,optional"`
	Datastore    string `hcl:"datastore,optional"`
	// Folder is the VM folder under which the lab's folder is made
	// (default: the datacenter's vm folder).
	Folder string `hcl:"folder,optional"`
	// Network is the port group (standard or distributed) the benchmark
	// NIC is attached to; its switch's MTU is the pair's link MTU.
	Network string `hcl:"network,optional"`

	LinkedClone bool `hcl:"linked_clone,optional"`
	// Snapshot is the template snapshot a linked clone is made from
	// (default: the current snapshot).
	Snapshot string `hcl:"snapshot,optional"`
	// CoresPerSocket (default: all vCPUs on one socket).
	CoresPerSocket int `hcl:"cores_per_socket,optional"`
	// ExtraConfig is passed to every clone's VMX (guestinfo.*); values may
	// use {name}, {role}, {pair}, {lab}, {index} and {role_index}.
	ExtraConfig map[string]string `hcl:"extra_config,optional"`
	// IPTimeout bounds the wait for VMware Tools to report an address.
	IPTimeout string `hcl:"ip_timeout,optional"`
	// IgnoredIPRanges are CIDRs never taken as a guest's address.
	IgnoredIPRanges []string `hcl:"ignored_ip_ranges,optional"`
	// GuestIface maps a template name or an os ("freebsd", "linux") to the
	// guest's name for the benchmark NIC (default vmx0 / ens192).
	GuestIface map[string]string `hcl:"guest_iface,optional"`
	// CustomAttribute, when set, is a custom attribute (created when
	// missing) holding "<lab id> <address>" on every VM, beside the
	// annotation that is always written.
	CustomAttribute string `hcl:"custom_attribute,optional"`

	Remain hcl.Body `hcl:",remain"`
}

// attributes the block takes, for the "unsupported argument" message.
const attributeList = "url, insecure, datacenter, cluster, host, resource_pool, datastore, folder, network, linked_clone, snapshot, " +
	"cores_per_socket, extra_config, ip_timeout, ignored_ip_ranges, guest_iface, custom_attribute"

// Configure decodes the provider block and reads credentials from the
// environment. It does not connect: validate and plan work offline.
func (p *Provider) Configure(ctx context.Context, body hcl.Body) hcl.Diagnostics {
	var c Config
	ec := p.EvalContext
	if ec == nil {
		ec = providers.EvalContext(ctx)
	}
	diags := gohcl.DecodeBody(body, ec, &c)
	if diags.HasErrors() {
		return diags
	}
	if c.Remain != nil {
		if attrs, d := c.Remain.JustAttributes(); !d.HasErrors() {
			for name, a := range attrs {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unsupported argument",
					Detail:  fmt.Sprintf("The vsphere provider has no argument %q (it takes: %s).", name, attributeList),
					Subject: a.NameRange.Ptr()})
			}
		}
	}
	getenv := p.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if c.URL == "" {
		c.URL = getenv("GOVC_URL")
	}
	if c.Insecure == nil {
		if v := getenv("GOVC_INSECURE"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid GOVC_INSECURE",
					Detail: fmt.Sprintf("GOVC_INSECURE must be true or false, got %q.", v)})
			}
			c.Insecure = &b
		}
	}
	errAt := func(summary, detail string) {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: body.MissingItemRange().Ptr()})
	}
	if c.URL == "" {
		if !providers.Offline(ctx) { // validate needs no endpoint
			errAt("Missing vCenter URL", "Set url in the provider block or GOVC_URL in the environment.")
		}
	} else if u, err := soap.ParseURL(c.URL); err != nil || u == nil {
		errAt("Invalid vCenter URL", fmt.Sprintf("%q is not a URL: %v", redactURL(c.URL), err))
	} else if u.User != nil {
		if pw, _ := u.User.Password(); pw != "" {
			errAt("Password in URL", "Do not write credentials in url: set GOVC_USERNAME and GOVC_PASSWORD in the environment.")
		}
	}
	if c.Cluster != "" && c.ResourcePool != "" && c.Host != "" {
		errAt("Conflicting placement", "Give cluster (and optionally host), or host alone, or resource_pool; not all three.")
	}
	if c.IPTimeout != "" {
		if d, err := time.ParseDuration(c.IPTimeout); err != nil || d <= 0 {
			errAt("Invalid ip_timeout", fmt.Sprintf("%q is not a positive duration such as \"5m\".", c.IPTimeout))
		}
	}
	for _, r := range c.IgnoredIPRanges {
		if _, _, err := net.ParseCIDR(r); err != nil {
			errAt("Invalid ignored_ip_ranges", fmt.Sprintf("%q is not a CIDR such as \"172.17.0.0/16\".", r))
		}
	}
	if c.CoresPerSocket < 0 {
		errAt("Invalid cores_per_socket", "cores_per_socket must be positive.")
	}
	for k := range c.ExtraConfig {
		if strings.ContainsAny(k, " \t\n=\"") || k == "" {
			errAt("Invalid extra_config key", fmt.Sprintf("%q is not a VMX option name.", k))
		}
	}
	p.cfg = c
	p.username, p.password = getenv("GOVC_USERNAME"), getenv("GOVC_PASSWORD")
	if p.username == "" {
		if u, err := soap.ParseURL(c.URL); err == nil && u != nil && u.User != nil {
			p.username = u.User.Username()
		}
	}
	return diags
}

func (c Config) ipTimeout() time.Duration {
	if d, err := time.ParseDuration(c.IPTimeout); err == nil && d > 0 {
		return d
	}
	return 5 * time.Minute
}

// guestIface is the guest's name for the benchmark NIC.
func (c Config) guestIface(t providers.Template) string {
	if s := c.GuestIface[t.Name]; s != "" {
		return s
	}
	if s := c.GuestIface[t.OS]; s != "" {
		return s
	}
	if t.OS == "freebsd" {
		return "vmx0"
	}
	return "ens192"
}

// redactURL drops user information from a URL for messages.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	return u.String()
}

// inventory is what Configure's names resolve to, looked up once.
type inventory struct {
	finder     *find.Finder
	dc         *object.Datacenter
	pool       *object.ResourcePool
	host       *object.HostSystem // nil: let vCenter (or the source's host) decide
	datastore  *object.Datastore  // nil: the source's datastore
	baseFolder *object.Folder
	network    object.NetworkReference
}

// session returns a logged-in client and the resolved inventory.
func (p *Provider) session(ctx context.Context) (*govmomi.Client, *inventory, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client != nil {
		// Check the session at most once a minute (a check is a round trip
		// made under the lock, which would serialise concurrent creates).
		if time.Since(p.checked) < time.Minute {
			return p.client, p.env, nil
		}
		if ok, err := p.client.SessionManager.SessionIsActive(ctx); err == nil && ok {
			p.checked = time.Now()
			return p.client, p.env, nil
		}
		p.client, p.env = nil, nil
	}
	if p.cfg.URL == "" {
		return nil, nil, fmt.Errorf("vsphere: provider not configured (no url)")
	}
	u, err := soap.ParseURL(p.cfg.URL)
	if err != nil {
		return nil, nil, fmt.Errorf("vsphere: url: %w", err)
	}
	u.User = nil
	insecure := p.cfg.Insecure != nil && *p.cfg.Insecure
	c, err := govmomi.NewClient(ctx, u, insecure)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", u.Redacted(), err)
	}
	if p.username != "" {
		if err := c.Login(ctx, url.UserPassword(p.username, p.password)); err != nil {
			return nil, nil, fmt.Errorf("log in to %s as %s: %w", u.Redacted(), p.username, err)
		}
	}
	env, err := p.resolve(ctx, c)
	if err != nil {
		_ = c.Logout(context.WithoutCancel(ctx))
		return nil, nil, err
	}
	p.client, p.env, p.checked = c, env, time.Now()
	return c, env, nil
}

// resolve looks up the provider block's names.
func (p *Provider) resolve(ctx context.Context, c *govmomi.Client) (*inventory, error) {
	f := find.NewFinder(c.Client, true)
	env := &inventory{finder: f}
	var err error
	if p.cfg.Datacenter != "" {
		env.dc, err = f.Datacenter(ctx, p.cfg.Datacenter)
	} else {
		env.dc, err = f.DefaultDatacenter(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("datacenter %q: %w", p.cfg.Datacenter, err)
	}
	f.SetDatacenter(env.dc)
	if p.cfg.Host != "" {
		if env.host, err = f.HostSystem(ctx, p.cfg.Host); err != nil {
			return nil, fmt.Errorf("host %q: %w", p.cfg.Host, err)
		}
	}
	switch {
	case p.cfg.ResourcePool != "":
		env.pool, err = f.ResourcePool(ctx, p.cfg.ResourcePool)
	case p.cfg.Cluster != "":
		var cl *object.ClusterComputeResource
		if cl, err = f.ClusterComputeResource(ctx, p.cfg.Cluster); err == nil {
			env.pool, err = cl.ResourcePool(ctx)
		}
	case env.host != nil:
		env.pool, err = env.host.ResourcePool(ctx)
	default:
		env.pool, err = f.DefaultResourcePool(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("resource pool (cluster %q, host %q, resource_pool %q): %w", p.cfg.Cluster, p.cfg.Host, p.cfg.ResourcePool, err)
	}
	if p.cfg.Datastore != "" {
		if env.datastore, err = f.Datastore(ctx, p.cfg.Datastore); err != nil {
			return nil, fmt.Errorf("datastore %q: %w", p.cfg.Datastore, err)
		}
	}
	if p.cfg.Folder != "" {
		env.baseFolder, err = f.Folder(ctx, p.cfg.Folder)
	} else {
		var fs *object.DatacenterFolders
		if fs, err = env.dc.Folders(ctx); err == nil {
			env.baseFolder = fs.VmFolder
		}
	}
	if err != nil {
		return nil, fmt.Errorf("folder %q: %w", p.cfg.Folder, err)
	}
	if p.cfg.Network != "" {
		if env.network, err = f.Network(ctx, p.cfg.Network); err != nil {
			return nil, fmt.Errorf("network %q: %w", p.cfg.Network, err)
		}
	}
	return env, nil
}

// Close logs out. The provider reconnects when used again.
func (p *Provider) Close(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client == nil {
		return nil
	}
	err := p.client.Logout(ctx)
	p.client, p.env = nil, nil
	return err
}
