package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lab-bench/lab/results"
)

// The KVM suite: a private libvirtd in a network namespace (test/kvm/
// harness.sh), two real Debian guests under QEMU/TCG from the image that
// scripts/build-kvm-image.sh makes, configured over SSH, iperf3 between
// them. It needs root and the packages .ci/run installs; it skips without
// them, except under CI=true, where a skip would hide a broken harness.

type kvmEnv struct{ ns, pool, key, image string }

func kvmHarness(t *testing.T) kvmEnv {
	t.Helper()
	fail := t.Skipf
	if os.Getenv("CI") == "true" {
		fail = t.Fatalf
	}
	if os.Geteuid() != 0 {
		fail("KVM suite needs root")
	}
	for _, b := range []string{"libvirtd", "virsh", "qemu-system-x86_64", "debootstrap", "dnsmasq"} {
		if _, err := exec.LookPath(b); err != nil {
			fail("KVM suite needs %s (see .ci/run for the packages)", b)
		}
	}
	harness, _ := filepath.Abs("../../test/kvm/harness.sh")
	out, err := exec.Command(harness, "start").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		fail("KVM harness did not start: %v\n%s", err, stderr)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(harness, "stop").CombinedOutput(); err != nil {
			t.Errorf("harness stop: %v\n%s", err, out)
		}
	})
	env := kvmEnv{}
	for _, l := range strings.Split(string(out), "\n") {
		k, v, _ := strings.Cut(l, "=")
		switch k {
		case "LAB_KVM_NETNS":
			env.ns = v
		case "LAB_KVM_POOL":
			env.pool = v
		case "LAB_KVM_KEY":
			env.key = v
		case "LAB_KVM_IMAGE":
			env.image = v
		}
	}
	return env
}

