package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh/knownhosts"

	labssh "github.com/lab-bench/lab/guest/ssh"
	"github.com/lab-bench/lab/guest/ssh/sshtest"
	"github.com/lab-bench/lab/internal/state"
)

// The remote-libvirt case: the harness's libvirtd runs in netns labkvm,
// which plays the hypervisor host. A real OpenSSH sshd runs inside that
// namespace on a veth address (198.19.252.2/30; this namespace holds
// .1), and lab runs here, outside labkvm: it reaches libvirtd with
// uri = qemu+ssh://root@198.19.252.2/system (its own SSH client, the
// host's key checked in a known_hosts file, libvirtd's socket opened
// through the connection) and the guests, on a lab-owned isolated
// libvirt network inside labkvm that nothing here can route to, by
// jumping through the same sshd (jump_via_host).
const (
	kvmRemoteHere  = "198.19.252.1"
	kvmRemoteHyper = "198.19.252.2"
	kvmRemoteIf    = "lkremote0" // this side; the peer in labkvm is lkremote1
)

func kvmRemote(t *testing.T, e kvmEnv) {
	var names kvmNames
	t.Run("apply and destroy", func(t *testing.T) {
		kvmRemoteRun(t, e, &names)
	})
	// The inner test's cleanups (sshd killed, veth deleted) have run.
	if out, err := exec.Command("ip", "link", "show", "dev", kvmRemoteIf).CombinedOutput(); err == nil {
		t.Errorf("veth %s left:\n%s", kvmRemoteIf, out)
	}
	if out, err := exec.Command("ip", "-n", e.ns, "link", "show", "dev", "lkremote1").CombinedOutput(); err == nil {
		t.Errorf("veth lkremote1 left in %s:\n%s", e.ns, out)
	}
	if out, _ := exec.Command("ip", "netns", "exec", e.ns, "ss", "-Hltn", "sport = :22").CombinedOutput(); strings.TrimSpace(string(out)) != "" {
		t.Errorf("something still listens on port 22 in %s (the sshd?):\n%s", e.ns, out)
	}
	// The test makes no namespace of its own: the client side is this
	// one, the host side the harness's labkvm (which the harness removes).
	if names.Group != "" {
		if left := leftovers(t, e, names.Group); len(left) > 0 {
			t.Errorf("left in libvirt: %v", left)
		}
	}
}

