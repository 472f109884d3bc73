package vsphere

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/golden"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// routedLab is a routed pair (client → router → server) in own-switch
// mode, the default with a pinned host.
const routedLab = `
lab "rt" {}
provider "vsphere" "sim" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  host         = "DC0_C0_H0"
  network      = "VM Network"
  ip_timeout   = "20s"
  extra_config = { "SET.guest.ipAddress" = "198.51.100.{role_index}" }
}
template "freebsd" {
  source = "freebsd-14.2-tmpl"
  os     = "freebsd"
  ssh { user = "root" }
}
pair "fw" {
  template = template.freebsd
  via      = template.freebsd
  vcpu     = 1
}
experiment "e" {
  pairs = [pair.fw]
  iperf3 { duration = "1s" }
}
`

// nicGuests are FreeBSD guests behind SSH, one per simulated VM: each
// answers `ifconfig -a` with its own NICs in ifconfig(8)'s layout (a
// header line at column 0, then "\tether MAC", as freebsd.IfaceByMAC
// documents; sbin/ifconfig/ifconfig.c status(), af_link.c link_status()),
// the management NIC first and the port groups' NICs after it in the
// port groups' name order, and records the addressing, routing and
// forwarding commands it gets (every command but ifconfig -a succeeds
// with no output).
type nicGuests struct {
	mu   sync.Mutex
	nics map[string]string   // role → ifconfig -a
	log  map[string][]string // role → commands
	pgs  map[string][]string // role → port groups of its NICs
}

// powerOn records a VM's NICs as the simulator powers it on.
func (g *nicGuests) powerOn(on vspheretest.PoweredOn) {
	role := map[byte]string{'s': "server", 'c': "client", 'r': "router"}[on.Name[len(on.Name)-1]]
	pgs := make([]string, 0, len(on.MACs))
	for pg := range on.MACs {
		pgs = append(pgs, pg)
	}
	sort.Slice(pgs, func(i, j int) bool {
		if mi, mj := pgs[i] == "VM Network", pgs[j] == "VM Network"; mi != mj {
			return mi
		}
		return pgs[i] < pgs[j]
	})
	var out strings.Builder
	for i, pg := range pgs {
		fmt.Fprintf(&out, "vmx%d: flags=8843<UP,BROADCAST,RUNNING,SIMPLEX,MULTICAST> metric 0 mtu 1500\n\tether %s\n", i, on.MACs[pg])
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nics[role], g.pgs[role] = out.String(), pgs
}

type nicGuest struct {
	g    *nicGuests
	role string
}

func (n nicGuest) Run(_ context.Context, c guest.Cmd) (guest.Result, error) {
	n.g.mu.Lock()
	defer n.g.mu.Unlock()
	if c.String() == "ifconfig -a" {
		return guest.Result{Stdout: []byte(n.g.nics[n.role])}, nil
	}
	if s := c.String(); strings.HasPrefix(s, "ifconfig ") || strings.Contains(s, "route ") || strings.Contains(s, "forwarding") {
		n.g.log[n.role] = append(n.g.log[n.role], s)
	}
	return guest.Result{}, nil
}
func (n nicGuest) Upload(context.Context, string, io.Reader) error { return nil }
func (n nicGuest) Name() string                                    { return n.role }
func (n nicGuest) Close() error                                    { return nil }

// TestRoutedOwnSwitch provisions a routed pair through the engine on the
// simulator: two own switches and port groups, the server on the first,
// the client on the second and the router on both (besides each VM's
// management NIC on VM Network); the router's NICs addressed as the
// client on the server's link and the server on the client's, forwarding
// on; each end routed to the peer's /24 via the router. Teardown leaves
// every host's network exactly as it was and no VM behind.
func TestRoutedOwnSwitch(t *testing.T) {
	sim := vspheretest.Start(t)
	before := sim.NetworkInfo(t)
	g := &nicGuests{nics: map[string]string{}, log: map[string][]string{}, pgs: map[string][]string{}}
	sim.OnPowerOn(g.powerOn)
	lab, p := loadLab(t, routedLab)
	e, prov, _ := newEngine(t, sim, lab)
	prov.dial = func(_ context.Context, name string, _ ssh.Config) (guest.Transport, error) {
		return nicGuest{g: g, role: name[strings.LastIndex(name, ".")+1:]}, nil
	}
	e.Keep = true
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		t.Fatal(err)
	}
	// The NICs' port groups: the server's and the client's are the two
	// links' own, the router has both.
	links := map[string]string{}
	for _, r := range e.State.Resources {
		if r.Kind == "link" {
			links[r.Address[strings.LastIndex(r.Address, ".")+1:]] = r.Attrs["portgroup"]
		}
		if ep := machine.EndpointOf(r.Instance); r.Kind == "machine" && strings.HasSuffix(r.Address, ".router") &&
			(ep.Iface != "vmx1" || ep.Iface2 != "vmx2" || ep.Addr != "198.18.0.2" || r.Attrs["addr2"] != "198.18.1.1") {
			t.Errorf("router's endpoint %+v, addr2 %q: want vmx1 198.18.0.2 and vmx2 198.18.1.1", ep, r.Attrs["addr2"])
		}
	}
	want := map[string][]string{
		"server": {"VM Network", links["link"]},
		"client": {"VM Network", links["client_link"]},
		"router": {"VM Network", links["link"], links["client_link"]},
	}
	for role, pgs := range want {
		sort.Strings(pgs[1:])
		if !reflect.DeepEqual(g.pgs[role], pgs) {
			t.Errorf("%s's NICs are on %v, want %v", role, g.pgs[role], pgs)
		}
	}
	if links["link"] == "" || links["client_link"] == "" || links["link"] == links["client_link"] {
		t.Errorf("links' port groups %v: want two", links)
	}
	var out strings.Builder
	for _, role := range []string{"server", "client", "router"} {
		fmt.Fprintf(&out, "== %s\n%s\n", role, strings.Join(g.log[role], "\n"))
	}
	golden.Check(t, filepath.Join("testdata", "routed-own-switch.golden"), out.String())
	if err := e.Destroy(context.Background(), machine.Owner{Lab: "rt", Workspace: testWS}, false); err != nil {
		t.Fatal(err)
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("networks after destroy differ from before:\nbefore %+v\nafter  %+v", before[pinned], after[pinned])
	}
	if left := labVMs(sim, "rt"); len(left) != 0 || len(e.State.Resources) != 0 {
		t.Errorf("left: VMs %v, state %v", left, e.State.Resources)
	}
}

// TestRoutedSharedSwitchRefused: shared-switch mode has one port group
// for every NIC, so the plan refuses a routed pair, saying to use
// own-switch mode.
func TestRoutedSharedSwitchRefused(t *testing.T) {
	src := strings.Replace(routedLab, `  host         = "DC0_C0_H0"`+"\n", "", 1)
	lab, pl := loadLab(t, src)
	p := New()
	p.Getenv = vspheretest.Start(t).Getenv
	if d := p.Configure(context.Background(), lab.Providers["vsphere.sim"].Body); d.HasErrors() {
		t.Fatal(d)
	}
	diags := plan.CheckCapabilities(pl, lab, func(string) (providers.Capabilities, bool) { return p.Capabilities(), true })
	if len(diags) != 1 || diags[0].Summary != "Routed pairs not supported" || !strings.Contains(diags[0].Detail, `link_mode = "own-switch"`) {
		t.Errorf("diagnostics %v", diags)
	}
}
