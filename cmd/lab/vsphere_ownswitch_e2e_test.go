package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/vmware/govmomi/object"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// TestVSphereOwnSwitchOverSSH runs a pair in own-switch mode through the
// real binary: the simulator's clones report the addresses of two
// namespaces with a real sshd (their management NICs); each namespace
// also has a second interface, one end of a veth pair joining the two (the
// benchmark NICs on the pair's own vSwitch), whose MAC the test sets to
// the one the simulator gave the VM's benchmark NIC when the VM powers on.
// lab must find that interface by its MAC, give it its static address
// over SSH and run iperf3 across it; teardown leaves every host's network
// as it was.
func TestVSphereOwnSwitchOverSSH(t *testing.T) {
	bm := newBareMetalAt(t, 11)
	sim := vspheretest.Start(t)
	mgmt := bm.server.addr[:strings.LastIndex(bm.server.addr, ".")]
	// The benchmark link: a veth pair between the guests, down and
	// without addresses until lab configures it (names unlike eth*, so no
	// guess would find them).
	id := bm.server.ns[len("labt-") : len("labt-")+6]
	ends := map[string]string{bm.server.addr: "lvb" + id + "s", bm.client.addr: "lvb" + id + "c"}
	ns := map[string]string{bm.server.addr: bm.server.ns, bm.client.addr: bm.client.ns}
	sh(t, "ip", "link", "add", ends[bm.server.addr], "mtu", "9000", "type", "veth", "peer", "name", ends[bm.client.addr], "mtu", "9000")
	for addr, name := range ends {
		sh(t, "ip", "link", "set", name, "netns", ns[addr])
	}
	var mu sync.Mutex
	macs := map[string]string{} // guest management address → MAC set
	sim.OnPowerOn(func(on vspheretest.PoweredOn) {
		addr := on.GuestIP
		for pg, mac := range on.MACs {
			if !strings.HasPrefix(pg, "lab-pg-") || ends[addr] == "" {
				continue
			}
			if out, err := exec.Command("ip", "-n", ns[addr], "link", "set", "dev", ends[addr], "address", mac).CombinedOutput(); err != nil {
				t.Errorf("set the MAC of %s: %v: %s", ends[addr], err, out)
			}
			mu.Lock()
			macs[addr] = mac
			mu.Unlock()
		}
	})
	before := sim.NetworkInfo(t)
	dir := t.TempDir()
	src := fmt.Sprintf(`
lab "e2e-vsphere-own" {}
provider "vsphere" "sim" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  host         = "DC0_C0_H0" # pinned: own-switch is the default
  network      = "VM Network"
  ip_timeout   = "20s"
  extra_config = { "SET.guest.ipAddress" = "%s.1{role_index}" }
}
template "deb-s" {
  source = "debian-12-tmpl"
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = %q
  }
}
template "deb-c" {
  source = "debian-12-tmpl"
  os     = "linux"
  ssh {
    user             = "root"
    private_key_file = %q
  }
}
pair "deb" {
  server = template.deb-s
  client = template.deb-c
  vcpu   = 1
  nic { model = "vmxnet3" }
  link { mtu = 9000 }
}
experiment "mtu" {
  pairs  = [pair.deb]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 { duration = "1s" }
}
`, mgmt, bm.server.keyFile, bm.client.keyFile)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := labEnv(t, sim, dir, "apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v (MACs set at power-on: %v; client guest: %s)\n%s%s", err, macs, sh(t, "ip", "-n", bm.client.ns, "-o", "link"), out, errOut)
	}
	if len(macs) != 2 {
		t.Fatalf("benchmark NIC MACs seen at power-on: %v", macs)
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
		// iperf3's own account of the connection: client 198.18.0.2 to
		// server 198.18.0.1, the benchmark link's addresses.
		for _, c := range iperf3Connections(t, r) {
			if c.Local != "198.18.0.2" || c.Remote != "198.18.0.1" {
				t.Errorf("%s: connection %s → %s, not over the benchmark link (198.18.0.2 → 198.18.0.1)", r.CellKey, c.Local, c.Remote)
			}
		}
		if r.Observed.Server.MTU != r.Intent.Server.MTU {
			t.Errorf("%s: guest MTU %d, want %d", r.CellKey, r.Observed.Server.MTU, r.Intent.Server.MTU)
		}
	}
	// lab addressed the interface it found by MAC, inside each guest.
	for addr, want := range map[string]string{bm.server.addr: "198.18.0.1/24", bm.client.addr: "198.18.0.2/24"} {
		if got := sh(t, "ip", "-n", ns[addr], "-o", "-4", "addr", "show", "dev", ends[addr]); !strings.Contains(got, want) {
			t.Errorf("%s: %s has %q, want %s", ns[addr], ends[addr], got, want)
		}
	}
	if vms := sim.VMs(); len(vms) != 2 { // the two templates
		t.Errorf("VMs left after apply: %v", vms)
	}
	if after := sim.NetworkInfo(t); !reflect.DeepEqual(after, before) {
		t.Errorf("host networks after teardown differ from before:\nbefore %+v\nafter  %+v", before["DC0_C0_H0"].Vswitch, after["DC0_C0_H0"].Vswitch)
	}
	fields, err := object.NewCustomFieldsManager(sim.Client.Client).Field(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if strings.HasPrefix(f.Name, "lab-lock ") {
			t.Errorf("switch lock %q left behind", f.Name)
		}
	}
	if out, errOut, err := labEnv(t, sim, dir, "destroy", "-auto-approve", "-orphans"); err != nil || strings.Contains(out+errOut, "lab-sw-") {
		t.Errorf("destroy -orphans after a clean apply: %v\n%s%s", err, out, errOut)
	}
}

