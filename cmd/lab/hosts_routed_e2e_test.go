package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// routedBareMetal is three existing machines for the hosts back end,
// cabled as seed 001's: server — router — client. Each is a namespace
// with a management interface (eth0, on a bridge in this namespace, where
// its real sshd listens) and benchmark links of /30s: server eth1 ↔
// router eth1, router eth2 ↔ client eth1. The routes and the router's
// forwarding are the machines' own, as a user's would be.
type routedBareMetal struct {
	server, router, client borrowedMachine
	// bench addresses of the server and the client
	serverAddr, clientAddr string
}

func newRoutedBareMetal(t *testing.T) routedBareMetal {
	t.Helper()
	needNamespaces(t)
	sshtest.RequireSSHD(t)
	b := make([]byte, 3)
	rand.Read(b)
	id := hex.EncodeToString(b)
	mgmt := fmt.Sprintf("198.18.%d", 200+int(b[0])%50)
	bench := fmt.Sprintf("198.19.%d", 200+int(b[1])%50)
	br := "labtrb" + id
	t.Cleanup(func() { exec.Command("ip", "link", "del", br).Run() })
	sh(t, "ip", "link", "add", br, "type", "bridge")
	sh(t, "ip", "addr", "add", mgmt+".1/24", "dev", br)
	sh(t, "ip", "link", "set", br, "up")
	var rb routedBareMetal
	for i, m := range []*borrowedMachine{&rb.server, &rb.router, &rb.client} {
		role := []string{"s", "r", "c"}[i]
		m.ns, m.addr = "labt-"+id+"-r"+role, fmt.Sprintf("%s.%d", mgmt, 2+i)
		ns, host, peer := m.ns, "lt"+id+"m"+role, "lt"+id+"n"+role
		t.Cleanup(func() { netnstest.Remove(t, ns) })
		sh(t, "ip", "netns", "add", ns)
		sh(t, "ip", "link", "add", host, "type", "veth", "peer", "name", peer)
		sh(t, "ip", "link", "set", host, "master", br, "up")
		sh(t, "ip", "link", "set", peer, "netns", ns)
		sh(t, "ip", "-n", ns, "link", "set", peer, "name", "eth0")
		sh(t, "ip", "-n", ns, "addr", "add", m.addr+"/24", "dev", "eth0")
		sh(t, "ip", "-n", ns, "link", "set", "eth0", "up")
		sh(t, "ip", "-n", ns, "link", "set", "lo", "up")
	}
	// The benchmark links, in MTU 4000 (so a restore to 9000 or 1500
	// would show) and the machines' own routes.
	link := func(a *borrowedMachine, aIf, aAddr string, z *borrowedMachine, zIf, zAddr string) {
		tmpA, tmpZ := "lt"+id+"a"+aIf[3:]+z.ns[len(z.ns)-1:], "lt"+id+"z"+zIf[3:]+a.ns[len(a.ns)-1:]
		sh(t, "ip", "link", "add", tmpA, "mtu", "4000", "type", "veth", "peer", "name", tmpZ, "mtu", "4000")
		for _, e := range []struct{ tmp, ns, name, addr string }{{tmpA, a.ns, aIf, aAddr}, {tmpZ, z.ns, zIf, zAddr}} {
			sh(t, "ip", "link", "set", e.tmp, "netns", e.ns)
			sh(t, "ip", "-n", e.ns, "link", "set", e.tmp, "name", e.name)
			sh(t, "ip", "-n", e.ns, "addr", "add", e.addr+"/30", "dev", e.name)
			sh(t, "ip", "-n", e.ns, "link", "set", e.name, "up")
		}
	}
	rb.serverAddr, rb.clientAddr = bench+".1", bench+".6"
	link(&rb.server, "eth1", rb.serverAddr, &rb.router, "eth1", bench+".2")
	link(&rb.router, "eth2", bench+".5", &rb.client, "eth1", rb.clientAddr)
	sh(t, "ip", "-n", rb.server.ns, "route", "add", bench+".4/30", "via", bench+".2")
	sh(t, "ip", "-n", rb.client.ns, "route", "add", bench+".0/30", "via", bench+".5")
	sh(t, "ip", "netns", "exec", rb.router.ns, "sysctl", "-qw", "net.ipv4.ip_forward=1")
	for _, m := range []*borrowedMachine{&rb.server, &rb.router, &rb.client} {
		m.reinstall(t)
	}
	return rb
}

const hostsRoutedLab = `
lab "e2e-hosts-routed" {}
provider "hosts" "fw" {
  server {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
    bench_address    = %q
  }
  router {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
    iface2           = "eth2"
  }
  client {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
    bench_address    = %q
  }
}
template "box" {
  provider = provider.hosts.fw
  os       = "linux"
}
pair "fw" {
  template = template.box
  via      = template.box
}
experiment "mtu" {
  pairs  = [pair.fw]
  matrix = { mtu = [1500, 9000] }
  guest { mtu = matrix.mtu }
  router { sysctl = { "net.ipv4.conf.all.rp_filter" = "0" } }
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
}
`

// TestHostsRoutedForReal runs a pair through an existing router (seed
// 001's client → firewall box → server on the hosts back end): every cell
// sets the MTU of the ends and of both router interfaces, the benchmark
// crosses the router, and at teardown all three machines — the router's
// two interfaces and its sysctl too — are back as they were.
func TestHostsRoutedForReal(t *testing.T) {
	rb := newRoutedBareMetal(t)
	state := func(m borrowedMachine, ifaces ...string) string {
		var parts []string
		for _, i := range ifaces {
			parts = append(parts, i+" mtu "+linkMTU(t, m.ns, i))
		}
		parts = append(parts, "rp_filter "+sh(t, "ip", "netns", "exec", m.ns, "sysctl", "-n", "net.ipv4.conf.all.rp_filter"))
		return strings.Join(parts, ", ")
	}
	sh(t, "ip", "netns", "exec", rb.router.ns, "sysctl", "-qw", "net.ipv4.conf.all.rp_filter=2")
	before := map[string]string{"server": state(rb.server, "eth1"), "router": state(rb.router, "eth1", "eth2"), "client": state(rb.client, "eth1")}
	dir := t.TempDir()
	src := fmt.Sprintf(hostsRoutedLab, rb.server.addr, rb.server.keyFile, rb.serverAddr, rb.router.addr, rb.router.keyFile,
		rb.client.addr, rb.client.keyFile, rb.clientAddr)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := lab(t, dir, "apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v\n%s\n%s", err, out, stderr)
	}
	recs := loadRecords(t, dir)
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	for _, r := range recs {
		mtu := r.Intent.Server.MTU
		if r.Error != "" || r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: error %q, throughput %v", r.CellKey, r.Error, r.Metrics.ThroughputBps)
			continue
		}
		if r.Observed.Router == nil || r.Observed.Router.MTU != mtu || r.Observed.Router.Sysctl["net.ipv4.conf.all.rp_filter"] != "0" {
			t.Errorf("%s: router observed %+v", r.CellKey, r.Observed.Router)
		}
		t.Logf("%s through the router: %.2f Gb/s", r.CellKey, r.Metrics.ThroughputBps/1e9)
	}
	after := map[string]string{"server": state(rb.server, "eth1"), "router": state(rb.router, "eth1", "eth2"), "client": state(rb.client, "eth1")}
	for role, want := range before {
		if after[role] != want {
			t.Errorf("%s after apply: %s, want it back to %s", role, after[role], want)
		}
	}
}
