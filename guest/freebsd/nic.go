package freebsd

import (
	"strings"

	"github.com/lab-bench/lab/guest"
)

// ListNICs is the command that prints every interface of a FreeBSD guest
// with its link-layer address: ifconfig -a (ifconfig(8); sbin/ifconfig).
// Linux's `ip -o link show` does not exist there.
var ListNICs = guest.Cmd{Argv: []string{"ifconfig", "-a"}}

// IfaceByMAC finds the interface whose Ethernet address is mac in
// `ifconfig -a` output, "" when none has it. ifconfig prints each
// interface as a header line starting at column 0 ("vtnet0: flags=…
// mtu 1500", sbin/ifconfig/ifconfig.c status()) followed by tab-indented
// lines, among them "\tether 58:9c:fc:0e:8c:fb" (sbin/ifconfig/af_link.c,
// link_status(): the address as ether_ntoa(3) spells it, lower case).
// mac is compared without regard to case.
func IfaceByMAC(out, mac string) string {
	cur := ""
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		if line[0] != '\t' && line[0] != ' ' {
			name, _, ok := strings.Cut(line, ":")
			if ok && !strings.ContainsAny(name, " \t") {
				cur = name
			} else {
				cur = ""
			}
			continue
		}
		f := strings.Fields(line)
		if cur != "" && len(f) >= 2 && f[0] == "ether" && strings.EqualFold(f[1], mac) {
			return cur
		}
	}
	return ""
}
