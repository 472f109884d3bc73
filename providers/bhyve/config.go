package bhyve

import (
	"net"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"

	"github.com/lab-bench/lab/guest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// Config is the provider block:
//
//	provider "bhyve" "box" {
//	  host             = "192.0.2.5"     # the FreeBSD 14 host, reached over SSH
//	  port             = 22
//	  user             = "root"
//	  private_key_file = "~/.ssh/id_ed25519"
//	  host_key         = "ssh-ed25519 AAAA…"   # pin it (recommended)
//	  backend          = "vm-bhyve"      # or "bhyve" (raw bhyve + ZFS + bridge/tap)
//	  datastore        = "zroot/vm"      # ZFS dataset holding templates and clones
//	  switch           = "public"        # existing vm-bhyve switch / bridge; empty: lab makes one per pair
//	  uplink           = "igb1"          # host NIC added to lab-made switches (so lab reaches the guests)
//	  network_backend  = "tap"           # or "vale" (netmap: the only bhyve backend offering offloads)
//	  strict           = true            # refuse offload toggles a tap backend cannot honour
//	  address_discovery = "arp"          # "dhcp" (dnsmasq leases_file) or "static" (addresses)
//	  agent            = false           # offer ssh-agent's keys ($SSH_AUTH_SOCK) to the host
//	  known_hosts_file = ""              # check the host's key there when host_key is not set
//	                                     # (neither: pinned in the workspace's .lab/known_hosts)
//	  ssh_config       = ""              # "~/.ssh/config": host may be a Host alias there
//	  jump_via_host    = false           # reach the guests through the host (ProxyJump)
//	  management_switch = ""             # existing switch/bridge for every guest's first NIC (SSH);
//	                                     # the links are then isolated, lab addresses them (routed pairs)
//	}
type Config struct {
	Host             string            `hcl:"host"`
	Port             int               `hcl:"port,optional"`
	User             string            `hcl:"user,optional"`
	PrivateKeyFile   string            `hcl:"private_key_file,optional"`
	HostKey          string            `hcl:"host_key,optional"`
	Backend          string            `hcl:"backend,optional"`
	Datastore        string            `hcl:"datastore,optional"`
	Switch           string            `hcl:"switch,optional"`
	Uplink           string            `hcl:"uplink,optional"`
	NetworkBackend   string            `hcl:"network_backend,optional"`
	Strict           *bool             `hcl:"strict,optional"`
	AddressDiscovery string            `hcl:"address_discovery,optional"`
	LeasesFile       string            `hcl:"leases_file,optional"`
	Addresses        map[string]string `hcl:"addresses,optional"`
	Firmware         string            `hcl:"firmware,optional"`
	BootTimeout      string            `hcl:"boot_timeout,optional"`
	GuestIface       map[string]string `hcl:"guest_iface,optional"`
	Agent            bool              `hcl:"agent,optional"`
	KnownHostsFile   string            `hcl:"known_hosts_file,optional"`
	SSHConfig        string            `hcl:"ssh_config,optional"`
	JumpViaHost      bool              `hcl:"jump_via_host,optional"`
	// ManagementSwitch is an existing vm-bhyve switch (raw mode: bridge)
	// every guest's first NIC joins, for SSH and address discovery; the
	// links are then isolated switches lab makes, and lab addresses the
	// benchmark NICs on them (mgmt.go). Routed pairs need it.
	ManagementSwitch string `hcl:"management_switch,optional"`
}

// Backends and defaults.
const (
	BackendVMBhyve = "vm-bhyve"
	BackendRaw     = "bhyve"

	defaultDatastore = "zroot/vm"
	defaultLeases    = "/var/db/dnsmasq.leases"
	defaultFirmware  = "/usr/local/share/uefi-firmware/BHYVE_UEFI.fd"
	defaultBoot      = 5 * time.Minute
)

var (
	hostRE    = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$`)
	datasetRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]*(/[A-Za-z0-9][A-Za-z0-9_.:-]*)*$`)
	// nameRE: vm-bhyve VM and switch names, bridge/tap/NIC names, ZFS
	// dataset components — what lab puts on a command line as a name.
	nameRE    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)
	ifaceRE   = regexp.MustCompile(`^[a-z]{1,12}[0-9]{1,4}$`)
	anyIfRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,14}$`)
	pathRE    = regexp.MustCompile(`^/[A-Za-z0-9_./-]{1,200}$`)
	addrKeyRE = regexp.MustCompile(`^[a-z0-9_-]+\.(server|client|router)$`)
)

// decode reads and checks the provider block; every value that later
// reaches the host's shell is validated here. The checks run in the order
// the block's arguments are documented, so diagnostics keep that order.
func decode(body hcl.Body, ec *hcl.EvalContext) (Config, hcl.Diagnostics) {
	var c Config
	diags := gohcl.DecodeBody(body, ec, &c)
	if diags.HasErrors() {
		return c, diags
	}
	attrs, _ := body.JustAttributes()
	cd := providers.NewConfigDiags(body)
	cd.Append(diags)
	checkConnection(&c, cd, attrs)
	checkBackend(&c, cd)
	checkNetwork(&c, cd)
	checkDiscovery(&c, cd)
	checkGuests(&c, cd)
	checkLocalFiles(c, cd)
	checkBootTimeout(c, cd)
	return c, cd.Diags()
}

// checkConnection checks how lab reaches the host (host and the SSH
// login) and fills in the login's defaults; with ssh_config, what the
// block leaves unset is cleared again so that it comes from the
// ssh_config entry, as with ssh(1). attrs are the block's attributes.
func checkConnection(c *Config, cd *providers.ConfigDiags, attrs hcl.Attributes) {
	if net.ParseIP(c.Host) == nil && (!hostRE.MatchString(c.Host) || strings.Contains(c.Host, "..")) {
		cd.Errorf("host", "Invalid host", "host must be the bhyve host's IP address or name, got %q.", c.Host)
	}
	login := machine.Login{Port: c.Port, User: c.User, PrivateKeyFile: c.PrivateKeyFile, HostKey: c.HostKey}
	for _, p := range labssh.CheckLogin(&login) {
		cd.Errorf(p.Attr, p.Summary, "%s", p.Detail)
	}
	c.Port, c.User, c.PrivateKeyFile = login.Port, login.User, login.PrivateKeyFile
	if c.SSHConfig != "" {
		// What the block leaves unset comes from the ssh_config entry
		// (and then lab's defaults), as with ssh(1).
		for name, zero := range map[string]func(){"port": func() { c.Port = 0 }, "user": func() { c.User = "" },
			"private_key_file": func() { c.PrivateKeyFile = "" }} {
			if _, set := attrs[name]; !set {
				zero()
			}
		}
	}
}

// checkBackend checks how and where lab makes the VMs (backend and
// datastore), filling in their defaults.
func checkBackend(c *Config, cd *providers.ConfigDiags) {
	switch c.Backend {
	case "":
		c.Backend = BackendVMBhyve
	case BackendVMBhyve, BackendRaw:
	default:
		cd.Errorf("backend", "Invalid backend", `backend must be "vm-bhyve" (the vm command) or "bhyve" (bhyve, zfs and ifconfig directly), got %q.`, c.Backend)
	}
	if c.Datastore == "" {
		c.Datastore = defaultDatastore
	} else if !datasetRE.MatchString(c.Datastore) || strings.Contains(c.Datastore, "..") {
		cd.Errorf("datastore", "Invalid datastore", "datastore must be a ZFS dataset name such as \"zroot/vm\", got %q.", c.Datastore)
	}
}

// checkNetwork checks what the pairs' links are attached to (switch,
// management_switch, uplink, network_backend), filling in the default
// network backend.
func checkNetwork(c *Config, cd *providers.ConfigDiags) {
	if c.Switch != "" && !nameRE.MatchString(c.Switch) {
		cd.Errorf("switch", "Invalid switch", "switch must be a vm-bhyve switch or bridge name, got %q.", c.Switch)
	}
	c.checkManagementSwitch(cd)
	if c.Uplink != "" && !ifaceRE.MatchString(c.Uplink) {
		cd.Errorf("uplink", "Invalid uplink", "uplink must be a host interface name such as igb1, got %q.", c.Uplink)
	}
	switch c.NetworkBackend {
	case "":
		c.NetworkBackend = "tap"
	case "tap", "vale":
	default:
		cd.Errorf("network_backend", "Invalid network backend", `network_backend must be "tap" or "vale", got %q.`, c.NetworkBackend)
	}
}

// checkDiscovery checks how lab finds a guest's address
// (address_discovery and the DHCP leases_file), filling in their defaults.
func checkDiscovery(c *Config, cd *providers.ConfigDiags) {
	switch c.AddressDiscovery {
	case "":
		c.AddressDiscovery = "arp"
	case "arp", "dhcp", "static":
	default:
		cd.Errorf("address_discovery", "Invalid address discovery", `address_discovery must be "arp", "dhcp" or "static", got %q.`, c.AddressDiscovery)
	}
	if c.LeasesFile == "" {
		c.LeasesFile = defaultLeases
	} else if !pathRE.MatchString(c.LeasesFile) || strings.Contains(c.LeasesFile, "..") {
		cd.Errorf("leases_file", "Invalid leases file", "leases_file must be an absolute path, got %q.", c.LeasesFile)
	}
}

// checkGuests checks what the block says about the guests themselves: the
// firmware they boot (filling in its default), their static addresses
// (required with address_discovery = "static") and their interface names.
func checkGuests(c *Config, cd *providers.ConfigDiags) {
	if c.Firmware == "" {
		c.Firmware = defaultFirmware
	} else if !pathRE.MatchString(c.Firmware) || strings.Contains(c.Firmware, "..") {
		cd.Errorf("firmware", "Invalid firmware", "firmware must be an absolute path to a UEFI image, got %q.", c.Firmware)
	}
	for k, v := range c.Addresses {
		if !addrKeyRE.MatchString(k) || net.ParseIP(v) == nil {
			cd.Errorf("addresses", "Invalid static address", `addresses maps "<pair>.<role>" to an IP address, got %q = %q.`, k, v)
		}
	}
	if c.AddressDiscovery == "static" && len(c.Addresses) == 0 {
		cd.Errorf("addresses", "Missing static addresses", `address_discovery = "static" needs addresses = { "<pair>.server" = "…", "<pair>.client" = "…" }.`)
	}
	for k, v := range c.GuestIface {
		if !anyIfRE.MatchString(v) {
			cd.Errorf("guest_iface", "Invalid guest interface", "guest_iface %s = %q is not an interface name.", k, v)
		}
	}
}

// checkLocalFiles refuses control characters in the paths of lab's own
// SSH files (known_hosts_file, ssh_config).
func checkLocalFiles(c Config, cd *providers.ConfigDiags) {
	for name, v := range map[string]string{"known_hosts_file": c.KnownHostsFile, "ssh_config": c.SSHConfig} {
		if strings.ContainsAny(v, "\x00\n\r") {
			cd.Errorf(name, "Invalid "+name, "%s must be a path without control characters.", name)
		}
	}
}

// checkBootTimeout refuses a boot_timeout that is not a positive duration.
func checkBootTimeout(c Config, cd *providers.ConfigDiags) {
	if c.BootTimeout != "" {
		if d, err := time.ParseDuration(c.BootTimeout); err != nil || d <= 0 {
			cd.Errorf("boot_timeout", "Invalid boot_timeout", "%q is not a positive duration such as \"5m\".", c.BootTimeout)
		}
	}
}

// checkManagementSwitch refuses a malformed management_switch and one
// beside switch or uplink, in cd.
func (c Config) checkManagementSwitch(cd *providers.ConfigDiags) {
	switch {
	case c.ManagementSwitch == "":
	case !nameRE.MatchString(c.ManagementSwitch):
		cd.Errorf("management_switch", "Invalid management_switch", "management_switch must be a vm-bhyve switch or bridge name, got %q.", c.ManagementSwitch)
	case c.Switch != "":
		cd.Errorf("management_switch", "Conflicting arguments",
			"management_switch gives every pair isolated switches lab makes; switch puts every pair on one existing switch: set one.")
	case c.Uplink != "":
		cd.Errorf("management_switch", "Conflicting arguments",
			"with management_switch lab reaches the guests on it and keeps the pairs' switches isolated: drop uplink.")
	}
}

func (c Config) strict() bool { return c.Strict == nil || *c.Strict }

func (c Config) bootTimeout() time.Duration {
	if d, err := time.ParseDuration(c.BootTimeout); err == nil && d > 0 {
		return d
	}
	return defaultBoot
}

// guestIface is the guest's name for its virtio-net NIC at bus 0, slot 5,
// as its OS names it: vtnet0 on FreeBSD, enp0s5 on Linux (as in seed 003's
// Ubuntu guest).
func (c Config) guestIface(os string) string {
	if s := c.GuestIface[os]; s != "" {
		return s
	}
	return guest.For(os).NICs.Name(guest.NICSlot{Model: "virtio-net", Bus: 0, Slot: nicSlotNumber})
}
