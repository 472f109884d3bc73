package freebsd

import (
	"errors"
	"fmt"
	"math"
	"regexp"

	"github.com/lab-bench/lab/guest"
)

// Offload is one offload toggle a spec may name, with the ifconfig(8)
// parameter that sets it and the capability flag `ifconfig` prints in
// options= and capabilities= when it is on or offered.
type Offload struct {
	Name  string // spec name: lro, tso, rx, tx
	Param string // ifconfig parameter ("-" prefix clears it)
	Cap   string // flag in options=<…> (TSO4 stands for tso on IPv4)
}

// Offloads are the toggles FreeBSD has, in the order they are passed to
// ifconfig.
var Offloads = []Offload{
	{"lro", "lro", "LRO"},
	{"tso", "tso", "TSO4"},
	{"rx", "rxcsum", "RXCSUM"},
	{"tx", "txcsum", "TXCSUM"},
}

// noEquivalent explains the spec offloads FreeBSD does not have.
var noEquivalent = map[string]string{
	"gro": "FreeBSD has no GRO toggle (its software LRO, tcp_lro, is what the driver's lro parameter switches; use lro)",
	"gso": "FreeBSD has no GSO toggle (segmentation is TSO in the NIC or done by the stack; use tso)",
}

// Tunables are the loader tunables (/boot/loader.conf, read at attach)
// that keep vtnet from negotiating an offload at all: the offload is then
// missing from capabilities= and observed "off [fixed]". They are not
// needed to turn an offload off: ifconfig changes every offload a vtnet
// offers at runtime (sys/dev/virtio/network/if_vtnet.c,
// vtnet_ioctl_ifcap), which is what lab does.
var Tunables = map[string]string{
	"lro": "hw.vtnet.lro_disable",
	"tso": "hw.vtnet.tso_disable",
	"rx":  "hw.vtnet.csum_disable",
	"tx":  "hw.vtnet.csum_disable",
}

// RingHint says why FreeBSD guests refuse rx_ring and tx_ring and what
// to do instead. vmx(4) and the other iflib(4) drivers size their rings
// once, at attach, from the loader tunables dev.<driver>.<unit>.iflib.
// override_nrxds / override_ntxds (sys/net/iflib.c, iflib_add_device_
// sysctl_pre: CTLFLAG_RWTUN strings, "list of # of RX descriptors to use,
// 0 = use default #"; iflib(4): "must be set before loading the
// driver"); nothing changes them on a running interface. vtnet(4) is not
// an iflib driver: its rings are the virtqueues the hypervisor offers
// (libvirt's rx_queue_size/tx_queue_size), with no guest tunable.
//
// iface names the tunables for that interface (vmx0: dev.vmx.0.…); ""
// names them generically, for a plan that does not know the interface.
func RingHint(iface string) string {
	drv, unit := "<driver>", "<unit>"
	if m := unitRE.FindStringSubmatch(iface); m != nil {
		drv, unit = m[1], m[2]
	}
	if drv == "vtnet" {
		return "vtnet(4) is not an iflib(4) driver: its ring sizes are the virtqueue sizes the hypervisor offers (libvirt's " +
			"rx_queue_size/tx_queue_size) and vtnet(4) documents no tunable for them; rx_ring/tx_ring are refused for FreeBSD guests"
	}
	return fmt.Sprintf("FreeBSD sets NIC ring sizes only when the driver attaches: for vmx(4) and other iflib(4) drivers put "+
		"dev.%[1]s.%[2]s.iflib.override_nrxds=\"N\" and dev.%[1]s.%[2]s.iflib.override_ntxds=\"N\" (a comma-separated list, one power of two "+
		"per ring the driver has) in the guest's /boot/loader.conf and reboot; vtnet(4) rings are the virtqueue sizes the hypervisor "+
		"offers. lab does not reboot guests, so rx_ring/tx_ring are refused for FreeBSD guests", drv, unit)
}

var unitRE = regexp.MustCompile(`^([a-z]+?)([0-9]+)$`)

