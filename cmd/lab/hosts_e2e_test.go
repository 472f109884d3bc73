package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
	"github.com/lab-bench/lab/internal/results"
)

// bareMetal is two "existing machines" for the hosts back end: network
// namespaces on a bridge in this namespace (198.18.N.1), each running a
// real sshd on its benchmark interface eth1 (198.18.N.2 and .3), so SSH
// from lab and the benchmark between the machines both work.
type bareMetal struct {
	server, client borrowedMachine
	// bridge joins the machines; net is its /24's first three octets.
	bridge, net string
}

type borrowedMachine struct {
	ns, addr, keyFile, hostKey string
	// port is the machine's veth end on the bridge.
	port string
	sshd *sshtest.SSHD
}

func newBareMetal(t *testing.T) bareMetal { return newBareMetalAt(t, 2) }

// newBareMetalAt is newBareMetal with the machines at .first and .first+1.
func newBareMetalAt(t *testing.T, first int) bareMetal {
	t.Helper()
	needNamespaces(t)
	sshtest.RequireSSHD(t)
	b := make([]byte, 3)
	net := ""
	// A subnet no bridge of this namespace has yet (a test may make two).
	for net == "" || sh(t, "ip", "-o", "addr", "show", "to", net+".0/24") != "" {
		rand.Read(b)
		net = fmt.Sprintf("198.18.%d", 200+int(b[0])%50)
	}
	id := hex.EncodeToString(b)
	br := "labtbr" + id
	t.Cleanup(func() { exec.Command("ip", "link", "del", br).Run() })
	sh(t, "ip", "link", "add", br, "type", "bridge")
	sh(t, "ip", "addr", "add", net+".1/24", "dev", br)
	bm := bareMetal{bridge: br, net: net}
	for i, m := range []*borrowedMachine{&bm.server, &bm.client} {
		role := []string{"s", "c"}[i]
		m.ns, m.addr = "labt-"+id+"-h"+role, fmt.Sprintf("%s.%d", net, first+i)
		ns, host, peer := m.ns, "lt"+id+"h"+role, "lt"+id+"p"+role
		m.port = host
		t.Cleanup(func() { netnstest.Remove(t, ns) })
		sh(t, "ip", "netns", "add", ns)
		sh(t, "ip", "link", "add", host, "mtu", "9000", "type", "veth", "peer", "name", peer)
		sh(t, "ip", "link", "set", host, "master", br, "up")
		sh(t, "ip", "link", "set", peer, "netns", ns)
		sh(t, "ip", "-n", ns, "link", "set", peer, "name", "eth1")
		sh(t, "ip", "-n", ns, "addr", "add", m.addr+"/24", "dev", "eth1")
		sh(t, "ip", "-n", ns, "link", "set", "eth1", "up")
		sh(t, "ip", "-n", ns, "link", "set", "lo", "up")
		// Distinct starting points, so a restore to the wrong end shows.
		sh(t, "ip", "netns", "exec", ns, "ethtool", "-K", "eth1", "gro", []string{"on", "off"}[i])
	}
	// This namespace's side stays at 1500 (SSH); the ports carry 9000.
	sh(t, "ip", "link", "set", br, "mtu", "1500", "up")
	for _, m := range []*borrowedMachine{&bm.server, &bm.client} {
		m.reinstall(t)
	}
	return bm
}

// reinstall (re)starts the machine's sshd with a new host key and a new
// client key, as a reinstalled machine would present.
func (m *borrowedMachine) reinstall(t *testing.T) {
	t.Helper()
	if m.sshd != nil {
		m.sshd.Stop()
	}
	m.sshd = sshtest.RunSSHD(t, m.ns, m.addr)
	if m.sshd.Port != 22 {
		t.Fatalf("sshd port %d", m.sshd.Port)
	}
	m.keyFile, m.hostKey = m.sshd.KeyFile, m.sshd.HostKey
}

