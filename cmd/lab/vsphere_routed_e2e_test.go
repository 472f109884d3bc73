package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// routedGuests are three namespaces with a real sshd each on a bridge in
// this namespace (their management NICs, 198.18.N.11-.13: server,
// client, router, as extra_config's {role_index} numbers them), and two
// veth pairs for the benchmark links: server ↔ router and router ↔
// client, down and without addresses until lab configures them.
type routedGuests struct {
	m    [3]borrowedMachine // server, client, router
	mgmt string             // the management /24's first three octets
	// The benchmark ends: server's and router's on the server's link,
	// router's and client's on the client's.
	sLink, rLink, rClient, cClient string
}

func newRoutedGuests(t *testing.T) *routedGuests {
	t.Helper()
	needNamespaces(t)
	sshtest.RequireSSHD(t)
	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	g := &routedGuests{mgmt: fmt.Sprintf("198.18.%d", 200+int(b[0])%50)}
	br := "labtbr" + id
	t.Cleanup(func() { exec.Command("ip", "link", "del", br).Run() })
	sh(t, "ip", "link", "add", br, "type", "bridge")
	sh(t, "ip", "addr", "add", g.mgmt+".1/24", "dev", br)
	sh(t, "ip", "link", "set", br, "up")
	for i, role := range []string{"s", "c", "r"} {
		m := &g.m[i]
		m.ns, m.addr = "labt-"+id+"-v"+role, fmt.Sprintf("%s.%d", g.mgmt, 11+i)
		ns, host, peer := m.ns, "lt"+id+"m"+role, "lt"+id+"n"+role
		t.Cleanup(func() { netnstest.Remove(t, ns) })
		sh(t, "ip", "netns", "add", ns)
		sh(t, "ip", "link", "add", host, "type", "veth", "peer", "name", peer)
		sh(t, "ip", "link", "set", host, "master", br, "up")
		sh(t, "ip", "link", "set", peer, "netns", ns)
		sh(t, "ip", "-n", ns, "link", "set", peer, "name", "eth1")
		sh(t, "ip", "-n", ns, "addr", "add", m.addr+"/24", "dev", "eth1")
		sh(t, "ip", "-n", ns, "link", "set", "eth1", "up")
		sh(t, "ip", "-n", ns, "link", "set", "lo", "up")
		m.reinstall(t)
	}
	g.sLink, g.rLink, g.rClient, g.cClient = "lvr"+id+"s", "lvr"+id+"a", "lvr"+id+"b", "lvr"+id+"c"
	for _, v := range []struct{ a, an, b, bn string }{{g.sLink, g.m[0].ns, g.rLink, g.m[2].ns}, {g.rClient, g.m[2].ns, g.cClient, g.m[1].ns}} {
		sh(t, "ip", "link", "add", v.a, "type", "veth", "peer", "name", v.b)
		sh(t, "ip", "link", "set", v.a, "netns", v.an)
		sh(t, "ip", "link", "set", v.b, "netns", v.bn)
	}
	return g
}

// linkPortgroups reads the own port groups of the pair's two links from
// lab's state file (links are made and recorded before any machine).
func linkPortgroups(dir string) (link, clientLink string) {
	s, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
	if err != nil || s == nil {
		return "", ""
	}
	for _, r := range s.Resources {
		switch {
		case strings.HasSuffix(r.Address, ".client_link"):
			clientLink = r.Attrs["portgroup"]
		case strings.HasSuffix(r.Address, ".link"):
			link = r.Attrs["portgroup"]
		}
	}
	return link, clientLink
}

