package providers_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/lab-bench/lab/guest/linux"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// TestOwnLinkSetup: the own-link address plan on a Linux guest for a
// direct pair's server, a routed pair's ends and router (link indexes
// 4 and 5, the plan's two per group; 300 crosses into 198.19), and the
// refusals: a NIC the guest does not have, an index outside the range.
func TestOwnLinkSetup(t *testing.T) {
	links := "2: enp0s5: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\\    link/ether 58:9c:fc:00:00:01 brd ff:ff:ff:ff:ff:ff\n" +
		"3: enp0s6: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\\    link/ether 58:9c:fc:00:00:02 brd ff:ff:ff:ff:ff:ff\n" +
		"4: enp0s7: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\\    link/ether 58:9c:fc:00:00:03 brd ff:ff:ff:ff:ff:ff\n"
	link := func(i string) machine.Instance {
		return machine.Instance{Address: "l" + i, Attrs: map[string]string{"index": i}}
	}
	tmpl := machine.Template{OS: "linux"}
	var out strings.Builder
	for _, tc := range []struct {
		name string
		m    machine.Machine
		mac2 string
	}{
		{"direct server", machine.Machine{Role: "server", Template: tmpl, Link: link("300")}, ""},
		{"routed server", machine.Machine{Role: "server", Routed: true, Template: tmpl, Link: link("4"), Link2: link("5")}, ""},
		{"routed client", machine.Machine{Role: "client", Routed: true, Template: tmpl, Link: link("5"), Link2: link("4")}, ""},
		{"router", machine.Machine{Role: "router", Template: tmpl, Link: link("4"), Link2: link("5")}, "58:9c:fc:00:00:03"},
		{"router without its second NIC", machine.Machine{Role: "router", Template: tmpl, Link: link("4"), Link2: link("5")}, "58:9c:fc:00:00:09"},
		{"index out of range", machine.Machine{Role: "client", Template: tmpl, Link: link("512")}, ""},
	} {
		in := &machine.Instance{Attrs: map[string]string{}, Endpoint: &machine.Endpoint{}}
		cmds, err := providers.OwnLinkSetup(tc.m, in, links, "58:9c:fc:00:00:02", tc.mac2)
		fmt.Fprintf(&out, "== %s\n", tc.name)
		for _, c := range cmds {
			fmt.Fprintf(&out, "$ %s\n", c)
		}
		fmt.Fprintf(&out, "=> iface %q addr %q iface2 %q addr2 %q, err %v\n", in.Endpoint.Iface, in.Endpoint.Addr, in.Endpoint.Iface2, in.Attrs["addr2"], err)
	}
	golden.Check(t, filepath.Join("testdata", "own-link-setup.golden"), out.String())
}
