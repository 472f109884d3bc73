// Package vsphere is the VMware vSphere back end (govmomi). A pair is two
// virtual machines cloned from templates into a folder named for the lab,
// sized by a ReconfigSpec (vCPU, cores per socket, memory), given exactly
// one NIC of the requested model (vmxnet3 by default) on the provider's port
// group, powered on, and reached over SSH at the address VMware Tools
// reports. The pair's link MTU is set on the vSwitch (on the placement's
// hosts) or DVS behind the port group; the switch records its previous MTU
// and the links holding it (custom attribute lab-mtu), and the last link
// deleted — or an orphan sweep — restores it. In own-switch mode (the
// default with a pinned host; ownswitch.go) each pair gets an isolated
// vSwitch and port group of its own instead, and each VM a management NIC
// besides its benchmark NIC.
//
// Credentials come from GOVC_USERNAME and GOVC_PASSWORD, or from the user
// information of GOVC_URL (https://user:pass@vc/sdk, as govc takes it; a
// url in the provider block may not carry a password). GOVC_URL and
// GOVC_INSECURE default url and insecure; GOVC_TLS_CA_CERTS (PEM files)
// and GOVC_THUMBPRINT (the certificate's SHA-1 or SHA-256 thumbprint)
// trust a vCenter whose certificate the system does not. Credentials are
// never written to state, results, logs or events. The provider logs in
// once per command and stops at the first failed login.
package vsphere

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/fault"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/session"
	"github.com/vmware/govmomi/vapi/rest"
	"github.com/vmware/govmomi/vapi/tags"
	"github.com/vmware/govmomi/vim25"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/soap"
	"github.com/vmware/govmomi/vim25/types"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/machine"
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

	cfg        Config
	username   string
	password   string
	thumbprint string // GOVC_THUMBPRINT: the vCenter certificate's SHA-1 or SHA-256 thumbprint
	caCerts    string // GOVC_TLS_CA_CERTS: PEM files of CAs to trust

	// authErr is the first authentication failure, or the first failure
	// to find the provider block's names after logging in: every later
	// call returns it without logging in again (vsphere.local locks an
	// account after five failures; a command touches many resources).
	authErr error

	mu      sync.Mutex // guards the session and the lab folder
	client  *govmomi.Client
	env     *inventory
	checked time.Time // last time the session was known to be active
	// dial connects to the SSH server of a guest; replaced in tests.
	dial providers.DialFunc

	linkMu sync.Mutex // serialises changes to switch MTU records
	// batches gathers own-switch link changes by host (hostbatch.go).
	batches hostBatches
	ruleMu  sync.Mutex // serialises keep_together rule changes

	tagMu sync.Mutex   // serialises tag changes; guards rest and tags
	rest  *rest.Client // the tagging API's session (tag_category)
	tags  *tags.Manager

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
	// use {name}, {role}, {pair}, {lab}, {index} and {role_index} (1 for
	// the server, 2 for the client, 3 for a router).
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
	// DRSOverride, in a cluster with DRS on, gives every VM a DRS
	// override "disabled" once it is powered on, so DRS never migrates a
	// machine in the middle of a run. Each is one cluster reconfigure
	// task, which vCenter runs one at a time per cluster.
	DRSOverride bool `hcl:"drs_override,optional"`
	// KeepTogether, in a cluster with DRS on, binds each pair's VMs by a
	// VM–VM affinity rule (mandatory), so they run on one host and their
	// traffic stays on its vSwitch without pinning a host.
	KeepTogether bool `hcl:"keep_together,optional"`
	// LinkMode is how a pair's link is made: "own-switch" (the default
	// when a host is pinned) creates an isolated standard vSwitch with no
	// uplink and a port group on it per pair, on the pinned host, for the
	// benchmark NIC, and keeps a management NIC on network; "shared-switch"
	// (the default otherwise) attaches the one NIC to network and changes
	// the MTU of the switch behind it.
	LinkMode string `hcl:"link_mode,optional"`
	// CPUReservationMHz reserves CPU for every VM (MHz; 0: none).
	CPUReservationMHz int64 `hcl:"cpu_reservation_mhz,optional"`
	// ReserveMemory reserves all of every VM's memory
	// (memoryReservationLockedToMax).
	ReserveMemory bool `hcl:"reserve_memory,optional"`
	// LatencySensitivity is every VM's latency sensitivity level (low,
	// normal, medium, high; high needs reserve_memory).
	LatencySensitivity string `hcl:"latency_sensitivity,optional"`
	// TagCategory, when set, is the vSphere tag category in which every VM
	// gets its owner's tag ("lab=<lab> ws=<workspace>"; see tags.go).
	TagCategory string `hcl:"tag_category,optional"`

	Remain hcl.Body `hcl:",remain"`
}