// kvmRemoteRun applies examples/kvm-remote-ssh from this namespace and
// destroys it; it sets *names to the plan's names as soon as there is a
// plan, so the caller checks for leftovers also after a failure.
func kvmRemoteRun(t *testing.T, e kvmEnv, names *kvmNames) {
	run := func(argv ...string) {
		t.Helper()
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	_ = exec.Command("ip", "link", "del", kvmRemoteIf).Run() // a leftover of a killed run
	run("ip", "link", "add", kvmRemoteIf, "type", "veth", "peer", "name", "lkremote1")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", kvmRemoteIf).Run() })
	run("ip", "link", "set", "lkremote1", "netns", e.ns)
	run("ip", "addr", "add", kvmRemoteHere+"/30", "dev", kvmRemoteIf)
	run("ip", "link", "set", kvmRemoteIf, "up")
	run("ip", "-n", e.ns, "addr", "add", kvmRemoteHyper+"/30", "dev", "lkremote1")
	run("ip", "-n", e.ns, "link", "set", "lkremote1", "up")
	_, hostKeyFile, hostKey := sshtest.StartSSHD(t, e.ns, kvmRemoteHyper)

	work := t.TempDir()
	hk, err := labssh.ParseHostKey(hostKey)
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(work, "known_hosts")
	if err := os.WriteFile(known, []byte(knownhosts.Line([]string{kvmRemoteHyper}, hk)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "lab")
	if err := os.CopyFS(dir, os.DirFS("../../examples/kvm-remote-ssh")); err != nil {
		t.Fatal(err)
	}
	vars := []string{"-var", "uri=qemu+ssh://root@" + kvmRemoteHyper + "/system", "-var", "host_key_file=" + hostKeyFile,
		"-var", "known_hosts=" + known, "-var", "pool=" + e.pool, "-var", "accel=tcg", "-var", "ssh_key=" + e.key,
		"-var", "duration=3s"}
	// lab runs in this namespace, not in labkvm.
	lab := func(args ...string) *exec.Cmd {
		return exec.Command(labBin, append([]string{"-chdir=" + dir}, args...)...)
	}
	plan := filepath.Join(dir, "lab.plan")
	*names = kvmPlanNames(t, lab(append([]string{"plan", "-json", "-out", plan}, vars...)...), plan)
	destroyed := false
	defer func() {
		if destroyed {
			return
		}
		if out, err := lab(append([]string{"destroy", "-auto-approve"}, vars...)...).CombinedOutput(); err != nil {
			t.Errorf("destroy: %v\n%s", err, out)
		}
	}()

	start := time.Now()
	var out bytes.Buffer
	apply := lab("apply", "-auto-approve", "-keep", names.File)
	apply.Stdout, apply.Stderr = &out, &out
	if err := apply.Run(); err != nil {
		t.Fatalf("apply over qemu+ssh: %v\n%s", err, out.String())
	}
	t.Logf("figures: apply over qemu+ssh with guests by jump: %v", time.Since(start).Round(time.Second))

	recs := loadRecords(t, dir)
	if len(recs) != 1 || recs[0].Error != "" || recs[0].Metrics.ThroughputBps <= 0 {
		t.Fatalf("want one successful run, got %d: %+v", len(recs), recs)
	}
	if hc := recs[0].HostCPU; hc == nil || hc.Server.Source != "libvirt:cpu_time" {
		t.Errorf("hypervisor CPU not read over the remote connection: %+v", hc)
	}
	t.Logf("figures: %.2f Gb/s between the remote guests (TCG)", recs[0].Metrics.ThroughputBps/1e9)

	// The guests are not reachable from here but through the hypervisor:
	// this namespace routes nothing into labkvm but the veth's /30 (a
	// probe would leave the machine by the default route, so the routes
	// are checked instead), and inside labkvm the guest is on a libvirt
	// bridge.
	st, err := state.Store{Dir: filepath.Join(dir, ".lab")}.Load()
	if err != nil {
		t.Fatal(err)
	}
	guests := 0
	for _, r := range st.Resources {
		if r.Kind != "machine" || r.Endpoint == nil || r.Endpoint.SSHHost == "" {
			continue
		}
		guests++
		here, err := exec.Command("ip", "route", "get", r.Endpoint.SSHHost).CombinedOutput()
		if err == nil && strings.Contains(string(here), "dev "+kvmRemoteIf) {
			t.Errorf("%s (%s) is routed into labkvm from here: the jump proves nothing\n%s", r.Address, r.Endpoint.SSHHost, here)
		}
		there, err := exec.Command("ip", "-n", e.ns, "route", "get", r.Endpoint.SSHHost).CombinedOutput()
		if err != nil || strings.Contains(string(there), " via ") || strings.Contains(string(there), "lkremote1") {
			t.Errorf("%s (%s) is not on a network of the host namespace: %v\n%s", r.Address, r.Endpoint.SSHHost, err, there)
		}
	}
	if guests != 2 {
		t.Errorf("%d guests with an address in state, want 2", guests)
	}

	destroyed = true
	if dout, err := lab(append([]string{"destroy", "-auto-approve"}, vars...)...).CombinedOutput(); err != nil {
		t.Fatalf("destroy: %v\n%s", err, dout)
	}
	if left := leftovers(t, e, names.Group); len(left) > 0 {
		t.Errorf("left in libvirt after destroy: %v", left)
	}
}
