package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lab-bench/lab/internal/results"
	"github.com/lab-bench/lab/providers/vsphere/vspheretest"
)

// These tests run the real binary against govmomi's simulator listening on
// 127.0.0.1 (vcsim's VPX model); credentials reach lab as GOVC_* only.

const vsphereLab = `
lab %q {}
provider "vsphere" "sim" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  network      = "VM Network"
  ip_timeout   = "20s"
  extra_config = { "SET.guest.ipAddress" = "198.51.100.{role_index}" }
}
template "freebsd" {
  source = "freebsd-14.2-tmpl"
  os     = "freebsd"
  ssh { user = "root" }
}
pair "fbsd" {
  template = template.freebsd
  vcpu     = 1
  memory   = "1GiB"
  nic { model = "vmxnet3" }
  link { mtu = 9000 }
}
experiment "lro" {
  pairs  = [pair.fbsd]
  matrix = { lro = [false, true] }
  guest { lro = matrix.lro }
  iperf3 { duration = "1s" }
}
`

func labEnv(t *testing.T, sim *vspheretest.Sim, dir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(labBin, append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = os.Environ()
	for k, v := range sim.Env() {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// TestVSphereApplyFaultThroughCLI: a clone fault makes apply fail with an
// error naming the VM and the operation; nothing is left in vSphere or in
// the state, and the password never reaches the output or the state file.
func TestVSphereApplyFaultThroughCLI(t *testing.T) {
	sim := vspheretest.Start(t)
	dir := t.TempDir()
	src := strings.Replace(vsphereLab, "%q", `"vcli"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := labEnv(t, sim, dir, "validate"); err != nil {
		t.Fatalf("validate: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err := labEnv(t, sim, dir, "plan")
	if err != nil || !strings.Contains(out, "pair.fbsd") {
		t.Fatalf("plan: %v\n%s%s", err, out, errOut)
	}
	sim.Fail("CloneVM_Task", "VirtualMachine", "freebsd-14.2-tmpl", 0)
	out, errOut, err = labEnv(t, sim, dir, "apply", "-auto-approve", "-json")
	if err == nil {
		t.Fatalf("apply succeeded:\n%s", out)
	}
	all := out + errOut
	if !strings.Contains(all, "vcli-fbsd-") || !strings.Contains(all, ": clone: from freebsd-14.2-tmpl") {
		t.Errorf("error does not name the VM and operation:\n%s", all)
	}
	st, _ := os.ReadFile(filepath.Join(dir, ".lab", "terraform.tfstate"))
	matches, _ := filepath.Glob(filepath.Join(dir, ".lab", "*"))
	for _, m := range matches {
		b, _ := os.ReadFile(m)
		st = append(st, b...)
	}
	if strings.Contains(all, sim.Password) || bytes.Contains(st, []byte(sim.Password)) {
		t.Error("the password reached the output or the state")
	}
	for _, n := range sim.VMs() {
		if strings.HasPrefix(n, "vcli-") {
			t.Errorf("VM %s left after the failed apply", n)
		}
	}
	sim.Model.Service.ClearFaultRules()
	if out, errOut, err := labEnv(t, sim, dir, "destroy", "-auto-approve", "-orphans"); err != nil {
		t.Fatalf("destroy: %v\n%s%s", err, out, errOut)
	}
}

// TestVSphereApplyOverSSH is the full run: simulated VMs whose guest
// address (SET.guest.ipAddress) points at a real sshd in a local network
// namespace, configured and benchmarked over SSH.
//
// The "VMs" are two namespaces on a bridge in this namespace (the hosts
// back end's test machines, at .11 and .12), each with a real sshd; the
// simulator reports .1{role_index} as each clone's guest IP, so lab clones,
// powers on, learns the address, reaches the guest over SSH, configures it,
// runs iperf3 between the two and tears everything down.
func TestVSphereApplyOverSSH(t *testing.T) {
	bm := newBareMetalAt(t, 11)
	sim := vspheretest.Start(t)
	net := bm.server.addr[:strings.LastIndex(bm.server.addr, ".")]
	dir := t.TempDir()
	src := fmt.Sprintf(`
lab "e2e-vsphere-ssh" {}
provider "vsphere" "sim" {
  datacenter   = "DC0"
  cluster      = "DC0_C0"
  network      = "VM Network"
  ip_timeout   = "20s"
  guest_iface  = { linux = "eth1" }
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
`, net, bm.server.keyFile, bm.client.keyFile)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := labEnv(t, sim, dir, "apply", "-auto-approve")
	if err != nil {
		t.Fatalf("apply: %v\n%s%s", err, out, errOut)
	}
	rs := results.Store{Dir: filepath.Join(dir, "results")}
	id, _ := rs.Latest()
	_, recs, err := rs.Load(id)
	if err != nil || len(recs) != 2 {
		t.Fatalf("results: %v, %d records", err, len(recs))
	}
	for _, r := range recs {
		if r.Error != "" || r.Metrics.ThroughputBps <= 0 {
			t.Errorf("%s: %q, %.0f b/s", r.CellKey, r.Error, r.Metrics.ThroughputBps)
		}
		if r.Observed.Server.MTU != r.Intent.Server.MTU {
			t.Errorf("%s: guest MTU %d", r.CellKey, r.Observed.Server.MTU)
		}
		if r.HostCPU == nil || !strings.HasPrefix(r.HostCPU.Server.Source, "vsphere:") {
			t.Errorf("%s: no hypervisor-side CPU: %+v", r.CellKey, r.HostCPU)
		}
	}
	if vms := sim.VMs(); len(vms) != 2 { // the two templates
		t.Errorf("VMs left after apply: %v", vms)
	}
	// The lock file pins the template's identity; an edited template makes
	// the next plan warn, naming it.
	lock, _ := os.ReadFile(filepath.Join(dir, ".lab.lock.hcl"))
	if !regexp.MustCompile(`(?s)machine "pair.deb.server".*template += "instance-uuid [0-9a-f-]+; change-version [^"]+"`).Match(lock) {
		t.Errorf("lock file does not pin the template identity:\n%s", lock)
	}
	if _, errOut, err := labEnv(t, sim, dir, "plan"); err != nil || strings.Contains(errOut, "changed since") {
		t.Errorf("plan with the same template: %v\n%s", err, errOut)
	}
	sim.EditTemplate(t, vspheretest.Debian)
	if _, errOut, err := labEnv(t, sim, dir, "plan"); err != nil || !strings.Contains(errOut, `template "deb-s" of pair.deb.server changed`) {
		t.Errorf("plan after the template was edited should warn naming it: %v\n%s", err, errOut)
	}
	if strings.Contains(out+errOut, sim.Password) {
		t.Error("the vCenter password reached the output")
	}
}

// TestVSphereLoginOncePerCommand counts the simulator's Login calls per
// command of the real binary: at most one for plan, apply and destroy, and
// exactly one failed login when the password is wrong — which is never
// printed.
func TestVSphereLoginOncePerCommand(t *testing.T) {
	sim := vspheretest.Start(t)
	dir := t.TempDir()
	src := strings.Replace(vsphereLab, "%q", `"vlogin"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const wrong = "Wrong-Passw0rd-9"
	tests := []struct {
		args     []string
		password string
		wantErr  string
	}{
		{[]string{"apply", "-auto-approve"}, wrong, "lab stops at the first failed login"},
		{[]string{"plan"}, "", ""},
		// No guest answers SSH behind the simulated VMs: this apply gets as
		// far as connecting, then tears down.
		{[]string{"apply", "-auto-approve"}, "", "connect pair.fbsd.server"},
		{[]string{"destroy", "-auto-approve", "-orphans"}, "", ""},
	}
	for _, tc := range tests {
		sim.ResetCalls()
		cmd := exec.Command(labBin, append([]string{"-chdir=" + dir}, tc.args...)...)
		cmd.Env = os.Environ()
		for k, v := range sim.Env() {
			if k == "GOVC_PASSWORD" && tc.password != "" {
				v = tc.password
			}
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		if n := sim.Calls("Login"); n > 1 {
			t.Errorf("%v: %d Login calls, want at most 1", tc.args, n)
		}
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(string(out), tc.wantErr)) {
			t.Errorf("%v: %v, want error %q\n%s", tc.args, err, tc.wantErr, out)
		}
		if strings.Contains(string(out), wrong) || strings.Contains(string(out), sim.Password) {
			t.Errorf("%v: a password reached the output:\n%s", tc.args, out)
		}
	}
}

// TestVSpherePlanChecksTemplate: `lab plan` with a connection configured
// refuses a template name vCenter does not have, listing the ones it has.
func TestVSpherePlanChecksTemplate(t *testing.T) {
	sim := vspheretest.Start(t)
	dir := t.TempDir()
	src := strings.Replace(strings.Replace(vsphereLab, "%q", `"vtmpl"`, 1), "freebsd-14.2-tmpl", "freebsd-14.3-tmpl", 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := labEnv(t, sim, dir, "plan")
	if err == nil || !strings.Contains(errOut, "freebsd-14.3-tmpl: no such VM or template in datacenter DC0; its templates are: debian-12-tmpl, freebsd-14.2-tmpl") {
		t.Errorf("plan: %v\n%s%s", err, out, errOut)
	}
}
