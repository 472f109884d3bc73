package freebsd

import (
	"strconv"
	"strings"

	"github.com/lab-bench/lab/guest"
)

// Everything lab does differently on a FreeBSD guest outside the settings
// driver.
func init() {
	guest.Register(guest.Driver{
		Name: "freebsd", Kernel: "FreeBSD", BhyveLoad: true,
		New: func() guest.OS { return New() },
		NICs: guest.NICs{List: ListNICs, ByMAC: IfaceByMAC, Static: StaticAddress, Static6: StaticAddress6, Name: NICName,
			Hostname: Hostname, PathProbe: PathProbe},
		CPU:       guest.CPU{Times: ReadCPTimes, MHz: ReadClockRate},
		Processes: guest.Processes{Listen: ListenCmd, ListenUDP: ListenUDPCmd, Pin: func(list string) []string { return []string{"cpuset", "-l", list} }},
		Tools:     guest.Tools{Packaging: guest.PackagingPorts, InstallHint: InstallHint},
		Limits:    guest.Limits{RingHint: RingHint(""), SysctlName: CheckSysctlName},
		Firewall: guest.Firewall{Language: "pf", Check: CheckPF, Presets: PFPresetNames(),
			Hint: "On a FreeBSD guest, firewall is a pf preset or a pf.conf(5) body, loaded with pfctl -f."},
		Counters: Counters,
	})
}

// StaticAddress is the command that gives iface the address prefix (a
// CIDR) and brings it up: ifconfig(8)'s `ifconfig IF inet ADDR/LEN up`,
// which replaces the first address.
func StaticAddress(iface, prefix string) []guest.Cmd {
	return []guest.Cmd{{Argv: []string{"ifconfig", iface, "inet", prefix, "up"}}}
}

// StaticAddress6 are the commands that give iface the IPv6 address
// prefix ("ADDR/LEN") with ifconfig(8) (sbin/ifconfig/ifconfig.8):
// "-ifdisabled" clears ND6_IFF_IFDISABLED, which an interface carries
// when rc.conf does not enable IPv6 on it; "no_dad" ("Set a flag to
// disable Duplicate Address Detection") makes the address usable at once;
// then `ifconfig IF inet6 ADDR prefixlen LEN alias` adds the address
// ("alias: Establish an additional network address for this interface"):
// an addition only, so the link-local address and whatever else the
// interface has stay as they are.
func StaticAddress6(iface, prefix string) []guest.Cmd {
	addr, length, ok := strings.Cut(prefix, "/")
	if !ok {
		length = "64"
	}
	return []guest.Cmd{
		{Argv: []string{"ifconfig", iface, "inet6", "-ifdisabled"}},
		{Argv: []string{"ifconfig", iface, "inet6", "no_dad"}},
		{Argv: []string{"ifconfig", iface, "inet6", addr, "prefixlen", length, "alias"}},
		{Argv: []string{"ifconfig", iface, "up"}},
	}
}

// drivers are the FreeBSD drivers of the emulated NICs lab's back ends
// offer: vmx(4) for vmxnet3, vtnet(4) for virtio-net.
var drivers = map[string]string{"vmxnet3": "vmx", "virtio-net": "vtnet"}

// NICName is the name FreeBSD gives the first NIC of slot's model: the
// driver's name and unit 0 (vmx0, vtnet0); "" for a model it has no
// driver named here for.
func NICName(s guest.NICSlot) string {
	if d := drivers[s.Model]; d != "" {
		return d + "0"
	}
	return ""
}

// Hostname sets the hostname to the quoted name now (hostname(1)) and for
// later boots (sysrc(8) writes rc.conf's hostname).
func Hostname(q string) string {
	return "hostname " + q + " && sysrc -q hostname=" + q + " >/dev/null"
}

// ListenCmd prints the TCP sockets listening on port, after a header line.
// FreeBSD has no ss. sockstat(1) (usr.bin/sockstat/sockstat.c): -4 and -6
// keep IPv4 and IPv6 sockets (tcp46 too), -l alone keeps listening ones
// (gather_inet skips a socket with a foreign port unless -c), -P tcp the
// protocol and -p the port, local or foreign (check_ports). All of these
// are in sockstat since FreeBSD 7.0 (its sockstat(1) synopsis reads
// [-46clu] [-p ports] [-P protocols]). lab does not pass -q: it appeared
// only in FreeBSD 12 (display() of 11.x prints the header unconditionally),
// so FreeBSD 11.2 — the version of seed 002 — would refuse the whole
// command. Callers skip the header (bench.Listening).
func ListenCmd(port int) guest.Cmd {
	return guest.Cmd{Argv: []string{"sockstat", "-46l", "-P", "tcp", "-p", strconv.Itoa(port)}}
}

// ListenUDPCmd is ListenCmd for UDP: sockstat(1) takes -P udp, and -l
// keeps sockets without a foreign port (usr.bin/sockstat/sockstat.c
// gather_inet), which a UDP server's is.
func ListenUDPCmd(port int) guest.Cmd {
	return guest.Cmd{Argv: []string{"sockstat", "-46l", "-P", "udp", "-p", strconv.Itoa(port)}}
}

// InstallHint says how to install program with pkg(8): pkg is the ports
// package a benchmark tool names; the programs the driver itself runs
// (ifconfig, sysctl, ipfw, pfctl, cpuset) are in the base system.
func InstallHint(program, pkg string) string {
	if pkg != "" {
		return "pkg install " + pkg
	}
	return "part of the base system"
}