// kvmLab copies the jumbo example under a lab name of its own.
func kvmLab(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/kvm-virtio-jumbo/lab.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := strings.Replace(string(src), `lab "kvm-virtio-jumbo"`, `lab "`+name+`"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.hcl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (e kvmEnv) cmd(dir string, args ...string) *exec.Cmd {
	argv := append([]string{"netns", "exec", e.ns, labBin, "-chdir=" + dir}, args...)
	return exec.Command("ip", argv...)
}

func (e kvmEnv) vars(extra ...string) []string {
	v := []string{"-var", "accel=tcg", "-var", "pool=" + e.pool, "-var", "ssh_key=" + e.key}
	for _, x := range extra {
		v = append(v, "-var", x)
	}
	return v
}

func virsh(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("virsh", append([]string{"-q", "-c", "qemu:///system"}, args...)...).Output()
	if err != nil {
		t.Fatalf("virsh %v: %v", args, err)
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

// leftovers lists the lab's domains, overlays and networks in the daemon.
func leftovers(t *testing.T, e kvmEnv, labID string) []string {
	var left []string
	for _, d := range virsh(t, "list", "--all", "--name") {
		if strings.HasPrefix(d, labID+"-") {
			left = append(left, "domain "+d)
		}
	}
	for _, v := range virsh(t, "vol-list", e.pool) {
		if strings.HasPrefix(v, labID+"-") {
			left = append(left, "volume "+v)
		}
	}
	for _, n := range virsh(t, "net-list", "--all", "--name") {
		if strings.HasPrefix(n, "lab-"+labID+"-") {
			left = append(left, "network "+n)
		}
	}
	return left
}

func TestKVM(t *testing.T) {
	e := kvmHarness(t)

	t.Run("jumbo frames end to end", func(t *testing.T) {
		const id = "kvm-e2e"
		dir := kvmLab(t, id)
		defer func() {
			if left := leftovers(t, e, id); len(left) > 0 {
				t.Errorf("left in libvirt after apply: %v", left)
			}
		}()
		start := time.Now()
		cmd := e.cmd(dir, append([]string{"apply", "-auto-approve", "-json"}, e.vars("duration=5s")...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if err != nil {
			t.Fatalf("apply: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
		var ready, teardown time.Duration
		var first, last time.Time
		sc := bufio.NewScanner(&stdout)
		for sc.Scan() {
			var ev struct {
				Time    time.Time     `json:"time"`
				Type    string        `json:"type"`
				Address string        `json:"address"`
				Elapsed time.Duration `json:"elapsed_ns"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			switch {
			case ev.Type == "created" && (strings.HasSuffix(ev.Address, ".server") || strings.HasSuffix(ev.Address, ".client")):
				ready = max(ready, ev.Elapsed)
			case ev.Type == "teardown":
				first = ev.Time
			case ev.Type == "deleted":
				last = ev.Time
			}
		}
		if !first.IsZero() && !last.IsZero() {
			teardown = last.Sub(first)
		}
		rs := results.Store{Dir: filepath.Join(dir, "results")}
		rid, err := rs.Latest()
		if err != nil {
			t.Fatal(err)
		}
		_, recs, err := rs.Load(rid)
		if err != nil {
			t.Fatal(err)
		}
		by := map[int][]float64{}
		for _, r := range recs {
			if r.Error != "" {
				t.Errorf("%s: %s", r.CellKey, r.Error)
				continue
			}
			if r.Observed.Server.MTU != r.Intent.Server.MTU || r.Observed.Client.MTU != r.Intent.Client.MTU {
				t.Errorf("%s: observed MTU %d/%d, asked %d", r.CellKey, r.Observed.Server.MTU, r.Observed.Client.MTU, r.Intent.Server.MTU)
			}
			if r.HostCPU == nil || r.HostCPU.Server.Source != "libvirt:cpu_time" || r.HostCPU.Client.BusyPct <= 0 {
				t.Errorf("%s: hypervisor CPU not measured: %+v", r.CellKey, r.HostCPU)
			}
			by[r.Intent.Server.MTU] = append(by[r.Intent.Server.MTU], r.Metrics.ThroughputBps/1e9)
		}
		m1500, m9000 := kvmMedian(by[1500]), kvmMedian(by[9000])
		t.Logf("figures: both guests SSH-ready %v after create; teardown %v; whole apply %v", ready.Round(100*time.Millisecond),
			teardown.Round(10*time.Millisecond), time.Since(start).Round(time.Second))
		t.Logf("figures: MTU 1500 %v Gb/s (median %.2f), MTU 9000 %v Gb/s (median %.2f)", by[1500], m1500, by[9000], m9000)
		if len(by[1500]) != 3 || len(by[9000]) != 3 {
			t.Fatalf("want 3 results per MTU, got %v", by)
		}
		if !(m9000 > m1500) {
			t.Errorf("MTU 9000 median %.2f Gb/s is not above MTU 1500 median %.2f Gb/s", m9000, m1500)
		}
		kvmLockPinsImage(t, e, dir)
	})

	t.Run("no lease: clear error, both guests removed", func(t *testing.T) {
		const id = "kvm-nolease"
		dir := kvmLab(t, id)
		out, err := e.cmd(dir, append([]string{"apply", "-auto-approve"}, e.vars("lease_timeout=3s")...)...).CombinedOutput()
		if err == nil {
			t.Fatalf("apply succeeded without leases:\n%s", out)
		}
		if !strings.Contains(string(out), "no DHCP lease") || !strings.Contains(string(out), "lease_timeout") {
			t.Errorf("error does not say what happened:\n%s", out)
		}
		if left := leftovers(t, e, id); len(left) > 0 {
			t.Errorf("left after a failed apply: %v", left)
		}
	})

	t.Run("SIGINT while booting, kill -9 then destroy", func(t *testing.T) {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
			id := "kvm-sig" + map[syscall.Signal]string{syscall.SIGINT: "int", syscall.SIGKILL: "kill"}[sig]
			dir := kvmLab(t, id)
			cmd := e.cmd(dir, append([]string{"apply", "-auto-approve"}, e.vars()...)...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Both domains are defined and booting well before 8 s.
			time.Sleep(8 * time.Second)
			// ip netns exec execs lab: the process is lab itself.
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			if err == nil {
				t.Errorf("%v: apply exited 0", sig)
			}
			if sig == syscall.SIGINT {
				if left := leftovers(t, e, id); len(left) > 0 {
					t.Errorf("SIGINT: apply left %v\n%s", left, out.String())
				}
			}
			if dout, derr := e.cmd(dir, "destroy", "-auto-approve").CombinedOutput(); derr != nil {
				t.Fatalf("%v: destroy: %v\n%s", sig, derr, dout)
			}
			if left := leftovers(t, e, id); len(left) > 0 {
				t.Errorf("%v: left after destroy: %v", sig, left)
			}
		}
	})
}

// kvmLockPinsImage: the apply's lock file pins the SHA-256 of the base
// image the guests booted (computed here from the file itself); a plan
// whose template resolves to another image warns, naming the template.
// Only plans run here: nothing boots.
func kvmLockPinsImage(t *testing.T, e kvmEnv, dir string) {
	t.Helper()
	img, err := os.ReadFile(filepath.Join(e.image, "base.qcow2"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("sha256:%x", sha256.Sum256(img))
	lock, err := os.ReadFile(filepath.Join(dir, ".lab.lock.hcl"))
	if err != nil || !strings.Contains(string(lock), `template = "`+want+`"`) {
		t.Fatalf("lock file does not pin the image %s: %v\n%s", want, err, lock)
	}
	if out, err := e.cmd(dir, append([]string{"plan"}, e.vars()...)...).CombinedOutput(); err != nil || strings.Contains(string(out), "changed since") {
		t.Errorf("plan with the same image: %v\n%s", err, out)
	}
	const other = "lock-changed.qcow2"
	if out, err := exec.Command("virsh", "-c", "qemu:///system", "vol-create-as", e.pool, other, "1M", "--format", "raw").CombinedOutput(); err != nil {
		t.Fatalf("vol-create-as: %v\n%s", err, out)
	}
	defer exec.Command("virsh", "-c", "qemu:///system", "vol-delete", other, "--pool", e.pool).Run()
	out, err := e.cmd(dir, append([]string{"plan"}, e.vars("image="+other)...)...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), `template "debian" of pair.jumbo.server changed`) || !strings.Contains(string(out), want) {
		t.Errorf("plan with another image should warn naming the template: %v\n%s", err, out)
	}
}

func kvmMedian(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
