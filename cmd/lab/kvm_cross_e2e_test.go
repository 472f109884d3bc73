package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lab-bench/lab/guest/netns/netnstest"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
)

// kvmCrossLab is a cross pair: the server a libvirt guest whose benchmark
// NIC is on a host bridge lab does not own, at the address the pair gives
// it; the client an existing machine (hosts) on the same bridge.
const kvmCrossLab = `lab "kvm-cross" {}

variable "pool" { type = string }
variable "accel" { type = string }
variable "ssh_key" { type = string }
variable "bridge" { type = string }
variable "box" { type = string }
variable "box_key" { type = string }

provider "libvirt" "host" {
  pool        = var.pool
  accel       = var.accel
  kernel      = "vmlinux"
  initrd      = "initrd.img"
  link_bridge = var.bridge
  management  = "lab"
}
provider "hosts" "box" {
  client {
    address          = var.box
    private_key_file = var.box_key
    iface            = "eth1"
  }
}
template "debian" {
  provider = provider.libvirt.host
  source   = "base.qcow2"
  os       = "linux"
  ssh {
    user             = "root"
    private_key_file = var.ssh_key
  }
}
template "box" {
  provider = provider.hosts.box
  os       = "linux"
}
pair "x" {
  server    = template.debian
  client    = template.box
  addresses = { server = "198.18.251.2/24" }
}
experiment "over-the-bridge" {
  pairs = [pair.x]
  guest { mtu = 9000 }
  iperf3 { duration = "3s" }
}
`

// kvmCrossHosts applies a cross pair of a libvirt guest and a hosts
// machine on one bridge in the harness's namespace (issue 24 §1: "the
// libvirt back end against a hosts machine"): the guest gets the pair's
// address on the bridge over its management NIC, the path is probed at
// MTU 9000 before the run, iperf3 runs from the hosts machine to the
// guest, and at the end the guest is gone and the machine's MTU is back.
func kvmCrossHosts(t *testing.T, e kvmEnv) {
	sshtest.RequireSSHD(t)
	const br, box = "labtxbr0", "198.18.251.3"
	ipns := func(ns string, args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", append([]string{"-n", ns}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("ip -n %s %v: %v\n%s", ns, args, err, out)
		}
	}
	ipns(e.ns, "link", "add", br, "mtu", "9000", "type", "bridge")
	t.Cleanup(func() { exec.Command("ip", "-n", e.ns, "link", "del", br).Run() })
	ipns(e.ns, "addr", "add", "198.18.251.1/24", "dev", br)
	ipns(e.ns, "link", "set", br, "up")
	// The existing machine: a namespace on the bridge with a real sshd.
	boxNS := "labt-kvmx-box"
	t.Cleanup(func() { netnstest.Remove(t, boxNS) })
	if out, err := exec.Command("ip", "netns", "add", boxNS).CombinedOutput(); err != nil {
		t.Fatalf("netns add: %v\n%s", err, out)
	}
	ipns(e.ns, "link", "add", "labtxp", "mtu", "9000", "type", "veth", "peer", "name", "labtxq", "mtu", "4000")
	ipns(e.ns, "link", "set", "labtxq", "netns", boxNS)
	ipns(e.ns, "link", "set", "labtxp", "master", br, "up")
	ipns(boxNS, "link", "set", "labtxq", "name", "eth1")
	ipns(boxNS, "addr", "add", box+"/24", "dev", "eth1")
	ipns(boxNS, "link", "set", "eth1", "up")
	ipns(boxNS, "link", "set", "lo", "up")
	sshd := sshtest.RunSSHD(t, boxNS, box)

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(kvmCrossLab), 0o644); err != nil {
		t.Fatal(err)
	}
	vars := []string{"bridge=" + br, "box=" + box, "box_key=" + sshd.KeyFile}
	out, err := e.cmd(dir, append([]string{"apply", "-auto-approve"}, e.vars(vars...)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("apply: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "carries MTU 9000 unfragmented") {
		t.Errorf("apply does not say the path was checked:\n%s", out)
	}
	r := oneRun(t, dir)
	for _, c := range iperf3Connections(t, r) {
		if c.Local != box || c.Remote != "198.18.251.2" {
			t.Errorf("iperf3 ran %s → %s, want the hosts machine %s → the guest at the pair's address 198.18.251.2", c.Local, c.Remote, box)
		}
	}
	if r.Provenance.Provider != "libvirt" || r.Provenance.ClientProvider != "hosts" || r.Observed.Server.MTU != 9000 || r.Observed.Client.MTU != 9000 {
		t.Errorf("providers %q/%q, MTU %d/%d", r.Provenance.Provider, r.Provenance.ClientProvider, r.Observed.Server.MTU, r.Observed.Client.MTU)
	}
	if m := linkMTU(t, boxNS, "eth1"); m != "4000" {
		t.Errorf("the hosts machine's MTU is %s after apply, want its own 4000 back", m)
	}
	if left := virsh(t, "list", "--all", "--name"); strings.Contains(strings.Join(left, " "), "kvm-cross") {
		t.Errorf("a domain of the lab is left: %v", left)
	}
	t.Logf("figures: hosts machine → libvirt guest over bridge %s at MTU 9000: %s", br, fmt.Sprintf("%.2f Gb/s", r.Metrics.ThroughputBps/1e9))
}
