package guest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Driver is everything lab knows about one guest operating system: the
// template's os names it, and every package outside guest/ that needs to
// do something differently on it asks its Driver instead of comparing the
// OS's name. An OS package (guest/linux, guest/freebsd) fills one in and
// registers it in an init function; cmd/lab imports the package.
//
// An optional field left zero means the OS has no such thing (FreeBSD
// has no programs to check beyond the benchmark, no software-only
// offloads); each field says what its callers then do. Register refuses a
// Driver without the functions every OS must have.
type Driver struct {
	// Name is the template's os ("linux").
	Name string
	// Kernel is what `uname -s` prints on the OS ("Linux"); messages name
	// the OS with it too.
	Kernel string
	// Default makes this the driver of templates that name no os, and of
	// an os no driver is registered for where lab tolerates one (For).
	Default bool
	// New returns the driver that applies and observes settings.
	New func() OS
	// BhyveLoad says bhyveload(8) can boot the OS from its disk on a bhyve
	// host (it runs FreeBSD's loader); other OSes boot from UEFI firmware.
	BhyveLoad bool

	NICs      NICs      // finding and addressing the benchmark NIC
	Processes Processes // listening sockets and CPU pinning
	CPU       CPU       // CPU times and clock, for CPU sampling
	Tools     Tools     // the programs the driver runs, and their packages
	Limits    Limits    // what the OS cannot set, with the reason
	Firewall  Firewall  // the packet filter lab loads rulesets into; zero: none
	Counters  Counters  // TCP and interrupt counters around each run; zero: none
}

// NICs is how an OS names, finds and addresses its network interfaces.
type NICs struct {
	// List prints every interface with its link-layer address.
	List Cmd
	// ByMAC finds in List's output the interface whose Ethernet address
	// is mac (any case), "" when none has it.
	ByMAC func(out, mac string) string
	// Static are the commands that make prefix (a CIDR) the only IPv4
	// address of iface and bring it up.
	Static func(iface, prefix string) []Cmd
	// Static6, when not nil, are the commands that give iface the IPv6
	// address prefix (a CIDR, "fd…::1/64") as its only global IPv6
	// address, usable at once (no duplicate address detection: lab's
	// links carry nothing else to clash with), with IPv6 enabled on it;
	// the link-local address stays. nil: the OS cannot be given one.
	Static6 func(iface, prefix string) []Cmd
	// Forward, when not nil, are the commands that make the guest forward
	// IPv4 packets between its interfaces, and IPv6 ones too with ipv6:
	// what a routed pair's router guest needs. nil: the OS cannot be a
	// router (back ends then refuse one on it).
	Forward func(ipv6 bool) []Cmd
	// Route, when not nil, are the commands that send traffic to prefix
	// (a CIDR, IPv4 or IPv6) via gateway gw on iface, replacing a route to
	// prefix the guest has: a routed pair's end reaches its peer's link
	// through the router. nil: the OS cannot be given one.
	Route func(iface, prefix, gw string) []Cmd
	// Name is the name the OS gives the first NIC at slot; "" when it
	// cannot tell (the back end then needs guest_iface).
	Name func(slot NICSlot) string
	// Check, when not nil, is a command that fails when iface does not
	// exist (the hosts back end runs it on a borrowed machine).
	Check func(iface string) Cmd
	// Hostname is a POSIX sh fragment setting the hostname to the
	// already-quoted name now and for later boots; it prints nothing.
	Hostname func(quoted string) string
	// PathProbe, when not nil, is a command that succeeds only when addr
	// answers IPv4 echo requests of size bytes of payload sent with the
	// don't-fragment bit set: the path to it carries packets of
	// size + 28 bytes unfragmented. A cross pair's ends meet on a network
	// lab does not own, so the engine checks it before the first run.
	PathProbe func(addr string, size int) Cmd
}

// NICSlot is where a hypervisor puts a guest's NIC: the device model and
// its PCI address, so that the OS can say what it will call it.
type NICSlot struct {
	// Model is the emulated device: "vmxnet3", "virtio-net".
	Model string
	// Bus and Slot are the PCI bus and device numbers (bhyve's -s 5 is
	// bus 0, slot 5).
	Bus, Slot int
	// Physical is the slot number the firmware reports for the device
	// (ACPI _SUN; vSphere numbers the first NIC's slot 192), 0 for none.
	Physical int
}

// Processes is how an OS reports listening sockets and pins a command to
// CPUs.
type Processes struct {
	// Listen prints one line per TCP socket listening on port (and
	// possibly a header line, which callers skip), nothing when none does.
	Listen func(port int) Cmd
	// ListenUDP is Listen for UDP: one line per UDP socket bound to port
	// (an unconnected server's); nil when the OS has no such check.
	ListenUDP func(port int) Cmd
	// Pin is the words that, put before a command, run it on the CPUs of
	// list ("0,1").
	Pin func(list string) []string
}

