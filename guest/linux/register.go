package linux

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Everything lab does differently on a Linux guest outside the settings
// driver; the default OS, for templates that name none.
func init() {
	guest.Register(guest.Driver{
		Name: "linux", Kernel: "Linux", Default: true,
		New: func() guest.OS { return New() },
		NICs: guest.NICs{List: ListNICs, ByMAC: IfaceByMAC, Static: StaticAddress, Static6: StaticAddress6, Name: NICName,
			Forward: Forward, Route: Route,
			Check:    func(iface string) guest.Cmd { return guest.Cmd{Argv: []string{"ip", "link", "show", "dev", iface}} },
			Hostname: Hostname, PathProbe: PathProbe},
		CPU:       guest.CPU{Times: ReadCPUStat, MHz: ReadCPUMHz},
		Processes: guest.Processes{Listen: ListenCmd, ListenUDP: ListenUDPCmd, Pin: func(list string) []string { return []string{"taskset", "-c", list} }},
		Tools:     guest.Tools{Packaging: guest.PackagingDeb, Always: []string{"ethtool"}, For: SettingsTools, Pin: "taskset", Probe: "ping", InstallHint: InstallHint},
		Limits:    guest.Limits{SoftwareOffloads: softwareOffloads},
		Firewall: guest.Firewall{Language: "nftables", Table: FirewallTable,
			Check: CheckFirewall, CheckOnHost: CheckWithHostNft},
		Counters: Counters,
	})
}

// softwareOffloads are the toggles Linux implements in its own stack
// whatever the NIC offers: GRO runs in the receive path (every device gets
// NETIF_F_GRO among NETIF_F_SOFT_FEATURES at registration), so it takes
// effect on a NIC offered no offloads too.
var softwareOffloads = []string{"gro"}

// StaticAddress are the commands that give iface the address prefix (a
// CIDR) as its only IPv4 address and bring it up: iproute2's `ip addr
// flush` / `ip addr add` / `ip link set up`.
func StaticAddress(iface, prefix string) []guest.Cmd {
	return []guest.Cmd{
		{Argv: []string{"ip", "-4", "addr", "flush", "dev", iface}},
		{Argv: []string{"ip", "addr", "add", prefix, "dev", iface}},
		{Argv: []string{"ip", "link", "set", "dev", iface, "up"}},
	}
}

// StaticAddress6 are the commands that give iface the IPv6 address
// prefix (a CIDR) as its only global one: IPv6 enabled on the interface
// (a guest may boot with disable_ipv6 set), iproute2's `ip -6 addr flush
// dev IF scope global` (the link-local address stays) and `ip -6 addr add
// PREFIX dev IF nodad` (ip-address(8): "nodad — do not perform Duplicate
// Address Detection", so the address is not tentative when the first run
// starts), and the link up.
func StaticAddress6(iface, prefix string) []guest.Cmd {
	return []guest.Cmd{
		{Argv: []string{"sysctl", "-qw", "net.ipv6.conf." + iface + ".disable_ipv6=0"}},
		{Argv: []string{"ip", "-6", "addr", "flush", "dev", iface, "scope", "global"}},
		{Argv: []string{"ip", "-6", "addr", "add", prefix, "dev", iface, "nodad"}},
		{Argv: []string{"ip", "link", "set", "dev", iface, "up"}},
	}
}

// Forward are the commands that make a Linux guest a router: sysctl(8)
// -w net.ipv4.ip_forward=1 (ip-sysctl.rst: "ip_forward - BOOLEAN: 0 -
// disabled (default), not 0 - enabled; Forward Packets between
// interfaces") and, with ipv6, net.ipv6.conf.all.forwarding=1 ("conf/all/
// forwarding - BOOLEAN: Enable global IPv6 forwarding between all
// interfaces"). -q: sysctl prints nothing on success.
func Forward(ipv6 bool) []guest.Cmd {
	cmds := []guest.Cmd{{Argv: []string{"sysctl", "-qw", "net.ipv4.ip_forward=1"}}}
	if ipv6 {
		cmds = append(cmds, guest.Cmd{Argv: []string{"sysctl", "-qw", "net.ipv6.conf.all.forwarding=1"}})
	}
	return cmds
}

// Route is the command that sends traffic to prefix via gw on iface:
// iproute2's `ip route replace PREFIX via GW dev IF` (ip-route(8):
// "replace — change or add new one"), so a second create of the same
// guest finds nothing to clash with; `ip -6 route replace` for an IPv6
// prefix.
func Route(iface, prefix, gw string) []guest.Cmd {
	argv := []string{"ip", "route", "replace", prefix, "via", gw, "dev", iface}
	if strings.Contains(prefix, ":") {
		argv = append([]string{"ip", "-6"}, argv[1:]...)
	}
	return []guest.Cmd{{Argv: argv}}
}

// NICName is systemd's predictable name for a PCI NIC (udev's
// net_id builtin): ens<N> when the firmware reports slot N (vSphere's
// first vmxnet3, ens192), enp<bus>s<slot> otherwise (bhyve's slot 5,
// enp0s5, as in seed 003's Ubuntu guest).
func NICName(s guest.NICSlot) string {
	if s.Physical > 0 {
		return "ens" + strconv.Itoa(s.Physical)
	}
	return fmt.Sprintf("enp%ds%d", s.Bus, s.Slot)
}

// Hostname sets the hostname to the quoted name now and for later boots
// without systemd (hostnamectl needs it): it writes /etc/hostname and runs
// hostname(1).
func Hostname(q string) string {
	return "printf '%s\\n' " + q + " >/etc/hostname && hostname " + q
}

// ListenCmd prints one line per TCP socket listening on port: ss(8) -H
// (no header) -l -t -n with a source-port filter.
func ListenCmd(port int) guest.Cmd {
	return guest.Cmd{Argv: []string{"ss", "-Hltn", "sport", "=", ":" + strconv.Itoa(port)}}
}

// ListenUDPCmd is ListenCmd for UDP: ss(8) takes -u for -t, and an
// unconnected UDP socket is in its listening set (state UNCONN).
func ListenUDPCmd(port int) guest.Cmd {
	return guest.Cmd{Argv: []string{"ss", "-Hlun", "sport", "=", ":" + strconv.Itoa(port)}}
}

// SettingsTools are the programs applying s needs beyond ethtool: tc for
// loss, nft for a firewall.
func SettingsTools(s guest.Settings) []string {
	var out []string
	if s.Firewall != "" {
		out = append(out, "nft")
	}
	if s.Loss != nil {
		out = append(out, "tc")
	}
	return out
}

// packages maps a program the driver runs to the Debian/Ubuntu package
// that brings it; benchmark tools name their own (bench.Tool.Programs).
var packages = map[string]string{"ethtool": "ethtool",
	"taskset": "util-linux", "tc": "iproute2", "nft": "nftables", "ip": "iproute2", "ping": "iputils-ping"}

// InstallHint says how to install program on Debian or Ubuntu: pkg when a
// benchmark tool names it, else the package of a program the driver runs.
func InstallHint(program, pkg string) string {
	p := pkg
	if p == "" {
		p = packages[program]
	}
	if p == "" {
		p = program
	}
	return "Debian/Ubuntu: apt-get install " + p
}
