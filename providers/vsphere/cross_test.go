package vsphere

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lab-bench/lab/bench"
	"github.com/lab-bench/lab/guest"
	"github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/internal/engine"
	"github.com/lab-bench/lab/internal/plan"
	"github.com/lab-bench/lab/internal/state"
	"github.com/lab-bench/lab/machine"
	"github.com/lab-bench/lab/providers"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// crossLab is a cross pair of two vSphere hosts (issue 24 §1): each
// provider block pins one host, in shared-switch mode, so both VMs' NICs
// are on the user's port group, which reaches both hosts.
const crossLab = `
lab "xvs" {}
provider "vsphere" "h0" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  host         = "DC0_C0_H0"
  link_mode    = "shared-switch"
  network      = "VM Network"
  extra_config = { "SET.guest.ipAddress" = "198.51.100.{role_index}" }
}
provider "vsphere" "h1" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  host         = "DC0_C0_H1"
  link_mode    = "shared-switch"
  network      = "VM Network"
  extra_config = { "SET.guest.ipAddress" = "198.51.100.{role_index}" }
}
template "a" {
  provider = provider.vsphere.h0
  source   = "freebsd-14.2-tmpl"
  os       = "freebsd"
  ssh { user = "root" }
}
template "b" {
  provider = provider.vsphere.h1
  source   = "freebsd-14.2-tmpl"
  os       = "freebsd"
  ssh { user = "root" }
}
pair "x" {
  server = template.a
  client = template.b
}
experiment "e" {
  pairs = [pair.x]
  guest { mtu = 1500 }
  iperf3 { duration = "1s" }
}
`

// TestCrossPairOnTwoHosts: the server is cloned on one pinned host and the
// client on another, each by its own provider block and recorded under
// it; the path is probed before the run; teardown removes both VMs and
// changes no host's network (no link MTU asked).
func TestCrossPairOnTwoHosts(t *testing.T) {
	sim := vspheretest.Start(t)
	mtus := sim.HostMTUs()
	lab, p := loadLab(t, crossLab)
	var probes []string
	provs := configureBlocks(t, sim, lab, func(_ context.Context, name string, _ ssh.Config) (guest.Transport, error) {
		return probeTransport{nopTransport{name}, &probes}, nil
	})
	res := &memResults{}
	e := &engine.Engine{State: &state.State{Lineage: testLineage}, Store: memStore{}, Providers: provs, Keep: true,
		OS:      func(string) (guest.OS, error) { return okOS{}, nil },
		Runner:  func(string) (bench.Runner, error) { return okRunner{}, nil },
		Results: res, RunID: "r1", Lab: lab.Name}
	if d := plan.CheckCapabilities(p, lab, func(k string) (providers.Capabilities, bool) { return provs[k].Capabilities(), true }); d.HasErrors() {
		t.Fatal(d)
	}
	if _, err := e.Apply(context.Background(), context.Background(), p); err != nil {
		t.Fatal(err)
	}
	if len(res.recs) != 1 || res.recs[0].Error != "" {
		t.Fatalf("records %+v", res.recs)
	}
	hosts := map[string]string{}
	for _, r := range e.State.Resources {
		if r.Kind == "machine" {
			hosts[r.Address+"@"+r.ProviderKey] = r.Attrs["host"]
		}
	}
	if hosts["pair.x.server@vsphere.h0"] != sim.HostRef("DC0_C0_H0") || hosts["pair.x.client@vsphere.h1"] != sim.HostRef("DC0_C0_H1") {
		t.Errorf("machines on hosts %v, want the server on DC0_C0_H0 (%s) and the client on DC0_C0_H1 (%s)", hosts, sim.HostRef("DC0_C0_H0"), sim.HostRef("DC0_C0_H1"))
	}
	if !slices.ContainsFunc(probes, func(s string) bool { return strings.HasPrefix(s, "ping -n -q -D -s 1472") }) {
		t.Errorf("the client did not probe the path: %v", probes)
	}
	if err := e.Destroy(context.Background(), machine.Owner{Lab: "xvs", Workspace: testWS}, false); err != nil {
		t.Fatal(err)
	}
	if left := labVMs(sim, "xvs"); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
	if got := sim.HostMTUs(); !maps.Equal(got, mtus) {
		t.Errorf("host MTUs %v, want them as they were, %v", got, mtus)
	}
}

type probeTransport struct {
	nopTransport
	cmds *[]string
}

func (p probeTransport) Run(_ context.Context, c guest.Cmd) (guest.Result, error) {
	if len(c.Argv) > 0 && c.Argv[0] == "ping" {
		*p.cmds = append(*p.cmds, strings.Join(c.Argv, " "))
	}
	return guest.Result{}, nil
}
