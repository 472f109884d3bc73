package bhyve

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/guesttest"
	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
)

// fbsdGuests answer for FreeBSD guests behind SSH: `ifconfig -a` lists
// the VM's NICs in ifconfig(8)'s layout (a header line at column 0, then
// "\tether MAC": sbin/ifconfig/ifconfig.c status(), af_link.c
// link_status()), vtnet0 the management NIC (MAC) and vtnet1, vtnet2 the
// benchmark NICs (benchMAC); every other command succeeds with no output
// and is recorded.
type fbsdGuests map[string]*guesttest.Recorder // by machine address

func (g fbsdGuests) add(address, vm string, nics int) {
	var out strings.Builder
	for i := 0; i < nics; i++ {
		mac := MAC(vm)
		if i > 0 {
			mac = benchMAC(vm, i)
		}
		fmt.Fprintf(&out, "vtnet%d: flags=1008843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST,LOWER_UP> metric 0 mtu 1500\n\tether %s\n", i, mac)
	}
	g[address] = &guesttest.Recorder{Guest: address, Replies: map[string]guesttest.Reply{"ifconfig -a": {Out: out.String()}}}
}

// TestRoutedManagementSwitch makes a routed pair (client → router →
// server, FreeBSD guests) with management_switch in each mode: two
// isolated lab switches (vm-bhyve `vm switch create`, raw `ifconfig
// bridge create`), every VM's first NIC on the management switch, the
// server's benchmark NIC on the first link, the client's on the second
// and the router's on both; the benchmark NICs addressed over SSH by the
// own-link plan, the router forwarding, the ends routed via it. Teardown
// leaves nothing of lab's on the host. The host's and the guests'
// command logs are golden.
func TestRoutedManagementSwitch(t *testing.T) {
	for _, tc := range []struct{ name, extra, mgmtBridge, source string }{
		{"vm-bhyve", `management_switch = "public"`, "vm-public", "fbsd14-tmpl"},
		{"raw", "backend = \"bhyve\"\nmanagement_switch = \"vm-public\"", "vm-public", "fbsd14-zvol"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, h, srv := newHost(t, tc.extra)
			if c := p.Capabilities(); !c.RoutedPairs {
				t.Fatalf("capabilities %+v: no routed pairs", c)
			}
			guests := fbsdGuests{}
			p.dial = func(_ context.Context, name string, _ labssh.Config) (guest.Transport, error) {
				if g := guests[name]; g != nil {
					return g, nil
				}
				return nil, fmt.Errorf("no guest %s", name)
			}
			ctx := context.Background()
			var links []machine.Instance
			for i, addr := range []string{"pair.fw.link", "pair.fw.client_link"} {
				l, err := p.Link(ctx, providers.LinkSpec{Address: addr, LabID: "t", Workspace: "w1", Pair: "fw", Name: "t-fw" + strings.Repeat("-c", i), Index: 4 + i})
				if err != nil {
					t.Fatal(err)
				}
				links = append(links, l)
			}
			var ins []machine.Instance
			log := map[string]string{}
			for _, m := range []machine.Machine{
				routedMachine("server", links[0], links[1], tc.source),
				routedMachine("client", links[1], links[0], tc.source),
				routedMachine("router", links[0], links[1], tc.source),
			} {
				guests.add(m.Address, vmName(m.Name), map[bool]int{true: 3, false: 2}[m.Role == "router"])
				in, err := p.Create(ctx, m)
				if err != nil {
					t.Fatal(err)
				}
				ins = append(ins, in)
				ep := machine.EndpointOf(in)
				log[m.Role] = fmt.Sprintf("endpoint iface %s addr %s iface2 %q addr2 %q ssh %s; NICs on %s\n%s", ep.Iface, ep.Addr, ep.Iface2, in.Attrs["addr2"], ep.SSHHost,
					strings.Join(h.bridgesOf(vmName(m.Name), m.Owner().Tag(m.Address)), " "), guests[m.Address].Log.String())
			}
			// Which bridge is which: the management switch's, and the two
			// links' own.
			names := strings.NewReplacer(tc.mgmtBridge, "MGMT", bridgeOf0(links[0]), "LINK", bridgeOf0(links[1]), "CLIENT_LINK")
			var out strings.Builder
			for _, role := range []string{"server", "client", "router"} {
				fmt.Fprintf(&out, "== %s: %s\n", role, names.Replace(log[role]))
			}
			golden.Check(t, filepath.Join("testdata", "routed-"+tc.name+"-guests.golden"), out.String())
			for _, in := range append(ins, links...) {
				if err := p.Delete(ctx, in); err != nil {
					t.Fatal(err)
				}
			}
			if left := h.left(); len(left) != 0 {
				t.Errorf("left on the host: %v", left)
			}
			golden.Check(t, filepath.Join("testdata", "routed-"+tc.name+".golden"), foldPolls(srv.Commands()))
		})
	}
}

// routedMachine is a routed pair's machine on link (and, for the router
// and the ends, link2: the engine gives the ends the peer's link).
func routedMachine(role string, link, link2 machine.Instance, source string) machine.Machine {
	m := testMachine(role, "freebsd", link)
	m.Address, m.Pair, m.Name, m.Workspace = "pair.fw."+role, "fw", "t-fw-"+role[:1], "w1"
	m.Template.Source, m.Link2, m.Routed = source, link2, role != "router"
	return m
}

// bridgeOf0 is the bridge a link's switch is (vm-bhyve names a switch's
// bridge vm-SWITCH; raw mode records its bridge).
func bridgeOf0(l machine.Instance) string {
	if br := l.Attrs["bridge"]; br != "" {
		return br
	}
	return "vm-" + l.Attrs["switch"]
}

// bridgesOf lists, in NIC order, the bridges of a VM's taps: vm-bhyve's
// (described vmnet/VM/N/SWITCH) or raw mode's (described with the
// machine's tag, in the order they were made).
func (h *fakeHost) bridgesOf(vm, tag string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.vmTaps()
	type tap struct {
		key    string
		bridge string
	}
	var taps []tap
	for name, in := range h.ifaces {
		if len(in.members) == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(in.desc, "vmnet/"+vm+"/"):
			taps = append(taps, tap{in.desc, in.members[0]})
		case in.desc == tag:
			taps = append(taps, tap{fmt.Sprintf("%08s", strings.TrimPrefix(name, "tap")), in.members[0]})
		}
	}
	sort.Slice(taps, func(i, j int) bool { return taps[i].key < taps[j].key })
	var out []string
	for _, t := range taps {
		out = append(out, t.bridge)
	}
	return out
}

// TestRoutedNeedsManagementSwitch: without management_switch a routed
// pair is refused, naming the setting; management_switch beside switch
// or uplink is refused at configure.
func TestRoutedNeedsManagementSwitch(t *testing.T) {
	p, _, _ := newHost(t, "")
	if c := p.Capabilities(); c.RoutedPairs || !strings.Contains(c.RoutedWhy, "management_switch") {
		t.Errorf("capabilities without management_switch: %+v", c)
	}
	for _, extra := range []string{"management_switch = \"public\"\nswitch = \"public\"", "management_switch = \"public\"\nuplink = \"igb1\""} {
		_, diags := configure(t, "host = \"192.0.2.5\"\n"+extra)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "Conflicting arguments") {
			t.Errorf("%q: diagnostics %v", extra, diags)
		}
	}
}