// attributes the block takes, for the "unsupported argument" message.
const attributeList = "url, insecure, datacenter, cluster, host, resource_pool, datastore, folder, network, linked_clone, snapshot, " +
	"cores_per_socket, extra_config, ip_timeout, ignored_ip_ranges, guest_iface, custom_attribute, drs_override, keep_together, link_mode, cpu_reservation_mhz, reserve_memory, latency_sensitivity, tag_category"

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
	cd := providers.NewConfigDiags(body)
	cd.Append(diags)
	cd.Unsupported(c.Remain, "vsphere", attributeList)
	getenv := p.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	fromEnv := c.fromEnv(getenv, cd)
	c.check(ctx, fromEnv, cd)
	p.cfg = c
	p.username, p.password = credentials(c.URL, getenv)
	p.thumbprint, p.caCerts = getenv("GOVC_THUMBPRINT"), getenv("GOVC_TLS_CA_CERTS")
	if p.caCerts != "" {
		for _, f := range filepath.SplitList(p.caCerts) {
			if _, err := os.Stat(f); err != nil {
				cd.Errorf("", "Invalid GOVC_TLS_CA_CERTS", "GOVC_TLS_CA_CERTS names %q: %v", f, err)
			}
		}
	}
	p.authErr = nil
	return cd.Diags()
}

// fromEnv fills url and insecure from GOVC_URL and GOVC_INSECURE when the
// block does not set them; it reports whether url came from there.
func (c *Config) fromEnv(getenv func(string) string, cd *providers.ConfigDiags) bool {
	fromEnv := false
	if c.URL == "" {
		c.URL, fromEnv = getenv("GOVC_URL"), true
	}
	if c.Insecure == nil {
		if v := getenv("GOVC_INSECURE"); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				cd.Errorf("insecure", "Invalid GOVC_INSECURE", "GOVC_INSECURE must be true or false, got %q.", v)
			}
			c.Insecure = &b
		}
	}
	return fromEnv
}