// MTU bounds: IPv4's minimum and the largest MTU ifconfig accepts.
const (
	MinMTU = 72
	MaxMTU = 65535
)

var (
	// ifaceRE: FreeBSD interface names are a driver name and a unit
	// number (vtnet0, vmx0, em0, ix0, bge1); the guest decides which.
	ifaceRE = regexp.MustCompile(`^[a-z]{1,12}[0-9]{1,4}$`)
	ccRE    = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)
	// sysctlKeyRE: a FreeBSD MIB name has dotted parts and no "/".
	sysctlKeyRE = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_%-]+)+$`)
)

// Validate checks every value in s (and the interface name) before any of
// it reaches a command line, and refuses what FreeBSD cannot do; it
// reports all problems at once.
func Validate(iface string, s guest.Settings) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	if !ifaceRE.MatchString(iface) {
		bad("interface %q: not a FreeBSD interface name (driver and unit, like vtnet0 or vmx0)", iface)
	}
	if s.MTU != 0 && (s.MTU < MinMTU || s.MTU > MaxMTU) {
		bad("mtu %d: out of range %d..%d", s.MTU, MinMTU, MaxMTU)
	}
	for _, name := range guest.SortedKeys(s.Offloads) {
		switch {
		case noEquivalent[name] != "":
			bad("offload %s: %s", name, noEquivalent[name])
		case offload(name) == nil:
			bad("offload %q: unknown (FreeBSD has lro tso rx tx)", name)
		}
	}
	if cc := s.CongestionControl; cc != "" && !ccRE.MatchString(cc) {
		bad("congestion control %q: not an algorithm name", cc)
	}
	for _, k := range guest.SortedKeys(s.Sysctl) {
		if err := CheckSysctlName(k); err != nil {
			bad("sysctl key %q: %v", k, err)
		}
		if err := guest.CheckSysctlValue(s.Sysctl[k]); err != nil {
			bad("sysctl %s value %q: %v", k, s.Sysctl[k], err)
		}
	}
	if l := s.Loss; l != nil {
		if math.IsNaN(l.Percent) || l.Percent < 0 || l.Percent > 100 {
			bad("loss %v%%: out of range 0..100", l.Percent)
		}
		if l.Percent > 0 {
			switch l.Method {
			case "random":
			case "nth":
				bad(`loss method nth: ipfw/dummynet cannot drop every n-th packet; set loss_method = "random" (dummynet plr, a random drop with that probability) for FreeBSD guests`)
			case "netem":
				bad(`loss method netem: netem is Linux's; set loss_method = "random" (dummynet plr) for FreeBSD guests`)
			default:
				bad("loss method %q: FreeBSD guests support random (ipfw + dummynet plr)", l.Method)
			}
		}
	}
	if s.RxRing != 0 || s.TxRing != 0 {
		bad("rx_ring/tx_ring on %s: %s", iface, RingHint(iface))
	}
	if s.Firewall != "" {
		if err := CheckPF(s.Firewall); err != nil {
			bad("firewall (pf): %v", err)
		}
	}
	return errors.Join(errs...)
}

func offload(name string) *Offload {
	for i := range Offloads {
		if Offloads[i].Name == name {
			return &Offloads[i]
		}
	}
	return nil
}

// CheckSysctlName refuses a name FreeBSD's sysctl(8) would not take: the
// rule every guest shares (guest.CheckSysctlName) and, for FreeBSD, dotted
// parts without "/" (net.inet.tcp.sendspace). spec calls it for the ends
// of a FreeBSD template, so that validate refuses what apply would.
func CheckSysctlName(name string) error {
	if err := guest.CheckSysctlName(name); err != nil {
		return fmt.Errorf("not a sysctl name: %w", err)
	}
	if !sysctlKeyRE.MatchString(name) {
		return fmt.Errorf(`not a FreeBSD sysctl name: dotted parts of lower-case letters, digits, _ and - (like net.inet.tcp.sendspace), no "/"`)
	}
	return nil
}