// Tools names the programs an OS's driver runs and the packages that bring
// them, for the check before the first run.
type Tools struct {
	// Packaging is the packaging system the OS installs programs with
	// (PackagingDeb, PackagingPorts): a benchmark tool names its packages
	// by packaging system, so that neither has to know the other's list.
	Packaging string
	// Always are programs the driver needs on every end (ethtool).
	Always []string
	// For lists the programs applying s needs beyond Always (tc for loss,
	// nft for a firewall); nil: none.
	For func(s Settings) []string
	// Pin is the program Processes.Pin runs, when it has to be installed
	// ("" when it is part of the base system and never checked).
	Pin string
	// Probe is the program NICs.PathProbe runs, checked on a cross pair's
	// client ("" when it is part of the base system).
	Probe string
	// InstallHint says how to install program ("Debian/Ubuntu: apt-get
	// install iperf3"). pkg is the package a benchmark tool names for this
	// OS ("" when none does): the driver knows only its own programs'.
	InstallHint func(program, pkg string) string
}

// The packaging systems benchmark tools name their packages in.
const (
	// PackagingDeb is Debian's and Ubuntu's: apt-get install NAME.
	PackagingDeb = "deb"
	// PackagingPorts is FreeBSD's ports tree: pkg install ORIGIN.
	PackagingPorts = "ports"
)

// Limits are settings an OS cannot make, and its own ways of making others.
type Limits struct {
	// SoftwareOffloads are the offload toggles the OS implements in its
	// own stack whatever the NIC offers (Linux GRO).
	SoftwareOffloads []string
	// RingHint, when not empty, says why rx_ring/tx_ring cannot be set at
	// runtime and what to do instead; planning then refuses them.
	RingHint string
	// SysctlName, when not nil, refuses a sysctl name the OS's driver
	// would refuse at apply beyond CheckSysctlName's rule (FreeBSD's
	// dotted lower-case names); spec calls it at validate.
	SysctlName func(name string) error
}

var (
	osMu    sync.Mutex
	drivers = map[string]Driver{}
)

// Register makes a guest OS known under d.Name. It panics on a duplicate
// name, a second default or a required field left out (every function
// field but NICs.Check and Tools.For): all are programming errors caught by
// any test.
func Register(d Driver) {
	if m := d.missing(); len(m) > 0 {
		panic("guest: OS " + d.Name + " registers no " + strings.Join(m, ", "))
	}
	osMu.Lock()
	defer osMu.Unlock()
	if _, dup := drivers[d.Name]; dup {
		panic("guest: duplicate registration of OS " + d.Name)
	}
	for _, o := range drivers {
		if d.Default && o.Default {
			panic("guest: two default OSes: " + o.Name + " and " + d.Name)
		}
	}
	drivers[d.Name] = d
}

// Lookup returns the driver registered for a template's os; "" is the
// default OS.
func Lookup(name string) (Driver, bool) {
	osMu.Lock()
	defer osMu.Unlock()
	if name == "" {
		d, ok := defaultLocked()
		return d, ok
	}
	d, ok := drivers[name]
	return d, ok
}

// For is the driver of a template's os, the default OS's when none is
// registered under that name (lab's spec admits only registered OSes, so
// that is a template lab never checked). It panics when no OS is
// registered at all: the program lacks its guest/<os> imports.
func For(name string) Driver {
	if d, ok := Lookup(name); ok {
		return d
	}
	osMu.Lock()
	defer osMu.Unlock()
	d, ok := defaultLocked()
	if !ok {
		panic("guest: no default OS registered (import github.com/lab-bench/lab/guest/linux)")
	}
	return d
}

// NewOS returns the settings driver for a template's os, an error naming
// the known OSes when there is none.
func NewOS(name string) (OS, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no driver for guest os %q yet (known: %s)", name, strings.Join(Names(), ", "))
	}
	return d.New(), nil
}

// Names lists the registered OSes, the default first, then by name.
func Names() []string {
	osMu.Lock()
	defer osMu.Unlock()
	var n []string
	for k := range drivers {
		n = append(n, k)
	}
	sort.Slice(n, func(i, j int) bool {
		if di, dj := drivers[n[i]].Default, drivers[n[j]].Default; di != dj {
			return di
		}
		return n[i] < n[j]
	})
	return n
}

// Registered reports whether name is a registered OS ("" is not).
func Registered(name string) bool {
	osMu.Lock()
	defer osMu.Unlock()
	_, ok := drivers[name]
	return ok
}

func defaultLocked() (Driver, bool) {
	for _, d := range drivers {
		if d.Default {
			return d, true
		}
	}
	return Driver{}, false
}

// SoftwareOffload reports whether os implements the offload toggle name
// in its own stack (Limits.SoftwareOffloads).
func (d Driver) SoftwareOffload(name string) bool {
	return slices.Contains(d.Limits.SoftwareOffloads, name)
}

// missing names the required fields d leaves empty.
func (d Driver) missing() []string {
	var m []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"Name", d.Name != ""}, {"Kernel", d.Kernel != ""}, {"New", d.New != nil},
		{"NICs.List", len(d.NICs.List.Argv) > 0}, {"NICs.ByMAC", d.NICs.ByMAC != nil},
		{"NICs.Static", d.NICs.Static != nil}, {"NICs.Name", d.NICs.Name != nil},
		{"NICs.Hostname", d.NICs.Hostname != nil},
		{"Processes.Listen", d.Processes.Listen != nil}, {"Processes.Pin", d.Processes.Pin != nil},
		{"CPU.Times", d.CPU.Times != nil}, {"CPU.MHz", d.CPU.MHz != nil},
		{"Tools.InstallHint", d.Tools.InstallHint != nil},
	} {
		if !f.set {
			m = append(m, f.name)
		}
	}
	return m
}
