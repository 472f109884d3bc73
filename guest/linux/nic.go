package linux

import (
	"strings"

	"github.com/lab-bench/lab/guest"
)

// ListNICs is the command that prints every interface of a Linux guest
// with its link-layer address, one line each: `ip -o link show`
// (iproute2, ip/ipaddress.c print_linkinfo with -oneline).
var ListNICs = guest.Cmd{Argv: []string{"ip", "-o", "link", "show"}}

// IfaceByMAC finds the interface whose Ethernet address is mac in
// `ip -o link show` output ("2: ens192: <…> mtu 1500 … link/ether
// 00:50:56:…  brd …"; a veth prints "name@peer:"), "" when none has it.
// mac is compared without regard to case.
func IfaceByMAC(out, mac string) string {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		for i := 2; i+1 < len(f); i++ {
			if f[i] == "link/ether" && strings.EqualFold(f[i+1], mac) {
				name := strings.TrimSuffix(f[1], ":")
				if at := strings.IndexByte(name, '@'); at >= 0 {
					name = name[:at]
				}
				return name
			}
		}
	}
	return ""
}