// TestVSphereRoutedOverSSH runs a routed pair (client → router → server)
// in own-switch mode through the real binary: the simulator's three
// clones report the management addresses of three namespaces with a real
// sshd; the benchmark NICs are two veth pairs (server ↔ router, router ↔
// client) given, at power-on, the MACs the simulator gave each VM's NIC
// on the link's own port group. lab must find each interface by its MAC,
// address them (the router as client on the server's link and as server
// on the client's), turn forwarding on in the router, route each end to
// the peer's /24 through it, install the router's firewall, and run iperf3
// from the client to the server across the router; teardown leaves every
// host's network as it was.
func TestVSphereRoutedOverSSH(t *testing.T) {
	g := newRoutedGuests(t)
	sim := vspheretest.Start(t)
	dir := t.TempDir()
	var mu sync.Mutex
	seen := map[string]int{} // management address → benchmark NICs given a MAC
	sim.OnPowerOn(func(on vspheretest.PoweredOn) {
		link, clientLink := linkPortgroups(dir)
		ends := map[string]map[string][2]string{ // address → port group → namespace, interface
			g.m[0].addr: {link: {g.m[0].ns, g.sLink}},
			g.m[1].addr: {clientLink: {g.m[1].ns, g.cClient}},
			g.m[2].addr: {link: {g.m[2].ns, g.rLink}, clientLink: {g.m[2].ns, g.rClient}},
		}[on.GuestIP]
		for pg, mac := range on.MACs {
			end, ok := ends[pg]
			if !ok || link == "" || clientLink == "" {
				continue
			}
			if out, err := exec.Command("ip", "-n", end[0], "link", "set", "dev", end[1], "address", mac).CombinedOutput(); err != nil {
				t.Errorf("set the MAC of %s: %v: %s", end[1], err, out)
			}
			mu.Lock()
			seen[on.GuestIP]++
			mu.Unlock()
		}
	})
	before := sim.NetworkInfo(t)
	tmpl := func(name, key string) string {
		return fmt.Sprintf("template %q {\n  source = \"debian-12-tmpl\"\n  os     = \"linux\"\n  ssh {\n    user             = \"root\"\n    private_key_file = %q\n  }\n}\n", name, key)
	}
	src := fmt.Sprintf(`
lab "e2e-vsphere-routed" {}
provider "vsphere" "sim" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  host         = "DC0_C0_H0" # pinned: own-switch is the default
  network      = "VM Network"
  ip_timeout   = "20s"
  extra_config = { "SET.guest.ipAddress" = "%s.1{role_index}" }
}
%s%s%s
pair "fw" {
  server = template.deb-s
  client = template.deb-c
  via    = template.deb-r
  vcpu   = 1
  nic { model = "vmxnet3" }
}
experiment "fw" {
  pairs  = [pair.fw]
  matrix = { fw = ["off", "stateful"] }
  router {
    firewall = {
      off      = ""
      stateful = "chain forward {\ntype filter hook forward priority 0; policy drop;\nct state established,related accept\nct state new ip protocol tcp accept\n}"
    }[matrix.fw]
  }
  iperf3 { duration = "1s" }
}
`, g.mgmt, tmpl("deb-s", g.m[0].keyFile), tmpl("deb-c", g.m[1].keyFile), tmpl("deb-r", g.m[2].keyFile))
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := labEnv(t, sim, dir, "apply", "-auto-approve", "-keep")
	t.Cleanup(func() { labEnv(t, sim, dir, "destroy", "-auto-approve") })
	if err != nil {
		t.Fatalf("apply: %v (benchmark MACs set at power-on: %v)\n%s%s", err, seen, out, errOut)
	}
	if want := map[string]int{g.m[0].addr: 1, g.m[1].addr: 1, g.m[2].addr: 2}; !reflect.DeepEqual(seen, want) {
		t.Errorf("benchmark NICs given a MAC at power-on: %v, want %v", seen, want)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	runID, _ := rs.Latest()
	_, recs, err := rs.Load(runID)
	if err != nil || len(recs) != 2 {
		t.Fatalf("results: %v, %d records", err, len(recs))
	}
	for _, r := range recs {
		if r.Error != "" || r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: %q, %.0f b/s", r.CellKey, r.Error, r.Metrics.ThroughputBps)
		}
		// iperf3's own account: the client's address on the client's
		// link to the server's on the server's, through the router.
		for _, c := range iperf3Connections(t, r) {
			if c.Local != "198.18.1.2" || c.Remote != "198.18.0.1" {
				t.Errorf("%s: connection %s → %s, not across the router (198.18.1.2 → 198.18.0.1)", r.CellKey, c.Local, c.Remote)
			}
		}
		if r.Observed.Router == nil || (r.CellKey == "fw=stateful") != strings.Contains(r.Observed.Router.Firewall, "ct state established,related accept") {
			t.Errorf("%s: router observed %+v", r.CellKey, r.Observed.Router)
		}
	}
	// What lab set in each guest, read back from the namespaces.
	for _, c := range []struct{ ns, argv, want string }{
		{g.m[0].ns, "ip -o -4 addr show dev " + g.sLink, "198.18.0.1/24"},
		{g.m[2].ns, "ip -o -4 addr show dev " + g.rLink, "198.18.0.2/24"},
		{g.m[2].ns, "ip -o -4 addr show dev " + g.rClient, "198.18.1.1/24"},
		{g.m[1].ns, "ip -o -4 addr show dev " + g.cClient, "198.18.1.2/24"},
		{g.m[2].ns, "sysctl -n net.ipv4.ip_forward", "1"},
		{g.m[0].ns, "ip -4 route show 198.18.1.0/24", "198.18.1.0/24 via 198.18.0.2 dev " + g.sLink},
		{g.m[1].ns, "ip -4 route show 198.18.0.0/24", "198.18.0.0/24 via 198.18.1.1 dev " + g.cClient},
	} {
		if got := sh(t, append([]string{"ip", "netns", "exec", c.ns}, strings.Fields(c.argv)...)...); !strings.Contains(got, c.want) {
			t.Errorf("%s: %s = %q, want %q", c.ns, c.argv, got, c.want)
		}
	}
	if out, errOut, err := labEnv(t, sim, dir, "destroy", "-auto-approve"); err != nil {
		t.Fatalf("destroy: %v\n%s%s", err, out, errOut)
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("host networks after teardown differ from before:\nbefore %+v\nafter  %+v", before["DC0_C0_H0"].Vswitch, after["DC0_C0_H0"].Vswitch)
	}
	if vms := sim.VMs(); len(vms) != 2 { // the two templates
		t.Errorf("VMs left after destroy: %v", vms)
	}
}
