package freebsd

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Observe reads back what is in effect on interface iface: MTU and the
// offloads in Offloads (`ifconfig -m`), the congestion control algorithm
// (system-wide: CCScope "namespace"; newreno on a kernel without
// mod_cc(4)), the sysctls s asks for, lab's loss rule, pf's status and
// rules when s asks for a firewall, the kernel (`uname -sr`) and the
// driver (the interface name's prefix). Failures to read something s asks for are errors; others
// become warnings.
//
// An offload is "on" or "off" as options= shows it; "off [fixed]" when
// capabilities= does not offer it at all (nothing can turn it on — a bhyve
// tap backend offers no offloads); "on [requested off]" / "off [requested
// on]" when s asked otherwise and the NIC offers it but it did not change
// (for vtnet, lro off because rxcsum is off says so).
func (f *FreeBSD) Observe(ctx context.Context, t guest.Transport, iface string, s guest.Settings) (guest.Observed, error) {
	if err := Validate(iface, s); err != nil {
		return guest.Observed{}, fmt.Errorf("%s: %w", t.Name(), err)
	}
	o := guest.Observed{Interface: iface, Driver: Driver(iface)}
	warn := func(err error) { o.Warnings = append(o.Warnings, err.Error()) }

	out, err := run(ctx, t, "ifconfig", "-m", iface)
	if err != nil {
		return o, err
	}
	ifc, err := ParseIfconfig(out)
	if err != nil {
		return o, fmt.Errorf("%s: ifconfig -m %s: %w", t.Name(), iface, err)
	}
	o.MTU = ifc.MTU
	o.Offloads = offloadStates(ifc, iface, s.Offloads)

	if o.CongestionControl, err = readCC(ctx, t); err != nil {
		return o, err
	}
	o.CCScope = "namespace"
	for _, k := range guest.SortedKeys(s.Sysctl) {
		v, err := run(ctx, t, "sysctl", "-n", k)
		if err != nil {
			return o, err
		}
		if o.Sysctl == nil {
			o.Sysctl = map[string]string{}
		}
		o.Sysctl[k] = strings.TrimSpace(v)
	}
	o.Loss = observeLoss(ctx, t, warn)
	if s.Firewall != "" {
		o.Firewall = observePF(ctx, t, warn)
	}

	if out, err = run(ctx, t, "uname", "-sr"); err != nil {
		warn(err)
	}
	o.Kernel = strings.TrimSpace(out)
	return o, nil
}

// Ifconfig is what Observe reads from `ifconfig -m IFACE`.
type Ifconfig struct {
	MTU          int
	Options      map[string]bool // flags in options=<…>
	Capabilities map[string]bool // flags in capabilities=<…>; nil when not printed
}

// ParseIfconfig reads the MTU from the flags line ("vtnet0: flags=…
// metric 0 mtu 1500") and the options= and capabilities= flag lists
// ("options=80028<VLAN_MTU,JUMBO_MTU,LINKSTATE>"); "nd6 options=" is not
// the interface's.
func ParseIfconfig(out string) (Ifconfig, error) {
	var ifc Ifconfig
	lines := strings.Split(out, "\n")
	first := strings.Fields(lines[0])
	for i := 0; i+1 < len(first); i++ {
		if first[i] == "mtu" {
			n, err := strconv.Atoi(first[i+1])
			if err != nil {
				return ifc, fmt.Errorf("mtu %q: %w", first[i+1], err)
			}
			if n <= 0 {
				return ifc, fmt.Errorf("mtu %q: not a positive number", first[i+1])
			}
			ifc.MTU = n
		}
	}
	if len(first) == 0 || !strings.HasSuffix(first[0], ":") || ifc.MTU == 0 {
		return ifc, fmt.Errorf("no interface line with an mtu in %q", truncate(lines[0], 80))
	}
	for _, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(line, "options="); ok {
			ifc.Options = flagList(v)
		} else if v, ok := strings.CutPrefix(line, "capabilities="); ok {
			ifc.Capabilities = flagList(v)
		}
	}
	return ifc, nil
}

// flagList reads "80028<VLAN_MTU,JUMBO_MTU,LINKSTATE>".
func flagList(s string) map[string]bool {
	m := map[string]bool{}
	_, list, ok := strings.Cut(s, "<")
	if !ok {
		return m
	}
	list, _, _ = strings.Cut(list, ">")
	for _, f := range strings.Split(list, ",") {
		if f != "" {
			m[f] = true
		}
	}
	return m
}

// offloadStates describes every offload in Offloads (see Observe).
func offloadStates(ifc Ifconfig, iface string, asked map[string]bool) map[string]string {
	m := map[string]string{}
	for _, o := range Offloads {
		on := ifc.Options[o.Cap]
		state := onOff(on)
		want, wasAsked := asked[o.Name]
		switch {
		case !on && ifc.Capabilities != nil && !ifc.Capabilities[o.Cap]:
			state += " [fixed]"
		case wasAsked && want != on:
			state += " [requested " + onOff(want) + vtnetHint(iface, o.Name, want, ifc) + "]"
		}
		m[o.Name] = state
	}
	return m
}

// vtnetHint says why vtnet did not turn lro on: the driver keeps LRO off
// while receive checksums are off ("Guest TSO (LRO) requires receive
// checksums", sys/dev/virtio/network/if_vtnet.c, vtnet_ioctl_ifcap).
// Every offload a vtnet offers changes at runtime there (the transmit
// ones at once, the receive ones through VIRTIO_NET_CTRL_GUEST_OFFLOADS
// or a reinit), so no loader tunable is needed for it.
func vtnetHint(iface, name string, want bool, ifc Ifconfig) string {
	if Driver(iface) != "vtnet" || name != "lro" || !want || ifc.Options["RXCSUM"] {
		return ""
	}
	return "; vtnet keeps lro off while rxcsum is off"
}

// Driver is the driver of a FreeBSD interface: its name without the unit
// number (vtnet0 → vtnet, vmx0 → vmx).
func Driver(iface string) string { return strings.TrimRight(iface, "0123456789") }

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
