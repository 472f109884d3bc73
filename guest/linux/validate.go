package linux

import (
	"errors"
	"fmt"
	"math"
	"regexp"

	"github.com/lab-bench/lab/guest"
)

// Features are the offload names a spec may use, in the order they are
// passed to ethtool, with the name `ethtool -k` prints for each.
var Features = []struct{ Name, Long string }{
	{"lro", "large-receive-offload"},
	{"gro", "generic-receive-offload"},
	{"gso", "generic-segmentation-offload"},
	{"tso", "tcp-segmentation-offload"},
	{"rx", "rx-checksumming"},
	{"tx", "tx-checksumming"},
}

// MTU bounds: IPv4's minimum and the largest MTU Linux drivers accept.
const (
	MinMTU = 68
	MaxMTU = 65535
)

var (
	ifaceRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,14}$`)
	ccRE    = regexp.MustCompile(`^[a-z0-9_]{1,15}$`)
)

// Validate checks every value in s (and the interface name) before any of it
// reaches a command line; it reports all problems at once.
func Validate(iface string, s guest.Settings) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }

	if !ifaceRE.MatchString(iface) {
		bad("interface %q: not a Linux interface name", iface)
	}
	if s.MTU != 0 && (s.MTU < MinMTU || s.MTU > MaxMTU) {
		bad("mtu %d: out of range %d..%d", s.MTU, MinMTU, MaxMTU)
	}
	for _, r := range []struct {
		name string
		n    int
	}{{"rx_ring", s.RxRing}, {"tx_ring", s.TxRing}} {
		if r.n != 0 && (r.n < MinRing || r.n > MaxRing) {
			bad("%s %d: out of range %d..%d", r.name, r.n, MinRing, MaxRing)
		}
	}
	for _, name := range guest.SortedKeys(s.Offloads) {
		if longName(name) == "" {
			bad("offload %q: unknown (known: lro gro gso tso rx tx)", name)
		}
	}
	if cc := s.CongestionControl; cc != "" && !ccRE.MatchString(cc) {
		bad("congestion control %q: not an algorithm name", cc)
	}
	for _, k := range guest.SortedKeys(s.Sysctl) {
		if err := guest.CheckSysctlName(k); err != nil {
			bad("sysctl key %q: not a sysctl name: %v", k, err)
		}
		if err := guest.CheckSysctlValue(s.Sysctl[k]); err != nil {
			bad("sysctl %s value %q: %v", k, s.Sysctl[k], err)
		}
	}
	if l := s.Loss; l != nil {
		switch l.Method {
		case "nth", "random", "netem":
		default:
			bad("loss method %q: want nth, random or netem", l.Method)
		}
		if math.IsNaN(l.Percent) || l.Percent < 0 || l.Percent > 100 {
			bad("loss %v%%: out of range 0..100", l.Percent)
		}
		if l.Port != 0 && l.Method == "netem" {
			// netem is a root qdisc on the interface: it drops whatever
			// leaves, and lab installs no tc filter to pick one port.
			bad(`loss_port %d: the netem method drops every packet leaving the interface; use loss_method = "nth" or "random" to limit loss to one port`, l.Port)
		}
		if l.Port < 0 || l.Port > 65535 {
			bad("loss_port %d: out of range 1..65535", l.Port)
		}
	}
	if err := CheckFirewall(s.Firewall); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// longName is the name `ethtool -k` prints for a spec's feature name, "" for
// an unknown feature.
func longName(name string) string {
	for _, f := range Features {
		if f.Name == name {
			return f.Long
		}
	}
	return ""
}