// check reports what is wrong in the decoded block, each at its attribute.
func (c Config) check(ctx context.Context, fromEnv bool, cd *providers.ConfigDiags) {
	if c.URL == "" {
		if !providers.Offline(ctx) { // validate needs no endpoint
			cd.Errorf("", "Missing vCenter URL", "Set url in the provider block or GOVC_URL in the environment.")
		}
	} else if u, err := soap.ParseURL(c.URL); err != nil || u == nil {
		cd.Errorf("url", "Invalid vCenter URL", "%q is not a URL: %v", redactURL(c.URL), err)
	} else if u.User != nil && !fromEnv {
		if pw, _ := u.User.Password(); pw != "" {
			cd.Errorf("url", "Password in URL", "Do not write credentials in url: set GOVC_USERNAME and GOVC_PASSWORD in the environment (or user:password in GOVC_URL).")
		}
	}
	if c.Cluster != "" && c.ResourcePool != "" && c.Host != "" {
		cd.Errorf("", "Conflicting placement", "Give cluster (and optionally host), or host alone, or resource_pool; not all three.")
	}
	if c.IPTimeout != "" {
		if d, err := time.ParseDuration(c.IPTimeout); err != nil || d <= 0 {
			cd.Errorf("ip_timeout", "Invalid ip_timeout", "%q is not a positive duration such as \"5m\".", c.IPTimeout)
		}
	}
	for _, r := range c.IgnoredIPRanges {
		if _, _, err := net.ParseCIDR(r); err != nil {
			cd.Errorf("ignored_ip_ranges", "Invalid ignored_ip_ranges", "%q is not a CIDR such as \"172.17.0.0/16\".", r)
		}
	}
	c.checkLinkMode(cd)
	c.checkReservations(cd)
	if c.DRSOverride && c.KeepTogether {
		cd.Errorf("", "Conflicting DRS settings", "drs_override disables DRS for each VM, and DRS then enforces no affinity rule: choose drs_override or keep_together.")
	}
	for _, a := range []struct {
		name string
		set  bool
	}{{"drs_override", c.DRSOverride}, {"keep_together", c.KeepTogether}} {
		if a.set && c.Host != "" {
			cd.Errorf(a.name, a.name+" with a pinned host",
				"%s acts through DRS, and with host set every VM is placed on that host: DRS neither moves nor places them, "+
					"so %s would do nothing. Remove %s, or remove host and let DRS place the VMs in cluster.", a.name, a.name, a.name)
		}
	}
	if c.CoresPerSocket < 0 {
		cd.Errorf("cores_per_socket", "Invalid cores_per_socket", "cores_per_socket must be positive.")
	}
	for k := range c.ExtraConfig {
		if strings.ContainsAny(k, " \t\n=\"") || k == "" {
			cd.Errorf("extra_config", "Invalid extra_config key", "%q is not a VMX option name.", k)
		}
	}
}

func (c Config) ipTimeout() time.Duration {
	if d, err := time.ParseDuration(c.IPTimeout); err == nil && d > 0 {
		return d
	}
	return 5 * time.Minute
}

// guestIface is the guest's name for the benchmark NIC.
func (c Config) guestIface(t machine.Template) string {
	if s := c.GuestIface[t.Name]; s != "" {
		return s
	}
	if s := c.GuestIface[t.OS]; s != "" {
		return s
	}
	// vSphere puts the first vmxnet3 NIC in the slot its firmware numbers
	// 192: ens192 on Linux, vmx0 on FreeBSD.
	return guest.For(t.OS).NICs.Name(guest.NICSlot{Model: "vmxnet3", Physical: 192})
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
	// noDRS names the cluster when it has DRS off: vCenter then cannot
	// place a clone, so one needs a host.
	noDRS string
	// drs is the cluster when it has DRS on (for drs_override).
	drs *object.ClusterComputeResource
}

// credentials are GOVC_USERNAME and GOVC_PASSWORD, each defaulting to the
// user information of the URL (GOVC_URL=https://user:pass@vc/sdk, as govc
// takes it).
func credentials(rawURL string, getenv func(string) string) (username, password string) {
	username, password = getenv("GOVC_USERNAME"), getenv("GOVC_PASSWORD")
	if u, err := soap.ParseURL(rawURL); err == nil && u != nil && u.User != nil {
		if username == "" {
			username = u.User.Username()
		}
		if pw, ok := u.User.Password(); ok && password == "" {
			password = pw
		}
	}
	return username, password
}

// untrusted reports whether err is a failure to verify the server's
// certificate (or its pinned thumbprint).
func untrusted(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		invalid  x509.CertificateInvalidError
		hostname x509.HostnameError
		verify   *tls.CertificateVerificationError
	)
	return errors.As(err, &unknown) || errors.As(err, &invalid) || errors.As(err, &hostname) || errors.As(err, &verify) ||
		strings.Contains(err.Error(), "thumbprint does not match")
}

// AuthError is a failed login (or none possible): lab stops at the first
// one instead of trying again for every resource.
type AuthError struct {
	URL, User string
	Err       error
}

