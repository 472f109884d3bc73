package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Cross pairs: a pair whose ends two providers make, meeting on the
// network that exists between them. The "existing network" here is the
// bareMetal harness's bridge; its machines are namespaces running real
// sshds, and a bridged local block puts a namespace of lab's on it too.

const crossHostsLab = `
lab "e2e-cross" {}
provider "hosts" "a" {
  server {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
    cpus             = "0"
  }
}
provider "hosts" "b" {
  client {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
    cpus             = %q
  }
}
template "a" {
  provider = provider.hosts.a
  os       = "linux"
}
template "b" {
  provider = provider.hosts.b
  os       = "linux"
}
pair "ab" {
  server = template.a
  client = template.b
}
experiment "mtu" {
  pairs  = [pair.ab]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
}
`

// TestCrossHostsForReal runs a pair whose server is one hosts block's
// machine and whose client another's: each end is made (and restored) by
// its own provider, and the path between them is probed before the first
// run of each MTU — a bridge port that carries less than the ends' MTU
// fails that MTU's runs by name, before any benchmark.
func TestCrossHostsForReal(t *testing.T) {
	bm := newBareMetal(t)
	before := map[string]string{}
	for _, m := range []borrowedMachine{bm.server, bm.client} {
		before[m.ns] = hostSettings(t, m.ns)
	}
	clientCPU := "1"
	if runtime.NumCPU() < 2 {
		clientCPU = "0"
	}
	dir := t.TempDir()
	src := fmt.Sprintf(crossHostsLab, bm.server.addr, bm.server.keyFile, bm.client.addr, bm.client.keyFile, clientCPU)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	out, stderr, err := lab(t, dir, "plan")
	if err != nil {
		t.Fatalf("plan: %v\n%s\n%s", err, out, stderr)
	}
	for _, want := range []string{"pair.ab.server  (hosts", "pair.ab.client  (hosts"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}

	// Something between the ends carries less than 9000: the client's
	// port on the bridge.
	sh(t, "ip", "link", "set", bm.client.port, "mtu", "1500")
	out, stderr, err = lab(t, dir, "apply", "-auto-approve")
	if err == nil {
		t.Fatalf("apply passed with a 1500-byte port between 9000-byte ends:\n%s", out)
	}
	recs := loadRecords(t, dir)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2\n%s\n%s", len(recs), out, stderr)
	}
	for _, r := range recs {
		mtu := r.Intent.Server.MTU
		switch {
		case mtu == 1500 && (r.Error != "" || r.Metrics.ThroughputBps <= 0):
			t.Errorf("mtu 1500 over a 1500 path: error %q, throughput %v", r.Error, r.Metrics.ThroughputBps)
		case mtu == 9000 && !strings.Contains(r.Error, "path MTU: pair.ab.client cannot reach pair.ab.server"):
			t.Errorf("mtu 9000 over a 1500 path: error %q, want the path check's", r.Error)
		}
		if r.Provenance.ServerMachine != "pair.ab.server" || r.Provenance.ClientMachine != "pair.ab.client" {
			t.Errorf("machines %q %q", r.Provenance.ServerMachine, r.Provenance.ClientMachine)
		}
	}
	t.Logf("apply over a short path:\n%s", out)

	sh(t, "ip", "link", "set", bm.client.port, "mtu", "9000")
	out, stderr, err = lab(t, dir, "apply", "-auto-approve", "-keep")
	if err != nil {
		t.Fatalf("apply: %v\n%s\n%s", err, out, stderr)
	}
	if !strings.Contains(out, "carries MTU 9000 unfragmented") {
		t.Errorf("apply does not say the path was checked:\n%s", out)
	}
	for _, r := range loadRecords(t, dir) {
		if r.Error != "" || r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: error %q, throughput %v", r.CellKey, r.Error, r.Metrics.ThroughputBps)
		}
		t.Logf("%s: %.2f Gb/s", r.CellKey, r.Metrics.ThroughputBps/1e9)
	}
	// Each end is its own provider's in state, so each is restored and
	// forgotten by the provider that made it.
	list, _, err := lab(t, dir, "state", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pair.ab.server", "hosts.a", "pair.ab.client", "hosts.b", "pair.ab.client_link"} {
		if !strings.Contains(list, want) {
			t.Errorf("state list lacks %q:\n%s", want, list)
		}
	}
	if out, stderr, err := lab(t, dir, "destroy", "-auto-approve"); err != nil {
		t.Fatalf("destroy: %v\n%s\n%s", err, out, stderr)
	}
	for _, m := range []borrowedMachine{bm.server, bm.client} {
		if got := hostSettings(t, m.ns); got != before[m.ns] {
			t.Errorf("%s after destroy: %s, want it back to %s", m.ns, got, before[m.ns])
		}
	}
}

const crossLocalLab = `
lab "e2e-cross-local" {}
provider "hosts" "box" {
  server {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
  }
}
provider "local" "here" {
  bridge  = %q
  address = %q
}
template "box" {
  provider = provider.hosts.box
  os       = "linux"
}
template "ns" {
  provider = provider.local.here
  os       = "linux"
}
pair "mixed" {
  server = template.box
  client = template.ns
}
experiment "once" {
  pairs = [pair.mixed]
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
}
`

// TestCrossLocalAndHostsForReal pairs a borrowed machine (hosts) with a
// namespace the local back end makes on the same existing bridge: lab adds
// its own port to the bridge and removes exactly that port at the end.
func TestCrossLocalAndHostsForReal(t *testing.T) {
	bm := newBareMetal(t)
	ports := bridgePorts(t, bm.bridge)
	dir := t.TempDir()
	src := fmt.Sprintf(crossLocalLab, bm.server.addr, bm.server.keyFile, bm.bridge, bm.net+".10/24")
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v\n%s\n%s", err, out, stderr)
	}
	recs := loadRecords(t, dir)
	if len(recs) != 1 || recs[0].Error != "" || recs[0].Metrics.ThroughputBps <= 0 {
		t.Fatalf("records %+v\n%s", recs, out)
	}
	r := recs[0]
	if r.Provenance.Provider != "hosts" || r.Provenance.ClientProvider != "local" {
		t.Errorf("providers %q / %q, want hosts / local", r.Provenance.Provider, r.Provenance.ClientProvider)
	}
	t.Logf("hosts ← local over bridge %s: %.2f Gb/s", bm.bridge, r.Metrics.ThroughputBps/1e9)
	if got := bridgePorts(t, bm.bridge); got != ports {
		t.Errorf("bridge ports after apply: %s, want the harness's own: %s", got, ports)
	}
	if out, _ := exec.Command("ip", "netns", "list").Output(); strings.Contains(string(out), "e2e-cross-local") {
		t.Errorf("a namespace of the lab is left:\n%s", out)
	}
}

// bridgePorts lists the bridge's ports by name, sorted by the kernel.
func bridgePorts(t *testing.T, bridge string) string {
	t.Helper()
	var names []string
	for _, l := range strings.Split(sh(t, "ip", "-o", "link", "show", "master", bridge), "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			names = append(names, strings.TrimSuffix(strings.Split(f[1], "@")[0], ":"))
		}
	}
	return strings.Join(names, " ")
}