// TestVSpherePlanNamesWhatApplyUses: in a fresh lab directory, the own
// switch that plan names is the one apply then creates. Both name it after
// the workspace id (the state's lineage); plan fixes that id in .lab/ the
// first time it sees the directory, so the apply after it uses the same
// one. The simulator's guests report no address, so apply fails once the
// VMs are powered on on the switch's port group (what the test reads) and
// tears everything down.
func TestVSpherePlanNamesWhatApplyUses(t *testing.T) {
	sim := vspheretest.Start(t)
	var mu sync.Mutex
	var used []string // port groups the VMs were powered on with
	sim.OnPowerOn(func(on vspheretest.PoweredOn) {
		mu.Lock()
		defer mu.Unlock()
		for pg := range on.MACs {
			if strings.HasPrefix(pg, "lab-pg-") {
				used = append(used, strings.TrimPrefix(pg, "lab-pg-"))
			}
		}
	})
	dir := t.TempDir()
	src := `
lab "plan-names" {}
provider "vsphere" "sim" {
  datacenter = "DC0"
  cluster    = "DC0_C0"
  host       = "DC0_C0_H0" # pinned: own-switch is the default
  network    = "VM Network"
  ip_timeout = "1s"
}
template "deb" {
  source = "debian-12-tmpl"
  os     = "linux"
  ssh { user = "root" }
}
pair "deb" {
  template = template.deb
  vcpu     = 1
  nic { model = "vmxnet3" }
  link { mtu = 9000 }
}
experiment "e" {
  pairs = [pair.deb]
  iperf3 { duration = "1s" }
}
`
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := labEnv(t, sim, dir, "plan")
	planned := regexp.MustCompile(`lab-sw-([0-9a-f]+)`).FindStringSubmatch(out)
	if err != nil || planned == nil {
		t.Fatalf("plan names no own switch: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err = labEnv(t, sim, dir, "apply", "-auto-approve")
	if err == nil {
		t.Fatalf("apply succeeded with guests that report no address:\n%s", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(used) == 0 {
		t.Fatalf("no VM was powered on on an own switch's port group:\n%s%s", out, errOut)
	}
	for _, h := range used {
		if h != planned[1] {
			t.Errorf("apply used switch lab-sw-%s, plan named lab-sw-%s", h, planned[1])
		}
	}
	if vms := sim.VMs(); len(vms) != 2 { // the two templates
		t.Errorf("VMs left after the failed apply: %v", vms)
	}
}