func (e *AuthError) Error() string {
	if e.User == "" {
		return fmt.Sprintf("log in to %s: no credentials — set GOVC_USERNAME and GOVC_PASSWORD in the environment (or user:password in GOVC_URL)", e.URL)
	}
	return fmt.Sprintf("log in to %s as %s: %v (lab stops at the first failed login: vCenter locks an account after a few)", e.URL, e.User, e.Err)
}

func (e *AuthError) Unwrap() error { return e.Err }

// session returns a logged-in client and the resolved inventory. It logs
// in once per provider (the CLI makes one per command) and again only
// when vCenter ended the session; after a failed login it returns that
// failure without trying again.
func (p *Provider) session(ctx context.Context) (*govmomi.Client, *inventory, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.authErr != nil {
		return nil, nil, p.authErr
	}
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
	c, err := p.login(ctx)
	if err != nil {
		return nil, nil, err
	}
	env, err := p.resolve(ctx, c)
	if err != nil {
		// A name that does not resolve will not resolve on the next call
		// either: keep the session for Close to end, and the error.
		p.client, p.authErr = c, err
		return nil, nil, err
	}
	p.client, p.env, p.checked = c, env, time.Now()
	return c, env, nil
}

// login connects (trusting GOVC_TLS_CA_CERTS and GOVC_THUMBPRINT when
// given) and logs in; an authentication failure is kept in p.authErr.
func (p *Provider) login(ctx context.Context) (*govmomi.Client, error) {
	if p.cfg.URL == "" {
		return nil, fmt.Errorf("vsphere: provider not configured (no url)")
	}
	u, err := soap.ParseURL(p.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("vsphere: url: %w", err)
	}
	u.User = nil
	where := u.Redacted()
	if p.username == "" {
		p.authErr = &AuthError{URL: where}
		return nil, p.authErr
	}
	insecure := p.cfg.Insecure != nil && *p.cfg.Insecure
	sc := soap.NewClient(u, insecure)
	if p.caCerts != "" {
		if err := sc.SetRootCAs(p.caCerts); err != nil {
			return nil, fmt.Errorf("connect to %s: GOVC_TLS_CA_CERTS: %w", where, err)
		}
	}
	if p.thumbprint != "" {
		sc.SetThumbprint(u.Host, p.thumbprint)
	}
	vc, err := vim25.NewClient(ctx, sc)
	if err != nil {
		if untrusted(err) {
			return nil, fmt.Errorf("connect to %s: %w (the certificate is not trusted: set GOVC_TLS_CA_CERTS to the CA's PEM file, "+
				"or GOVC_THUMBPRINT to the certificate's thumbprint, or insecure = true)", where, err)
		}
		return nil, fmt.Errorf("connect to %s: %w", where, err)
	}
	c := &govmomi.Client{Client: vc, SessionManager: session.NewManager(vc)}
	if err := c.Login(ctx, url.UserPassword(p.username, p.password)); err != nil {
		if fault.Is(err, &types.InvalidLogin{}) || fault.Is(err, &types.NotAuthenticated{}) || fault.Is(err, &types.NoPermission{}) {
			p.authErr = &AuthError{URL: where, User: p.username, Err: err}
			return nil, p.authErr
		}
		return nil, fmt.Errorf("log in to %s as %s: %w", where, p.username, err)
	}
	return c, nil
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
		if err == nil && env.host == nil {
			var cc mo.ClusterComputeResource
			if err = cl.Properties(ctx, cl.Reference(), []string{"configurationEx"}, &cc); err == nil {
				if ex, ok := cc.ConfigurationEx.(*types.ClusterConfigInfoEx); ok && (ex.DrsConfig.Enabled == nil || !*ex.DrsConfig.Enabled) {
					env.noDRS = p.cfg.Cluster
				} else if ok {
					env.drs = cl
				}
			}
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
	p.tagMu.Lock()
	if p.rest != nil {
		_ = p.rest.Logout(ctx) // the REST session also ends with the SOAP one's logout below
		p.rest, p.tags = nil, nil
	}
	p.tagMu.Unlock()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.client == nil {
		return nil
	}
	err := p.client.Logout(ctx)
	p.client, p.env = nil, nil
	return err
}