func sh(t *testing.T, argv ...string) string {
	t.Helper()
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// linkMTU is the MTU of dev in namespace ns, as `ip -o link show` prints it.
func linkMTU(t *testing.T, ns, dev string) string {
	t.Helper()
	f := strings.Fields(sh(t, "ip", "-n", ns, "-o", "link", "show", "dev", dev))
	for i := range f[:max(len(f)-1, 0)] {
		if f[i] == "mtu" {
			return f[i+1]
		}
	}
	t.Fatalf("no MTU in ip -o link show dev %s (namespace %s): %v", dev, ns, f)
	return ""
}

// hostSettings is what a test reads itself from a machine: the values lab
// must put back.
func hostSettings(t *testing.T, ns string) string {
	t.Helper()
	mtu := linkMTU(t, ns, "eth1")
	gro := ""
	for _, l := range strings.Split(sh(t, "ip", "netns", "exec", ns, "ethtool", "-k", "eth1"), "\n") {
		if v, ok := strings.CutPrefix(l, "generic-receive-offload: "); ok {
			gro = v
		}
	}
	cc := sh(t, "ip", "netns", "exec", ns, "sysctl", "-n", "net.ipv4.tcp_congestion_control")
	rmem := strings.Join(strings.Fields(sh(t, "ip", "netns", "exec", ns, "sysctl", "-n", "net.ipv4.tcp_rmem")), " ")
	return fmt.Sprintf("mtu=%s gro=%s cc=%s tcp_rmem=%q", mtu, gro, cc, rmem)
}

const hostsLab = `
lab "e2e-hosts" {}
variable "server" { type = string }
provider "hosts" "bench" {
  server {
    address          = var.server
    private_key_file = %q
    host_key         = %q
    iface            = "eth1"
    cpus             = "0"
  }
  client {
    address          = %q
    private_key_file = %q
    iface            = "eth1"
    cpus             = %q
  }
}
template "host" {
  provider = provider.hosts.bench
  os       = "linux"
}
pair "bm" { template = template.host }
experiment "mtu-gro" {
  pairs  = [pair.bm]
  matrix = { mtu = [1500, 9000], gro = [false, true] }
  guest {
    mtu                = matrix.mtu
    gro                = matrix.gro
    congestion_control = "reno"
    sysctl             = { "net.ipv4.tcp_rmem" = "4096 87380 4194304" }
  }
  iperf3 {
    duration = "1s"
    omit     = "0s"
  }
}
`

func writeHostsLab(t *testing.T, bm bareMetal, serverHostKey string) string {
	t.Helper()
	dir := t.TempDir()
	clientCPU := "1"
	if runtime.NumCPU() < 2 {
		clientCPU = "0"
	}
	src := fmt.Sprintf(hostsLab, bm.server.keyFile, serverHostKey, bm.client.addr, bm.client.keyFile, clientCPU)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHostsBackEndForReal(t *testing.T) {
	bm := newBareMetal(t)
	before := map[string]string{}
	for _, m := range []borrowedMachine{bm.server, bm.client} {
		before[m.ns] = hostSettings(t, m.ns)
	}
	t.Logf("before: %v", before)
	dir := writeHostsLab(t, bm, "")
	varServer := "-var=server=" + bm.server.addr

	stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", varServer)
	if err != nil {
		t.Fatalf("apply: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	t.Logf("apply:\n%s", stdout)
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, err := rs.Latest()
	if err != nil {
		t.Fatal(err)
	}
	_, recs, err := rs.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Error != "" {
			t.Errorf("%s: %s", r.CellKey, r.Error)
			continue
		}
		if r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: throughput %v", r.CellKey, r.Metrics.ThroughputBps)
		}
		for _, o := range []struct {
			mtu int
			gro string
		}{{r.Observed.Server.MTU, r.Observed.Server.Offloads["gro"]}, {r.Observed.Client.MTU, r.Observed.Client.Offloads["gro"]}} {
			want := map[bool]string{true: "on", false: "off"}[r.Intent.Server.Offloads["gro"]]
			if o.mtu != r.Intent.Server.MTU || strings.Fields(o.gro)[0] != want {
				t.Errorf("%s: observed mtu %d gro %q", r.CellKey, o.mtu, o.gro)
			}
		}
		if r.Provenance.Provider != "hosts" {
			t.Errorf("%s: provider %q", r.CellKey, r.Provenance.Provider)
		}
		t.Logf("%s: %.1f Gb/s", r.CellKey, r.Metrics.ThroughputBps/1e9)
	}
	for _, m := range []borrowedMachine{bm.server, bm.client} {
		if got := hostSettings(t, m.ns); got != before[m.ns] {
			t.Errorf("%s after apply: %s, want it back to %s", m.ns, got, before[m.ns])
		}
	}
	if out, _, err := lab(t, dir, "state", "list"); err != nil || !strings.Contains(out, "no objects") {
		t.Errorf("state after apply: %v\n%s", err, out)
	}

	t.Run("keep then destroy restores", func(t *testing.T) {
		stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", "-keep", varServer)
		if err != nil {
			t.Fatalf("apply -keep: %v\n%s\n%s", err, stdout, stderr)
		}
		if got := hostSettings(t, bm.server.ns); got == before[bm.server.ns] {
			t.Fatalf("with -keep the last cell's settings stay until destroy, got %s", got)
		}
		state, err := os.ReadFile(filepath.Join(dir, ".lab", "state.json"))
		if err != nil || !strings.Contains(string(state), `"restore"`) || !strings.Contains(string(state), `"host_key": "ssh-`) {
			t.Errorf("state lacks the restore record or the host key: %v\n%s", err, state)
		}
		if stdout, stderr, err := lab(t, dir, "destroy", "-auto-approve", varServer); err != nil {
			t.Fatalf("destroy: %v\n%s\n%s", err, stdout, stderr)
		}
		for _, m := range []borrowedMachine{bm.server, bm.client} {
			if got := hostSettings(t, m.ns); got != before[m.ns] {
				t.Errorf("%s after destroy: %s, want %s", m.ns, got, before[m.ns])
			}
		}
	})

	t.Run("changed host key refused", func(t *testing.T) {
		other := sshtest.PublicKey(t, sshtest.NewKey(t))
		dir := writeHostsLab(t, bm, other)
		stdout, stderr, err := lab(t, dir, "apply", "-auto-approve", varServer)
		out := stdout + stderr
		if err == nil || !strings.Contains(out, "host key changed") || strings.Count(out, "SHA256:") < 2 || !strings.Contains(out, "set host_key in the spec") {
			t.Fatalf("apply with a wrong host_key: %v\n%s", err, out)
		}
		t.Logf("refusal:\n%s", stderr)
	})
}
